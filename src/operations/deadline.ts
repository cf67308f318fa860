import { deadlineExceeded } from '../contract/errors.js';
import type { Until } from '../db/store.js';

/**
 * The one deadline of a request, whichever door asked: the request timeout, or a gRPC client's
 * earlier deadline. Settles like `work(until)`, or rejects after `ms` (Infinity: never) with the
 * catalogue's DEADLINE_EXCEEDED naming `timeoutMs`, the request timeout. `until` is that moment
 * for the store (see Until): the work's statements still waiting for it never run, one running
 * on a PostgreSQL server is cancelled. The answer does not wait for them: their late results or
 * failures are dropped.
 */
export function withDeadline<T>(work: (until: Until) => Promise<T>, ms: number, timeoutMs = ms): Promise<T> {
  if (!Number.isFinite(ms)) return work(undefined);
  const running = work(performance.now() + ms);
  // One promise and a timer, not Promise.race and finally (four promises more per request).
  return new Promise<T>((resolve, reject) => {
    // Whole ms: Node keeps a list of timers per distinct delay (see postgres-store.ts's cancel timer).
    const timer = setTimeout(() => reject(deadlineExceeded(timeoutMs)), Math.max(0, Math.ceil(ms)));
    running.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/** A request timeout setting as a deadline's ms: 0 is none. */
export const timeoutMsOf = (requestTimeoutMs: number) => (requestTimeoutMs > 0 ? requestTimeoutMs : Infinity);
