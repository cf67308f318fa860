import { hostname } from 'node:os';
import pg from 'pg';
import { InOrder } from './in-order.js';
import { withArraysAsText } from './param-text.js';
import { listenOn, statementConfig, wrap } from './postgres-store.js';
import { assertPrimary } from './server-role.js';
import { waitForStore } from './wait-for-store.js';
import {
  PreparedNames,
  maskDatabaseUrl,
  StoreUnavailableError,
  type ListenHandlers,
  type Queryable,
  type SqlParam,
  type Store,
} from './store.js';

/**
 * The session-level advisory lock that makes one process the writer of a database (the
 * migrations' transaction lock is 7171001). Advisory locks are per database, so writers of
 * different databases on one server do not wait for each other.
 */
export const WRITER_LOCK_KEY = 7171002;

export interface WriterLockOptions {
  /** What writes ('ingest', 'serve --follow'): shown, with the pid and host, as the lock connection's application_name. */
  name: string;
  /** While another process holds the lock: wait for it (true) or throw WriterBusyError. */
  wait: boolean;
  /** Told once when the lock is taken and this process starts waiting, with who holds it. */
  onWait?: (holder: string) => void;
  /** Gives up waiting (shutdown). */
  signal?: AbortSignal;
}

/** Another process holds the writer lock and the caller would not wait. */
export class WriterBusyError extends Error {
  override name = 'WriterBusyError';
  constructor(location: string, holder: string) {
    super(`another writer holds the writer lock of ${location}: ${holder}`);
  }
}

/** The writer lock's connection is gone, so the lock may be another process's by now. */
export class WriterLockLostError extends StoreUnavailableError {
  override name = 'WriterLockLostError';
  constructor(location: string, cause: unknown) {
    super(cause);
    this.message = `lost the writer lock of ${location} (its connection: ${cause instanceof Error ? cause.message : String(cause)}); nothing more is written through it`;
  }
}

/** Who holds the writer lock of the connection's database, as PostgreSQL tells (application_name, backend pid, address). */
async function lockHolder(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ pid: number; app: string | null; addr: string | null }>(
    `SELECT a.pid, nullif(a.application_name, '') AS app, host(a.client_addr) AS addr
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [WRITER_LOCK_KEY],
  );
  const h = rows[0];
  if (!h) return 'a session PostgreSQL does not show to this role';
  return `${h.app ?? 'a session without application_name'} (server pid ${h.pid}${h.addr ? `, from ${h.addr}` : ''})`;
}

/**
 * The writer of a PostgreSQL database: one connection that holds the writer lock for as long as
 * it lives, and through which every write goes. So no write can happen without the lock: when
 * the connection dies the lock is released by the server, the transaction in flight on it is
 * rolled back, and every later call fails with WriterLockLostError (`lost` resolves). A writer
 * that wants to go on acquires a new session and re-reads its checkpoint (another writer may have
 * written meanwhile); see ingest and serve --follow.
 *
 * A Store: calls are serialized on the connection, a transaction holding it until it ends.
 */
export class WriterSession implements Store {
  readonly kind = 'postgres' as const;
  readonly location: string;
  /** Resolves with the cause once the lock is lost (not when closed). */
  readonly lost: Promise<WriterLockLostError>;
  private lostCause: WriterLockLostError | undefined;
  private closing = false;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly client: pg.Client,
    private readonly url: string,
  ) {
    this.location = maskDatabaseUrl(url);
    let resolveLost!: (e: WriterLockLostError) => void;
    this.lost = new Promise((resolve) => (resolveLost = resolve));
    const onLost = (err?: Error) => {
      if (this.closing || this.lostCause) return;
      this.lostCause = new WriterLockLostError(this.location, err ?? new Error('connection ended'));
      client.end().catch(() => {});
      resolveLost(this.lostCause);
    };
    client.removeAllListeners('error');
    client.on('error', onLost);
    client.on('end', () => onLost());
  }

  /**
   * Connects and takes the writer lock: at once, or after waiting for the process that holds it
   * (opts.wait), or throws WriterBusyError. Throws StandbyWriteError on a hot standby, and
   * StoreUnavailableError when the server cannot be reached.
   */
  static async acquire(url: string, opts: WriterLockOptions): Promise<WriterSession> {
    const location = maskDatabaseUrl(url);
    const client = new pg.Client({
      connectionString: url,
      application_name: `epochview ${opts.name} (pid ${process.pid} on ${hostname()})`.slice(0, 63),
      connectionTimeoutMillis: 5000,
      // A dead peer is noticed by the operating system, and the lock freed by the server.
      keepAlive: true,
    });
    client.on('error', () => {}); // Until the session watches it; the failing call reports it.
    const abort = () => void client.end().catch(() => {});
    opts.signal?.addEventListener('abort', abort);
    try {
      await client.connect();
      await assertPrimary({ query: async (sql: string) => (await client.query(sql)).rows }, location, 'the writer');
      const [row] = (await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [WRITER_LOCK_KEY])).rows;
      if (!row!.locked) {
        const holder = await lockHolder(client);
        if (!opts.wait) throw new WriterBusyError(location, holder);
        opts.onWait?.(holder);
        // The server grants it the moment the holder's session ends or unlocks.
        await client.query('SELECT pg_advisory_lock($1)', [WRITER_LOCK_KEY]);
      }
    } catch (err) {
      await client.end().catch(() => {});
      opts.signal?.throwIfAborted();
      throw wrap(err);
    } finally {
      opts.signal?.removeEventListener('abort', abort);
    }
    return new WriterSession(client, url);
  }

  query<Row extends object>(sql: string, params: readonly SqlParam[] = []): Promise<Row[]> {
    return this.exclusive(async () => (await this.client.query(sql, withArraysAsText(params))).rows as Row[]);
  }

  async queryRow<Row extends object>(sql: string, params: readonly SqlParam[] = []): Promise<Row | undefined> {
    return (await this.query<Row>(sql, params))[0];
  }

  async exec(sql: string): Promise<void> {
    await this.query(sql);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = this.client;
    const names = this.statementNames;
    const inOrder = new InOrder();
    const tx: Queryable = {
      async query<Row extends object>(sql: string, params: readonly SqlParam[] = []) {
        const config = statementConfig(names, sql, params);
        return (await inOrder.run(() => client.query(config))).rows as Row[];
      },
    };
    return this.exclusive(async () => {
      await client.query('BEGIN');
      try {
        const result = await fn(tx);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      }
    });
  }

  listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
    return listenOn(this.url, channel, handlers);
  }

  /** Releases the lock (ending the session would too) and closes the connection. */
  async close(): Promise<void> {
    await this.queue;
    this.closing = true;
    if (!this.lostCause) await this.client.query('SELECT pg_advisory_unlock($1)', [WRITER_LOCK_KEY]).catch(() => {});
    await this.client.end().catch(() => {});
  }

  /**
   * Ingestion's statements run as named prepared statements: the same few texts run in every
   * batch's transaction, and parsing and planning them each time was about a tenth of the
   * server's work while catching up. Bounded as the pool's are (PreparedNames): past the bound, or
   * for a long text, a statement runs unnamed.
   */
  private readonly statementNames = new PreparedNames('ew');

  /** Runs fn alone on the connection; once the lock is lost, fails with WriterLockLostError. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      if (this.lostCause) throw this.lostCause;
      try {
        return await fn();
      } catch (err) {
        throw this.lostCause ?? wrap(err);
      }
    });
    this.queue = run.catch(() => {});
    return run;
  }
}

/** What a long-running writer does while it holds the lock (a follower, a broker listener). */
export interface WriterWork {
  /** Stops writing; resolves once the write in progress has ended. */
  stop(): Promise<void>;
}

export interface SuperviseOptions extends Omit<WriterLockOptions, 'signal'> {
  /** Told before each wait for an unreachable server (or a failing start): the attempt, the wait, why. */
  onRetry(attempt: number, delayMs: number, cause: Error): void;
  /** Told when the lock was lost and the work stopped; it is acquired again next. */
  onLost(cause: Error): void;
  /** Told when writing cannot go on (a hot standby, say); supervising ends. */
  onError(err: Error): void;
}

/**
 * Keeps a long-running writer going under the writer lock: acquires the lock (waiting while
 * another process holds it, and with backoff while the server is unreachable), starts the work
 * on the session, and when the lock is lost stops the work and does it all again, so the work
 * always begins anew from what the store holds. Stop with the returned function.
 */
export function superviseWriter(
  url: string,
  opts: SuperviseOptions,
  start: (session: WriterSession) => Promise<WriterWork>,
): () => Promise<void> {
  const aborter = new AbortController();
  const stopped = new Promise<undefined>((resolve) => aborter.signal.addEventListener('abort', () => resolve(undefined)));
  const startOnce = async () => {
    const session = await WriterSession.acquire(url, { ...opts, signal: aborter.signal });
    try {
      return { session, work: await start(session) };
    } catch (err) {
      await session.close();
      throw err;
    }
  };
  const loop = (async () => {
    while (!aborter.signal.aborted) {
      let running: { session: WriterSession; work: WriterWork };
      try {
        running = await waitForStore(`the writer lock of ${maskDatabaseUrl(url)}`, startOnce, {
          timeoutMs: 0,
          onRetry: opts.onRetry,
          signal: aborter.signal,
        });
      } catch (err) {
        if (!aborter.signal.aborted) opts.onError(err as Error);
        return;
      }
      const lost = await Promise.race([running.session.lost, stopped]);
      await running.work.stop();
      await running.session.close();
      if (lost) opts.onLost(lost);
    }
  })();
  return async () => {
    aborter.abort();
    await loop;
  };
}
