import { setTimeout as sleep } from 'node:timers/promises';
import { StoreUnavailableError, type Store } from './store.js';

/** First wait between two attempts; it doubles up to MAX_BACKOFF_MS. */
export const FIRST_BACKOFF_MS = 250;
export const MAX_BACKOFF_MS = 5000;

export interface WaitOptions {
  /** Give up this many ms after startedAt (StartupTimeoutError); 0: never. */
  timeoutMs: number;
  /** When the wait began (Date.now()), if before this call: one timeout for several waits. */
  startedAt?: number;
  /** Told before each wait: the attempt that failed (1, 2, …), the wait, and why. */
  onRetry(attempt: number, delayMs: number, cause: Error): void;
  /** Ends the wait early (shutdown): the pending attempt's promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** The store did not come up within --startup-timeout-ms. */
export class StartupTimeoutError extends Error {
  override name = 'StartupTimeoutError';
  constructor(what: string, timeoutMs: number, cause: Error) {
    super(`${what} within ${timeoutMs} ms (--startup-timeout-ms); the last attempt: ${cause.message}`, { cause });
  }
}

/**
 * Runs `attempt` until it succeeds, waiting with exponential backoff while it fails with
 * StoreUnavailableError (the server is down, starting, or not there yet) or `retryOn` says so;
 * any other failure is thrown at once. `what` names the wait in the timeout's message ("PostgreSQL
 * at … did not answer").
 */
export async function waitForStore<T>(
  what: string,
  attempt: () => Promise<T>,
  opts: WaitOptions,
  retryOn: (err: unknown) => boolean = () => false,
): Promise<T> {
  const deadline = opts.timeoutMs > 0 ? (opts.startedAt ?? Date.now()) + opts.timeoutMs : Infinity;
  let delay = FIRST_BACKOFF_MS;
  for (let n = 1; ; n++) {
    opts.signal?.throwIfAborted();
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof StoreUnavailableError) && !retryOn(err)) throw err;
      const left = deadline - Date.now();
      if (left <= 0) throw new StartupTimeoutError(what, opts.timeoutMs, err as Error);
      const wait = Math.min(delay, left);
      opts.onRetry(n, wait, err as Error);
      await sleep(wait, undefined, opts.signal ? { signal: opts.signal } : {});
      delay = Math.min(delay * 2, MAX_BACKOFF_MS);
    }
  }
}

/**
 * Waits until a PostgreSQL server answers (nothing to wait for with the embedded store), with
 * backoff; onRetry is told of each failed attempt.
 */
export async function waitUntilReachable(store: Pick<Store, 'kind' | 'location' | 'query'>, opts: WaitOptions): Promise<void> {
  if (store.kind !== 'postgres') return;
  await waitForStore(`PostgreSQL at ${store.location} did not answer`, () => store.query('SELECT 1'), opts);
}
