import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import type { ThreadCall, ThreadError, ThreadMessage, ThreadRequest } from './pglite-thread.js';
import { ONE_THREAD_TUNING, StatementBatches } from './statement-batches.js';
import { startWorker } from '../lib/worker-thread.js';
import { lockDataDir } from './data-dir-lock.js';
import { type ListenHandlers, type Queryable, type SqlParam, type Store, StoreTimeoutError, type Until } from './store.js';

/** An error from the thread, as PGlite raised it there (message, name, code, detail, …). */
function fromThread(e: ThreadError): Error {
  const err = Object.assign(new Error(e.message), e.fields);
  err.name = e.name;
  return err;
}

/**
 * The embedded store: PostgreSQL compiled to WebAssembly, data in a folder (or in memory for
 * `memory://`), running in a thread of its own (pglite-thread.ts) so that SQL and the HTTP work
 * of this thread run on different cores. It has one connection; PGlite queues statements, and a
 * transaction holds the connection until it ends, so readers never see half of one.
 *
 * The thread keeps the process alive only while a call is in flight, as an in-process store
 * would: an idle store that is never closed does not hold the process open. A closed store's
 * thread is kept, idle, for the next store the process opens (see `spare`).
 */
export class PgliteStore implements Store {
  readonly kind = 'pglite' as const;
  readonly location: string;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  private readonly listeners = new Map<number, (payload: string) => void>();
  private nextId = 1;
  private stopped: Error | undefined;
  private closed: Promise<void> | undefined;
  private readonly onMessage = (m: ThreadMessage) => {
    if ('notify' in m) return this.listeners.get(m.notify)?.(m.payload);
    if (!('id' in m)) return;
    const call = this.pending.get(m.id);
    this.pending.delete(m.id);
    if (this.pending.size === 0) this.worker.unref();
    if (m.ok) call?.resolve(m.value);
    else call?.reject(fromThread(m.error));
  };
  private readonly onExit = (code: number) => {
    this.stop(new Error(`the PGlite thread of ${this.location} stopped (exit code ${code})`));
    this.release();
  };
  private readonly onError = (err: Error) =>
    this.stop(new Error(`the PGlite thread of ${this.location} failed: ${err.message}`, { cause: err }));

  private constructor(
    private readonly worker: Worker,
    location: string,
    /** Gives the folder back (lockDataDir); once only. */
    private unlock: (() => void) | undefined,
    onBatch?: (members: number) => void,
    now?: () => number,
  ) {
    this.location = location;
    this.batches = new StatementBatches((sql, params, until) => this.query(sql, params, until), 2, onBatch, ONE_THREAD_TUNING, now);
    worker.unref();
    worker.on('message', this.onMessage);
    worker.once('exit', this.onExit);
    worker.on('error', this.onError);
  }

  /**
   * onBatch: told of each batch of statements (see queryRow), with its member count. now: the
   * batches' clock (StatementBatches), for a test's own.
   */
  static async open(dataDir: string, onBatch?: (members: number) => void, now?: () => number): Promise<PgliteStore> {
    const unlock = dataDir === 'memory://' ? () => {} : lockDataDir(dataDir);
    let worker = spare && running(spare) ? spare : undefined;
    spare = undefined;
    try {
      worker ??= startWorker(import.meta.url, 'pglite-thread', undefined);
      const started = worker;
      await new Promise<void>((resolve, reject) => {
        const exited = (code: number) => reject(new Error(`the PGlite thread stopped while opening ${dataDir} (exit code ${code})`));
        const onMessage = (m: ThreadMessage) => {
          if (!('opened' in m) && !('failed' in m)) return;
          started.off('message', onMessage);
          started.off('error', reject);
          started.off('exit', exited);
          if ('opened' in m) resolve();
          else reject(fromThread(m.failed));
        };
        started.on('message', onMessage);
        started.once('error', reject);
        started.once('exit', exited);
        started.ref();
        started.postMessage({ open: dataDir } satisfies ThreadRequest);
      });
    } catch (err) {
      // The folder is given back however the open failed.
      await worker?.terminate().catch(() => {});
      unlock();
      throw err;
    }
    return new PgliteStore(worker, dataDir === 'memory://' ? 'pglite (in memory)' : `pglite ${dataDir}`, unlock, onBatch, now);
  }

  private stop(cause: Error): void {
    this.stopped ??= cause;
    for (const call of this.pending.values()) call.reject(this.stopped);
    this.pending.clear();
  }

  private call<T>(call: ThreadCall): Promise<T> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    if (this.pending.size === 0) this.worker.ref();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, call } satisfies ThreadRequest);
    });
  }

  /**
   * A statement past its deadline (Until) is not sent to the thread; one sent runs to its end
   * there: PGlite cannot stop a statement midway, and the batches keep at most two of a text
   * queued there (see queryRow), so it is the waiting ones that a deadline spares.
   */
  query<Row extends object>(sql: string, params: readonly SqlParam[] = [], until?: Until): Promise<Row[]> {
    if (until !== undefined && performance.now() >= until)
      return Promise.reject(new StoreTimeoutError('the deadline passed before the statement ran'));
    return this.call<Row[]>({ op: 'query', sql, params });
  }

  /**
   * Batched as on a server (see StatementBatches). The thread runs one statement at a time; two
   * slots for a costly text keep the next batch queued there while this thread handles the last
   * one's rows (one slot made the 1,000-row pages 13% slower; two, 33 to 43% faster than none).
   */
  private readonly batches: StatementBatches;

  queryRow<Row extends object>(sql: string, params: readonly SqlParam[] = [], until?: Until): Promise<Row | undefined> {
    return this.batches.queryRow<Row>(sql, params, until);
  }

  async exec(sql: string): Promise<void> {
    await this.call({ op: 'exec', sql });
  }

  /** A session in the thread: begin, fn's statements in it, then commit (or roll back when fn throws). */
  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const tx = await this.call<number>({ op: 'begin' });
    let result: T;
    try {
      result = await fn({
        query: <Row extends object>(sql: string, params: readonly SqlParam[] = []) => this.call<Row[]>({ op: 'query', sql, params, tx }),
      });
    } catch (err) {
      await this.call({ op: 'end', tx, commit: false }).catch(() => {});
      throw err;
    }
    await this.call({ op: 'end', tx, commit: true });
    return result;
  }

  /** In this process, so nothing is ever missed: listening from start to end. */
  async listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
    const listener = this.nextId++;
    this.listeners.set(listener, handlers.onNotify);
    await this.call({ op: 'listen', channel, listener });
    handlers.onListening(true);
    return async () => {
      this.listeners.delete(listener);
      if (!this.stopped) await this.call({ op: 'unlisten', listener });
    };
  }

  /** Closes PGlite (which syncs its folder), gives the folder back, and keeps the thread as the spare. */
  close(): Promise<void> {
    this.closed ??= this.closeThread();
    return this.closed;
  }

  private async closeThread(): Promise<void> {
    if (this.stopped) {
      // The thread failed or stopped: nothing is open in it, and the folder is given back once it
      // has exited.
      if (running(this.worker)) await once(this.worker, 'exit');
      return;
    }
    let failed: unknown;
    await this.call({ op: 'close' }).catch((err: unknown) => (failed = err));
    this.stop(new Error(`${this.location} is closed`));
    this.release();
    if (failed === undefined && spare === undefined) {
      spare = this.worker;
      return;
    }
    // Referenced until it has exited: an unreferenced thread let the event loop of a process with
    // nothing else to do end with close() still pending.
    this.worker.ref();
    await this.worker.terminate();
    if (failed !== undefined) throw failed;
  }

  /** Stops hearing the thread, and gives the folder back. */
  private release(): void {
    this.worker.off('message', this.onMessage);
    this.worker.off('exit', this.onExit);
    this.worker.off('error', this.onError);
    this.unlock?.();
    this.unlock = undefined;
  }
}

/**
 * The thread of a store this process closed, idle and unreferenced, which the next store opened
 * takes (see pglite-thread.ts): starting a thread and loading PGlite's code into it costs about
 * three times what starting PGlite in a thread that ran it before costs. One that has stopped
 * (it should not) is not taken.
 */
let spare: Worker | undefined;

/** Whether the thread still runs: one that no longer does has the id -1. */
const running = (worker: Worker) => worker.threadId !== -1;
