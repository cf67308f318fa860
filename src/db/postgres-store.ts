import pg from 'pg';
import { maskDatabaseUrl, StoreUnavailableError, type Queryable, type SqlParam, type Store } from './store.js';

/** Connection-level failures (server down, restarting, refusing) as opposed to SQL errors. */
function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (typeof e?.code === 'string') {
    // Class 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown, cannot connect now.
    if (e.code.startsWith('08') || /^57P0[123]$/.test(e.code)) return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'].includes(e.code)) return true;
  }
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(e?.message ?? '');
}

function wrap(err: unknown): unknown {
  return isConnectionError(err) ? new StoreUnavailableError(err) : err;
}

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly location: string;
  private readonly pool: pg.Pool;

  constructor(url: string, poolSize = 10) {
    this.location = maskDatabaseUrl(url);
    this.pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5000 });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    this.pool.on('error', () => {});
  }

  async query<Row extends object>(sql: string, params: readonly SqlParam[] = []): Promise<Row[]> {
    try {
      const res = await this.pool.query(sql, params as unknown[]);
      return res.rows as Row[];
    } catch (err) {
      throw wrap(err);
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
    const tx: Queryable = {
      async query<Row extends object>(sql: string, params: readonly SqlParam[] = []) {
        try {
          return (await client.query(sql, params as unknown[])).rows as Row[];
        } catch (err) {
          throw wrap(err);
        }
      },
    };
    let broken = false;
    try {
      await client.query('BEGIN');
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

  async close(): Promise<void> {
    await this.pool.end();
  }
}
