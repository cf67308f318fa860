import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertPrimary } from './server-role.js';
import type { Store } from './store.js';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
const FILE_PATTERN = /^(\d{3})_([a-z0-9_]+)\.sql$/;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The numbered SQL files, in order. */
export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .map((file) => ({ file, m: FILE_PATTERN.exec(file) }))
    .filter((f): f is { file: string; m: RegExpExecArray } => f.m !== null)
    .map(({ file, m }) => ({ version: Number(m[1]), name: m[2]!, sql: readFileSync(join(dir, file), 'utf8') }))
    .sort((a, b) => a.version - b.version);
}

/** The file name a migration came from, as the messages name it. */
export function migrationName(m: Migration): string {
  return `${String(m.version).padStart(3, '0')}_${m.name}`;
}

/**
 * The migrations the store's schema lacks, read without writing anything (a read-only role
 * needs SELECT on schema_migrations only): all of them on an empty database.
 */
export async function pendingMigrations(store: Store, migrations = loadMigrations()): Promise<Migration[]> {
  const [table] = await store.query<{ exists: boolean }>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS exists`);
  if (!table?.exists) return migrations;
  const done = new Set((await store.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => Number(r.version)));
  return migrations.filter((m) => !done.has(m.version));
}

/** The schema lacks migrations this version needs; serve waits for a writer or `epochview migrate` to apply them. */
export class SchemaBehindError extends Error {
  override name = 'SchemaBehindError';
  constructor(location: string, pending: readonly Migration[]) {
    super(
      `the schema of ${location} is behind: migration${pending.length > 1 ? 's' : ''} ${pending.map(migrationName).join(', ')} not applied; ` +
        'run `epochview migrate` against the primary (or start the writer: `epochview ingest`, `epochview serve --follow`)',
    );
  }
}

/** Throws SchemaBehindError unless every migration is applied. */
export async function assertSchemaCurrent(store: Store): Promise<void> {
  const pending = await pendingMigrations(store);
  if (pending.length > 0) throw new SchemaBehindError(store.location, pending);
}

/**
 * Applies the migrations the store has not seen yet, all in one transaction, and returns the
 * versions applied. On a PostgreSQL server an advisory lock keeps two processes from migrating
 * at once, and a hot standby is refused with a clear message (it cannot take writes).
 */
export async function migrate(store: Store, migrations = loadMigrations()): Promise<number[]> {
  if (store.kind === 'postgres') await assertPrimary(store, store.location, 'epochview migrate');
  await store.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  return store.transaction(async (tx) => {
    if (store.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(7171001)');
    const done = new Set((await tx.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => Number(r.version)));
    const applied: number[] = [];
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(m.version)) continue;
      for (const statement of splitStatements(m.sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}

/**
 * Splits a migration file into statements at semicolons outside $$-quoted bodies (functions);
 * our files use no semicolons or "--" in string literals.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current = '';
  // Dollar-quoted bodies kept whole (and their comments with them), other text split at ";".
  for (const part of sql.split(/(\$\$[\s\S]*?\$\$)/)) {
    if (part.startsWith('$$')) {
      current += part;
      continue;
    }
    const pieces = part.replace(/--.*$/gm, '').split(';');
    current += pieces[0];
    for (const piece of pieces.slice(1)) {
      statements.push(current);
      current = piece;
    }
  }
  statements.push(current);
  return statements.map((s) => s.trim()).filter((s) => s.length > 0);
}
