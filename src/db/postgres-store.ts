import pg from 'pg';
import { InOrder } from './in-order.js';
import { withArraysAsText } from './param-text.js';
import { DEFAULT_STATEMENT_SLOTS, StatementBatches, type Batching } from './statement-batches.js';
import {
  PreparedNames,
  maskDatabaseUrl,
  StoreTimeoutError,
  StoreUnavailableError,
  type ListenHandlers,
  type Queryable,
  type SqlParam,
  type Store,
  type Until,
} from './store.js';

/**
 * Failures of the server rather than of the statement: it is down, restarting or refusing, or it
 * cannot do the work now (its disk or memory full, an I/O error, a deadlock or serialization
 * failure). Those are worth retrying, and ingestion waits them out as it waits for a server that
 * is down; an SQL error is not, nor a read-only transaction (25006): a writer given a read-only
 * role would wait for ever.
 */
function isServerUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (typeof e?.code === 'string') {
    // Class 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown, cannot connect
    // now; class 53: insufficient resources; class 58: system error; class 40: transaction
    // rollback (serialization failure, deadlock).
    if (/^(08|53|58|40)/.test(e.code) || /^57P0[123]$/.test(e.code)) return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'].includes(e.code)) return true;
  }
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(e?.message ?? '');
}

/** A driver error as the store reports it: StoreUnavailableError, StoreTimeoutError, or itself. */
export function wrap(err: unknown): unknown {
  if (isServerUnavailable(err)) return new StoreUnavailableError(err);
  // 57014 query_canceled: statement_timeout (or a cancel request).
  if ((err as { code?: string })?.code === '57014') return new StoreTimeoutError(err);
  return err;
}

/** What node-postgres has but its types leave out: a client's backend key, and the connection's CancelRequest. */
interface BackendKey {
  processID: number;
  secretKey: number;
}
interface CancelConnection {
  connect(portOrPath: number | string, host?: string): void;
  cancel(processID: number, secretKey: number): void;
  on(event: 'connect' | 'error', listener: () => void): void;
}

/**
 * Asks the server to cancel the statement `client` runs: PostgreSQL's CancelRequest on a
 * connection of its own, as node-postgres' Client.cancel sends it (whose API takes the deprecated
 * activeQuery). A failure to send it is ignored: the statement then ends by statement_timeout.
 */
function cancelStatement(client: pg.PoolClient): void {
  const { processID, secretKey } = client as unknown as BackendKey;
  const con = new pg.Connection() as unknown as CancelConnection;
  con.on('error', () => {});
  con.on('connect', () => con.cancel(processID, secretKey));
  if (client.host.startsWith('/')) con.connect(`${client.host}/.s.PGSQL.${client.port}`);
  else con.connect(client.port, client.host);
}

/** How long a lost listening connection waits before connecting again. */
const RELISTEN_MS = 1000;

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly location: string;
  private readonly pool: pg.Pool;

  /**
   * statementTimeoutMs bounds every standalone statement (the queries of requests): the server
   * cancels it. Transactions (ingestion, migrations) are not bounded.
   */
  constructor(
    private readonly url: string,
    poolSize = 10,
    private readonly statementTimeoutMs = 0,
    batching: Batching = {},
  ) {
    this.location = maskDatabaseUrl(url);
    this.pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      connectionTimeoutMillis: 5000,
      ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
      // No JIT compilation: the statements are short, and once a big team's page was estimated
      // past jit_above_cost, compiling it took 100 ms, longer than running it. (options in the
      // URL take precedence.)
      options: '-c jit=off',
    });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    this.pool.on('error', () => {});
    const slots = batching.slots ?? DEFAULT_STATEMENT_SLOTS;
    this.batches =
      slots > 0 ? new StatementBatches((sql, params, until) => this.query(sql, params, until), slots, batching.onBatch) : undefined;
  }

  private readonly batches: StatementBatches | undefined;

  /**
   * Standalone statements with parameters (the requests' pages) run as named prepared
   * statements: each connection parses and analyzes a statement text once instead of on every
   * request, which is a good part of a small page's cost in the server. The texts are the
   * operations' few shapes; past the bound of PreparedNames (or for a very long text) a
   * statement runs unnamed, so the prepared statements per connection stay bounded.
   */
  private readonly statementNames = new PreparedNames('ev');

  /** Batched with the statements of its text that wait while others of it run (see StatementBatches). */
  async queryRow<Row extends object>(sql: string, params: readonly SqlParam[] = [], until?: Until): Promise<Row | undefined> {
    return this.batches ? this.batches.queryRow<Row>(sql, params, until) : (await this.query<Row>(sql, params, until))[0];
  }

  async query<Row extends object>(sql: string, params: readonly SqlParam[] = [], until?: Until): Promise<Row[]> {
    const config = statementConfig(this.statementNames, sql, params);
    try {
      if (until === undefined) return (await this.pool.query(config)).rows as Row[];
      return await this.queryUntil<Row>(config, until);
    } catch (err) {
      throw wrap(err);
    }
  }

  /**
   * A statement cancelled if it still runs at `until` (see Until), by a cancel request; the
   * connection is then dropped, not reused, so that a cancel reaching the server late cannot hit
   * the next statement run on it.
   */
  private async queryUntil<Row extends object>(config: pg.QueryConfig, until: number): Promise<Row[]> {
    if (performance.now() >= until) throw new StoreTimeoutError('the deadline passed before the statement ran');
    const client = await this.pool.connect();
    let failed: unknown;
    let cancelled = false;
    // Whole ms: Node keeps a list of timers per distinct delay, keyed by the delay, so a fractional
    // one made a list and a key for every statement. Rounded up, it never fires early.
    const timer = setTimeout(
      () => {
        cancelled = true;
        cancelStatement(client);
      },
      Math.max(0, Math.ceil(until - performance.now())),
    );
    try {
      // pg's callback form, as pool.query calls it, not its promise form: with the promise, what
      // a statement allocated survived two scavenges and was promoted to V8's old generation
      // (--trace-gc-nvp on referee lookups: 128 KB promoted a scavenge against 2 KB, each scavenge
      // twice as long), to be collected by the next mark-compact instead.
      return await new Promise<Row[]>((resolve, reject) =>
        client.query(config, (err: Error | undefined, res: pg.QueryResult) => (err ? reject(err) : resolve(res.rows as Row[]))),
      );
    } catch (err) {
      failed = err;
      throw err;
    } finally {
      clearTimeout(timer);
      // As pool.query does, a client whose statement failed is dropped too.
      client.release(cancelled || failed !== undefined);
    }
  }

  async exec(sql: string): Promise<void> {
    await this.query(sql);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw wrap(err);
    }
    const inOrder = new InOrder();
    const tx: Queryable = {
      async query<Row extends object>(sql: string, params: readonly SqlParam[] = []) {
        try {
          const values = withArraysAsText(params);
          return (await inOrder.run(() => client.query(sql, values))).rows as Row[];
        } catch (err) {
          throw wrap(err);
        }
      },
    };
    let broken = false;
    try {
      await client.query('BEGIN');
      if (this.statementTimeoutMs > 0) await client.query('SET LOCAL statement_timeout = 0');
      const result = await fn(tx);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      throw wrap(err);
    } finally {
      client.release(broken);
    }
  }

  /** A connection of its own (not the pool's: it must stay in LISTEN for good); see listenOn. */
  listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
    return listenOn(this.url, channel, handlers);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * A statement as node-postgres runs it: with parameters, a named prepared statement (while
 * `names` has room), and arrays as their text (param-text.ts).
 */
export function statementConfig(names: PreparedNames, sql: string, params: readonly SqlParam[]): pg.QueryConfig {
  const name = params.length > 0 ? names.nameOf(sql) : undefined;
  const values = withArraysAsText(params);
  return name === undefined ? { text: sql, values } : { name, text: sql, values };
}

/**
 * Hears NOTIFY on `channel` on a connection of its own to `url`. When it fails,
 * onListening(false), and a new one is tried every RELISTEN_MS until stopped.
 */
export async function listenOn(url: string, channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
  let stopped = false;
  let current: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    let listening = false;
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      client.end().catch(() => {});
      if (listening) {
        current = undefined;
        handlers.onListening(false);
      }
      if (!stopped) retry = setTimeout(() => void connect(), RELISTEN_MS).unref();
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (n) => {
      if (n.channel === channel) handlers.onNotify(n.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    } catch {
      onLost();
      return;
    }
    if (stopped || lost) {
      lost = true;
      await client.end().catch(() => {});
      return;
    }
    listening = true;
    current = client;
    handlers.onListening(true);
  };

  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const client = current;
    current = undefined;
    await client?.end().catch(() => {});
  };
}
