import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openStore } from '../src/db/open.js';
import type { Store } from '../src/db/store.js';
import { ROOT } from './paths.js';

export type StoreKind = 'postgres' | 'pglite';

/** A store of the benchmark's own: a database on the server, or a PGlite folder. */
export interface BenchStore {
  kind: StoreKind;
  /** CLI arguments selecting it. */
  args: string[];
  /** The database's URL, on a server. */
  databaseUrl?: string;
  /** Whether it exists already (for --reuse). */
  exists(): Promise<boolean>;
  /** Makes it exist, empty. */
  reset(): Promise<void>;
  drop(): Promise<void>;
  /** Opens it as it is, unmigrated: another build may have ingested it. */
  open(): Promise<Store>;
}

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** A connection to a PostgreSQL server for the length of `fn`. */
export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export function benchStore(kind: StoreKind, name: string, opts: { databaseUrl: string; cacheDir: string }): BenchStore {
  if (kind === 'pglite') {
    const dataDir = join(opts.cacheDir, `pglite-${name}`);
    return {
      kind,
      args: ['--data-dir', dataDir],
      exists: async () => existsSync(join(dataDir, 'PG_VERSION')),
      reset: async () => rmSync(dataDir, { recursive: true, force: true }),
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
      open: () => openStore({ dataDir }),
    };
  }
  const db = `epochview_bench_${name.replace(/[^a-z0-9_]/gi, '_')}`.toLowerCase();
  const url = new URL(opts.databaseUrl);
  url.pathname = `/${db}`;
  const databaseUrl = url.toString();
  const drop = () => withClient(opts.databaseUrl, async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`)));
  return {
    kind,
    args: ['--database-url', databaseUrl],
    databaseUrl,
    exists: () =>
      withClient(opts.databaseUrl, async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [db])).rowCount === 1),
    reset: async () => {
      await drop();
      await withClient(opts.databaseUrl, (c) => c.query(`CREATE DATABASE ${db}`));
    },
    drop,
    open: () => openStore({ databaseUrl, dataDir: '' }),
  };
}

/** The store software's version, for the results header. */
export async function storeVersion(kind: StoreKind, databaseUrl: string): Promise<string> {
  if (kind === 'pglite') {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')) as {
      version: string;
    };
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create();
    try {
      const v = (await db.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0]!.v;
      return `PGlite ${pkg.version} (PostgreSQL ${v})`;
    } finally {
      await db.close();
    }
  }
  const v = await withClient(
    databaseUrl,
    async (c) => (await c.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0]!.v,
  );
  return `PostgreSQL ${v}`;
}
