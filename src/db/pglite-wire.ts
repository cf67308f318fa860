import type { PGlite, Transaction } from '@electric-sql/pglite';
import { DatabaseError, serialize } from 'pg-protocol';
import { DataRowMessage, NotificationResponseMessage, RowDescriptionMessage } from 'pg-protocol/dist/messages.js';
import { Parser } from 'pg-protocol/dist/parser.js';
import { paramText } from './param-text.js';
import { PreparedNames } from './store.js';

/**
 * Statements of the embedded store in one call into PGlite each. PGlite's own query() makes six
 * calls into its WebAssembly backend per statement (parse, describe, bind, describe, execute,
 * sync), parses the statement again every time and decodes each reply into objects; a small
 * page spent more time there than in PostgreSQL's executor. Here a statement is prepared once
 * (parsed and described in one call), and each run is one call of Bind, Execute and Sync whose
 * reply is read in place.
 *
 * Only statements whose result columns are all of the types below take this path (values are
 * selected as text, see store.ts); any other statement, and statements past the bounds, run
 * through PGlite's query() as before, so their values are what PGlite makes of them.
 */

/** Result types read here: text-like as strings, booleans, and 16/32-bit integers as numbers. */
const READERS: Record<number, (text: string) => unknown> = {
  16: (t) => t === 't', // bool
  18: (t) => t, // "char"
  19: (t) => t, // name
  21: Number, // int2
  23: Number, // int4
  25: (t) => t, // text
  705: (t) => t, // unknown (an untyped literal)
  1042: (t) => t, // bpchar
  1043: (t) => t, // varchar
};

interface Column {
  name: string;
  read: (text: string) => unknown;
}

/** A statement's fate: prepared under `name` with its columns, or left to PGlite's query(). */
type Known = { name: string; columns: Column[] } | { name: null };

/** What one reply held: rows (as text, null for NULL), the columns described, an error. */
interface Reply {
  rows: (string | null)[][];
  columns: { name: string; type: number }[] | null;
  error: DatabaseError | null;
}

/**
 * Reads the backend's reply with node-postgres's own parser: the rows (text, null for NULL), the
 * columns described, the first error; notices go to onNotify; the rest is acknowledgement.
 */
function readReply(buf: Buffer, onNotify: (channel: string, payload: string) => void): Reply {
  const reply: Reply = { rows: [], columns: null, error: null };
  new Parser().parse(buf, (msg) => {
    if (msg instanceof DataRowMessage) reply.rows.push(msg.fields as (string | null)[]);
    else if (msg instanceof RowDescriptionMessage) reply.columns = msg.fields.map((f) => ({ name: f.name, type: f.dataTypeID }));
    else if (msg.name === 'noData') reply.columns = [];
    else if (msg instanceof DatabaseError) reply.error ??= msg;
    else if (msg instanceof NotificationResponseMessage) onNotify(msg.channel, msg.payload);
  });
  return reply;
}

export class WireStatements {
  private readonly known = new Map<string, Known>();
  private readonly names = new PreparedNames('ew');

  /** onNotify hears what a statement here notifies (pg_notify outside a transaction). */
  constructor(
    private readonly db: PGlite,
    private readonly onNotify: (channel: string, payload: string) => void,
  ) {}

  /**
   * Runs one statement and gives its rows as objects; in `tx` when given (the caller holds
   * PGlite's transaction), else after any open transaction ends, as PGlite's query() does.
   */
  async query(sql: string, params: readonly unknown[], tx?: Transaction): Promise<Record<string, unknown>[]> {
    const known = this.known.get(sql) ?? (await this.exclusive(() => this.prepare(sql), tx));
    if (known.name === null) return (await (tx ?? this.db).query<Record<string, unknown>>(sql, params as unknown[])).rows;
    return this.exclusive(async () => {
      const reply = await this.call([
        serialize.bind({ statement: known.name, values: params as unknown[], valueMapper: paramText }),
        serialize.execute({}),
        serialize.sync(),
      ]);
      // Autocommit: as PGlite's query() does after a statement outside a transaction.
      if (!tx) await this.db.syncToFs();
      if (reply.error) throw Object.assign(reply.error, { query: sql, params });
      return reply.rows.map((values) => {
        const row: Record<string, unknown> = {};
        for (let i = 0; i < known.columns.length; i++) {
          const text = values[i];
          row[known.columns[i]!.name] = text === null || text === undefined ? null : known.columns[i]!.read(text);
        }
        return row;
      });
    }, tx);
  }

  /** Holds PGlite's locks as its query() does: within a transaction, the statement's own; else the transaction's too. */
  private exclusive<T>(fn: () => Promise<T>, tx: Transaction | undefined): Promise<T> {
    const run = () => this.db._runExclusiveQuery(fn);
    return tx ? run() : this.db._runExclusiveTransaction(run);
  }

  /**
   * Parses and describes a statement once: prepared when its columns can be read here. A
   * statement that does not parse fails as it would in PGlite's query(), and is not remembered
   * (its table may come later).
   */
  private async prepare(sql: string): Promise<Known> {
    // Another call may have prepared it while this one waited for the lock.
    const prepared = this.known.get(sql);
    if (prepared) return prepared;
    let known: Known = { name: null };
    const name = this.names.nameOf(sql);
    if (name !== undefined) {
      const reply = await this.call([serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name }), serialize.sync()]);
      if (reply.error) throw Object.assign(reply.error, { query: sql });
      const columns = (reply.columns ?? []).map(({ name: column, type }) => ({ name: column, read: READERS[type] }));
      if (columns.every((c): c is Column => c.read !== undefined)) known = { name, columns };
      else await this.call([serialize.close({ type: 'S', name }), serialize.sync()]);
    }
    this.known.set(sql, known);
    return known;
  }

  /**
   * One call into the backend. Its reply is taken as it is written, not through
   * execProtocolRawSync(): that also parses every reply into PGlite's current query, which only
   * its own calls empty (a reply's size kept per statement, the whole heap within a minute).
   */
  private async call(messages: Buffer[]): Promise<Reply> {
    const chunks: Buffer[] = [];
    await this.db.execProtocolRawStream(Buffer.concat(messages), {
      syncToFs: false,
      // A view of the backend's memory, valid during the callback only.
      onRawData: (bytes) => void chunks.push(Buffer.from(bytes)),
    });
    return readReply(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), this.onNotify);
  }
}
