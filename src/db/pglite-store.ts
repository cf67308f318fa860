import { PGlite } from '@electric-sql/pglite';
import { mkdirSync } from 'node:fs';
import type { ListenHandlers, Queryable, SqlParam, Store } from './store.js';

/**
 * The embedded store: PostgreSQL compiled to WebAssembly, in this process, data in a folder
 * (or in memory for `memory://`). It has one connection; PGlite queues queries, and a
 * transaction holds the connection until it ends, so readers never see half of one.
 */
export class PgliteStore implements Store {
  readonly kind = 'pglite' as const;
  readonly location: string;
  private constructor(private readonly db: PGlite, location: string) {
    this.location = location;
  }

  static async open(dataDir: string): Promise<PgliteStore> {
    if (dataDir !== 'memory://') mkdirSync(dataDir, { recursive: true });
    const db = await PGlite.create(dataDir === 'memory://' ? undefined : dataDir);
    return new PgliteStore(db, dataDir === 'memory://' ? 'pglite (in memory)' : `pglite ${dataDir}`);
  }

  async query<Row extends object>(sql: string, params: readonly SqlParam[] = []): Promise<Row[]> {
    return (await this.db.query<Row>(sql, params as unknown[])).rows;
  }

  async exec(sql: string): Promise<void> {
    await this.db.exec(sql);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction(async (t) =>
      fn({
        async query<Row extends object>(sql: string, params: readonly SqlParam[] = []) {
          return (await t.query<Row>(sql, params as unknown[])).rows;
        },
      }),
    );
  }

  /** In this process, so nothing is ever missed: listening from start to end. */
  async listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
    const unlisten = await this.db.listen(channel, handlers.onNotify);
    handlers.onListening(true);
    return async () => {
      if (!this.db.closed) await unlisten();
    };
  }

  async close(): Promise<void> {
    if (!this.db.closed) await this.db.close();
  }
}
