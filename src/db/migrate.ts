import { createHash } from 'node:crypto';
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

/**
 * A step `migrate` runs again whenever its SQL changes: SQL made from definitions in the code
 * (the stored rows' render functions, made from the messages) rather than frozen into a numbered
 * file. The hash of its statements is stored (schema_repeatables, migration 016).
 */
export interface RepeatableStep {
  name: string;
  statements: readonly string[];
}

/** What the store's schema is made of: the numbered migrations, then the repeatable steps. */
export interface Schema {
  migrations: readonly Migration[];
  repeatable: readonly RepeatableStep[];
}

const hashOf = (step: RepeatableStep) => createHash('sha256').update(step.statements.join(';\n')).digest('hex');

/** The numbered SQL files, in order. */
export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .map((file) => ({ file, m: FILE_PATTERN.exec(file) }))
    .filter((f): f is { file: string; m: RegExpExecArray } => f.m !== null)
    .map(({ file, m }) => ({ version: Number(m[1]), name: m[2]!, sql: readFileSync(join(dir, file), 'utf8') }))
    .sort((a, b) => a.version - b.version);
}

/** The file name a migration came from, as the messages name it. */
export function migrationName(m: Pick<Migration, 'version' | 'name'>): string {
  return `${String(m.version).padStart(3, '0')}_${m.name}`;
}

/** What migrate applied: the numbered migrations' versions and the repeatable steps' names. */
export interface Applied {
  migrations: number[];
  repeatable: string[];
}

/** What the store's schema lacks: numbered migrations not applied, and repeatable steps not applied as they are now. */
export interface Pending {
  migrations: Migration[];
  repeatable: RepeatableStep[];
}

/**
 * What the store's schema lacks, read without writing anything (a read-only role needs SELECT on
 * schema_migrations and schema_repeatables only): all of it on an empty database.
 */
export async function pendingMigrations(store: Store, schema: Schema): Promise<Pending> {
  const exists = async (table: string) =>
    (await store.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [table]))[0]?.exists === true;
  if (!(await exists('schema_migrations'))) return { migrations: [...schema.migrations], repeatable: [...schema.repeatable] };
  const done = await recordedVersions(store, store.location, schema);
  const hashes = (await exists('schema_repeatables'))
    ? new Map((await store.query<{ name: string; hash: string }>('SELECT name, hash FROM schema_repeatables')).map((r) => [r.name, r.hash]))
    : new Map<string, string>();
  return {
    migrations: schema.migrations.filter((m) => !done.has(m.version)),
    repeatable: schema.repeatable.filter((step) => hashes.get(step.name) !== hashOf(step)),
  };
}

/**
 * The store's schema was migrated by a newer build: this one would take it for current, or run
 * its older repeatable steps over the newer build's functions. Nothing is changed.
 */
export class SchemaAheadError extends Error {
  override name = 'SchemaAheadError';
  constructor(location: string, stored: { version: number; name: string }, known: Migration) {
    super(
      `the schema of ${location} is at migration ${migrationName(stored)}, and this build knows up to ${migrationName(known)}: ` +
        'a newer build migrated it; run that build (or a newer one), not this one (nothing was changed)',
    );
  }
}

/** The store's schema_migrations is another application's (the same name, other columns or migrations). */
export class ForeignSchemaError extends Error {
  override name = 'ForeignSchemaError';
  constructor(location: string, what: string) {
    super(
      `the table schema_migrations of ${location} is not epochview's (${what}): this database belongs to another application; ` +
        'point epochview at a database of its own (nothing was changed)',
    );
  }
}

/**
 * The versions recorded in the store's schema_migrations, once it is known to be ours and not
 * ahead of `schema`. Ours has the columns version and name, and the names of our migrations
 * (some were renamed over time, so one in common is enough).
 */
async function recordedVersions(db: Pick<Store, 'query'>, location: string, schema: Schema): Promise<Set<number>> {
  const columns = (
    await db.query<{ c: string }>(
      // The table that `schema_migrations` names on the search path, as the statements below read it.
      `SELECT attname AS c FROM pg_attribute WHERE attrelid = to_regclass('schema_migrations') AND attnum > 0 AND NOT attisdropped`,
    )
  ).map((r) => r.c);
  if (!columns.includes('version') || !columns.includes('name'))
    throw new ForeignSchemaError(location, `its columns are ${columns.join(', ')}`);
  const rows = (await db.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version')).map(
    (r) => ({ version: Number(r.version), name: r.name }),
  );
  const ours = new Set(loadMigrations().map((m) => m.name));
  for (const m of schema.migrations) ours.add(m.name);
  if (rows.length > 0 && !rows.some((r) => ours.has(r.name)))
    throw new ForeignSchemaError(location, `none of its migrations, ${rows.map(migrationName).join(', ')}, is one of ours`);
  const last = schema.migrations.reduce<Migration | undefined>((a, m) => (a && a.version > m.version ? a : m), undefined);
  const newest = rows.at(-1);
  if (last && newest && newest.version > last.version) throw new SchemaAheadError(location, newest, last);
  return new Set(rows.map((r) => r.version));
}

/** The schema lacks migrations this version needs; serve waits for a writer or `epochview migrate` to apply them. */
export class SchemaBehindError extends Error {
  override name = 'SchemaBehindError';
  constructor(location: string, pending: Pending) {
    const { migrations, repeatable } = pending;
    const missing = [
      ...(migrations.length ? [`migration${migrations.length > 1 ? 's' : ''} ${migrations.map(migrationName).join(', ')}`] : []),
      ...(repeatable.length ? [`${repeatable.map((step) => step.name).join(', ')} (made from this version's definitions)`] : []),
    ];
    super(
      `the schema of ${location} is behind: ${missing.join(' and ')} not applied; ` +
        'run `epochview migrate` against the primary (or start the writer: `epochview ingest`, `epochview serve --follow`)',
    );
  }
}

/** Throws SchemaBehindError unless the schema is all applied. */
export async function assertSchemaCurrent(store: Store, schema: Schema): Promise<void> {
  const pending = await pendingMigrations(store, schema);
  if (pending.migrations.length > 0 || pending.repeatable.length > 0) throw new SchemaBehindError(store.location, pending);
}

/**
 * Applies the migrations the store has not seen yet, then the repeatable steps whose SQL changed,
 * all in one transaction, and returns what it applied. On a PostgreSQL server an advisory
 * lock keeps two processes from migrating at once, and a hot standby is refused with a clear
 * message (it cannot take writes).
 */
export async function migrate(store: Store, schema: Schema): Promise<Applied> {
  if (store.kind === 'postgres') await assertPrimary(store, store.location, 'epochview migrate');
  await store.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  return store.transaction(async (tx) => {
    if (store.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(7171001)');
    const done = await recordedVersions(tx, store.location, schema);
    const applied: Applied = { migrations: [], repeatable: [] };
    for (const m of [...schema.migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(m.version)) continue;
      for (const statement of splitStatements(m.sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.migrations.push(m.version);
    }
    if (schema.repeatable.length === 0) return applied;
    const hashes = new Map(
      (await tx.query<{ name: string; hash: string }>('SELECT name, hash FROM schema_repeatables')).map((r) => [r.name, r.hash]),
    );
    for (const step of schema.repeatable) {
      const hash = hashOf(step);
      if (hashes.get(step.name) === hash) continue;
      for (const statement of step.statements) await tx.query(statement);
      await tx.query(
        `INSERT INTO schema_repeatables (name, hash) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET hash = excluded.hash, applied_at = now()`,
        [step.name, hash],
      );
      applied.repeatable.push(step.name);
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
