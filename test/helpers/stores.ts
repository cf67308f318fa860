import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openMigratedStore } from '../../src/schema.js';
import type { Store } from '../../src/db/store.js';
import { FIXTURES, runCli } from './cli.js';

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

/** The fixture datasets of test/fixtures: each ingested once (per run, or per file run alone) into a template of its own. */
export const DATASETS = ['referral-sets', 'team-stats', 'epoch-summaries', 'teams', 'referral-family'] as const;
export type Dataset = (typeof DATASETS)[number];

interface Template {
  name: string;
  drop(): Promise<void>;
}

/**
 * A migrated store to copy test stores from: a PGlite data dir (closed), or a database on the
 * server. Making a store and migrating it is most of what a test store costs (PGlite's initdb
 * and the migrations, several seconds on a busy 2-core machine); a copy costs a fraction of it.
 * With `datasets`, also a template per fixture dataset, a copy of it with the dataset ingested
 * by the CLI, named after it (datasetTemplate): dozens of suites serve a dataset, and a copy
 * costs less than an ingest. The test runner makes them once per run and names the migrated one
 * in TEMPLATE_VARIABLES; `drop` removes them all.
 */
export async function createTemplate(kind: StoreKind, opts: { datasets?: boolean } = {}): Promise<Template> {
  const base = await createMigratedTemplate(kind);
  const made: Template[] = [];
  try {
    for (const dataset of opts.datasets ? DATASETS : []) made.push(await createDatasetTemplate(kind, base.name, dataset));
  } catch (err) {
    for (const t of [...made, base]) await t.drop();
    throw err;
  }
  return {
    name: base.name,
    drop: async () => {
      for (const t of [...made, base]) await t.drop();
    },
  };
}

async function createMigratedTemplate(kind: StoreKind): Promise<Template> {
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

/** The template that holds `dataset`, named after the migrated template it was copied from. */
function datasetTemplate(kind: StoreKind, base: string, dataset: Dataset): string {
  return kind === 'pglite' ? `${base}-${dataset}` : `${base}_${dataset.replaceAll('-', '_')}`;
}

async function createDatasetTemplate(kind: StoreKind, base: string, dataset: Dataset): Promise<Template> {
  const copy = await copyStore(kind, base, datasetTemplate(kind, base, dataset));
  const res = await runCli(['ingest', `${FIXTURES}${dataset}.ndjson`, ...copy.args]);
  if (res.code !== 0) {
    await copy.drop();
    throw new Error(`ingesting the ${dataset} fixture: ${res.stderr}`);
  }
  return { name: datasetTemplate(kind, base, dataset), drop: copy.drop };
}

/** This process's own templates, when the runner named none (a test file run alone): by kind, and by kind and dataset. */
const ownTemplates = new Map<string, Promise<string>>();

function own(key: string, make: () => Promise<Template>, kind: StoreKind): Promise<string> {
  let name = ownTemplates.get(key);
  if (!name) {
    name = make().then((t) => {
      // A data dir goes at exit; a database when the process is done (else with the stale ones).
      if (kind === 'pglite') process.once('exit', () => rmSync(t.name, { recursive: true, force: true }));
      else process.once('beforeExit', () => void t.drop().catch(() => {}));
      return t.name;
    });
    ownTemplates.set(key, name);
  }
  return name;
}

/** The template to copy a store of `kind` from: the migrated one, or the one holding `dataset`. */
async function templateOf(kind: StoreKind, dataset?: Dataset): Promise<string> {
  const named = process.env[TEMPLATE_VARIABLES[kind]];
  if (named) return dataset ? datasetTemplate(kind, named, dataset) : named;
  const base = await own(kind, () => createTemplate(kind), kind);
  return dataset ? own(`${kind} ${dataset}`, () => createDatasetTemplate(kind, base, dataset), kind) : base;
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
 * A store of its own, migrated (a copy of the run's template), holding a fixture `dataset` (a
 * copy of its template), or `empty` (nothing in it yet, for the tests of migrating).
 */
export async function createTestStore(kind: StoreKind, opts: { empty?: boolean; dataset?: Dataset } = {}): Promise<TestStore> {
  const template = opts.empty ? undefined : await templateOf(kind, opts.dataset);
  const name =
    kind === 'pglite'
      ? mkdtempSync(join(tmpdir(), 'epochview-test-'))
      : `epochview_test_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  return copyStore(kind, template, name);
}

/** A store named `name` (a folder, or a database): a copy of `template`, or empty without one. */
async function copyStore(kind: StoreKind, template: string | undefined, name: string): Promise<TestStore> {
  if (kind === 'pglite') {
    const dataDir = name;
    if (template) cpSync(template, dataDir, { recursive: true });
    return {
      kind,
      dataDir,
      args: ['--data-dir', dataDir],
      open: () => openMigratedStore({ dataDir }),
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  await dropStaleDatabases();
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
