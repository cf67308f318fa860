/**
 * The one interface the rest of the code uses to talk to PostgreSQL, whichever store backs it:
 * a PostgreSQL server (node-postgres pool) or the embedded PGlite.
 *
 * Parameters are passed as strings, numbers, booleans, null or arrays of those; ids travel as hex
 * text and are converted with decode()/encode() in SQL, and every value a caller reads back that
 * is not a plain boolean is selected as text. That keeps both drivers' type parsing out of the way.
 */
export type SqlParam = string | number | boolean | null | readonly (string | number | boolean | null)[];

/**
 * Bounds on the statements a connection keeps prepared (both stores prepare the requests'
 * statements): the operations have a few shapes each; past the count, or for a very long text,
 * a statement runs unprepared, so what a connection keeps stays bounded.
 */
const MAX_PREPARED = 200;
const MAX_PREPARED_LENGTH = 20_000;

/** The names a connection's prepared statements go by, one per text, within the bounds above (else undefined: unprepared). */
export class PreparedNames {
  private readonly names = new Map<string, string>();

  /** `prefix` keeps the names of the connections of one process apart in logs. */
  constructor(private readonly prefix: string) {}

  nameOf(sql: string): string | undefined {
    let name = this.names.get(sql);
    if (name === undefined && sql.length <= MAX_PREPARED_LENGTH && this.names.size < MAX_PREPARED) {
      name = `${this.prefix}${this.names.size}`;
      this.names.set(sql, name);
    }
    return name;
  }
}

export interface Queryable {
  query<Row extends object = Record<string, unknown>>(sql: string, params?: readonly SqlParam[]): Promise<Row[]>;
}

/**
 * When a request's caller stops waiting for a statement (performance.now() time; undefined: the
 * statement runs to its end or the store's statement timeout): one that has not started by then
 * never runs, one running then on a PostgreSQL server is cancelled. Either way it rejects, and
 * the caller has answered DEADLINE_EXCEEDED already (operations/deadline.ts).
 */
export type Until = number | undefined;

export interface Store extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  query<Row extends object = Record<string, unknown>>(sql: string, params?: readonly SqlParam[], until?: Until): Promise<Row[]>;
  /**
   * The first row of a statement (undefined when it answers none). Calls of one text arriving
   * while others of it run wait, and run together as one statement (see StatementBatches).
   */
  queryRow<Row extends object = Record<string, unknown>>(
    sql: string,
    params?: readonly SqlParam[],
    until?: Until,
  ): Promise<Row | undefined>;
  /** Where the data lives, safe to log (passwords masked). */
  readonly location: string;
  /** Runs fn inside one transaction: all of it commits, or none of it. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs several statements separated by semicolons, without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Hears NOTIFY on `channel` until the returned function is called. On a PostgreSQL server this
   * holds a connection of its own, reconnecting while the server is away: notices sent meanwhile
   * are lost, which onListening(false) announces; onListening(true) follows each (re)connection.
   */
  listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface ListenHandlers {
  onNotify(payload: string): void;
  onListening(listening: boolean): void;
}

/** The store was unreachable or went away; the HTTP layer maps this to 503. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`store unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StoreUnavailableError';
  }
}

/**
 * A statement was cancelled by the server's statement_timeout, or given up at its caller's
 * deadline (Until); the doors map this to 504 DEADLINE_EXCEEDED.
 */
export class StoreTimeoutError extends Error {
  constructor(cause: unknown) {
    super(`statement cancelled: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StoreTimeoutError';
  }
}

/**
 * Replaces the passwords of a connection string with "***" so it can be logged: a URL's user
 * part, its `password` query parameter (which node-postgres takes too), and a key=value string's
 * `password=` (libpq's form, quoted or not).
 */
export function maskDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    if (u.searchParams.has('password')) u.searchParams.set('password', '***');
    return u.toString().replace('password=%2A%2A%2A', 'password=***');
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@').replace(/(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)/gi, '$1***');
  }
}
