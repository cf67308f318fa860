import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openMigratedStore } from '../../src/schema.js';
import type { Store } from '../../src/db/store.js';

/**
 * The two stores every component test runs on. The PostgreSQL server is required: a test run
 * without it fails instead of quietly testing half (scripts/run-tests.mjs starts one of its own
 * when none answers on 127.0.0.1:5432 and TEST_DATABASE_URL is unset).
 * EPOCHVIEW_TEST_STORES=pglite narrows a local run on purpose.
 */
export type StoreKind = 'pglite' | 'postgres';
export const STORE_KINDS: StoreKind[] = (process.env.EPOCHVIEW_TEST_STORES ?? 'pglite,postgres').split(',') as StoreKind[];
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A store of its own: a temp folder, or a database created on the server. */
export interface TestStore {
  kind: StoreKind;
  /** CLI arguments that select this store. */
  args: string[];
  databaseUrl?: string;
  dataDir?: string;
  open(): Promise<Store>;
  drop(): Promise<void>;
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

let counter = 0;

/** Test databases older than this were left by an interrupted run (their names carry the time). */
const STALE_MS = 3 * 3600 * 1000;
let staleDropped: Promise<void> | undefined;

/** Drops the test databases interrupted runs left on the shared server, once per process. */
function dropStaleDatabases(): Promise<void> {
  staleDropped ??= admin(async (c) => {
    const { rows } = await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'epochview\\_test\\_%'`);
    for (const { datname } of rows) {
      const created = parseInt(datname.split('_')[3] ?? '', 36);
      if (Number.isFinite(created) && Date.now() - created > STALE_MS) {
        await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => {});
      }
    }
  });
  return staleDropped;
}

/** The variables that name a run's templates (see createTemplate), set by scripts/run-tests.mjs. */
export const TEMPLATE_VARIABLES: Record<StoreKind, string> = {
  pglite: 'EPOCHVIEW_TEST_PGLITE_TEMPLATE',
  postgres: 'EPOCHVIEW_TEST_POSTGRES_TEMPLATE',
};

/**
 * A migrated store to copy test stores from: a PGlite data dir (closed), or a database on the
 * server. Making a store and migrating it is most of what a test store costs (PGlite's initdb
 * and the migrations, several seconds on a busy 2-core machine); a copy costs a fraction of it.
 * The test runner makes one per run and names it in TEMPLATE_VARIABLES; `drop` removes it.
 */
export async function createTemplate(kind: StoreKind): Promise<{ name: string; drop(): Promise<void> }> {
  if (kind === 'pglite') {
    const dataDir = mkdtempSync(join(tmpdir(), 'epochview-test-template-'));
    await (await openMigratedStore({ dataDir })).close();
    // A test's data is kilobytes: 16 MB of shared buffers instead of PGlite's 128 halves what
    // starting PGlite costs (it clears them), and the suite starts it hundreds of times.
    appendFileSync(join(dataDir, 'postgresql.conf'), '\nshared_buffers = 16MB\n');
    return { name: dataDir, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  await dropStaleDatabases();
  const name = `epochview_test_${process.pid}_${Date.now().toString(36)}_template`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  await (await openMigratedStore({ databaseUrl: urlOf(name), dataDir: '' })).close();
  return { name, drop: () => dropDatabase(name) };
}

/** This process's own templates, when the runner named none (a test file run alone). */
const ownTemplates: Partial<Record<StoreKind, Promise<string>>> = {};

function templateOf(kind: StoreKind): Promise<string> {
  const named = process.env[TEMPLATE_VARIABLES[kind]];
  if (named) return Promise.resolve(named);
  ownTemplates[kind] ??= createTemplate(kind).then((t) => {
    // A data dir goes at exit; a database when the process is done (else with the stale ones).
    if (kind === 'pglite') process.once('exit', () => rmSync(t.name, { recursive: true, force: true }));
    else process.once('beforeExit', () => void t.drop().catch(() => {}));
    return t.name;
  });
  return ownTemplates[kind];
}

function urlOf(database: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

function dropDatabase(name: string): Promise<void> {
  return admin(async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)));
}

/**
 * A store of its own, migrated (a copy of the run's template), or `empty` (nothing in it yet,
 * for the tests of migrating).
 */
export async function createTestStore(kind: StoreKind, opts: { empty?: boolean } = {}): Promise<TestStore> {
  if (kind === 'pglite') {
    const dataDir = mkdtempSync(join(tmpdir(), 'epochview-test-'));
    if (!opts.empty) cpSync(await templateOf(kind), dataDir, { recursive: true });
    return {
      kind,
      dataDir,
      args: ['--data-dir', dataDir],
      open: () => openMigratedStore({ dataDir }),
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  await dropStaleDatabases();
  const template = opts.empty ? undefined : await templateOf(kind);
  const name = `epochview_test_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`));
  const databaseUrl = urlOf(name);
  return {
    kind,
    databaseUrl,
    args: ['--database-url', databaseUrl],
    open: () => openMigratedStore({ databaseUrl, dataDir: '' }),
    drop: () => dropDatabase(name),
  };
}
