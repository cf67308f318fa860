import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertSchemaCurrent,
  ForeignSchemaError,
  loadMigrations,
  migrate,
  migrationName,
  SchemaAheadError,
  splitStatements,
  type Migration,
  type Schema,
} from '../../src/db/migrate.js';
import { SCHEMA } from '../../src/schema.js';
import { useServedStore } from '../helpers/served-store.js';
import { STORE_KINDS } from '../helpers/stores.js';

test('migration files split at semicolons outside $$ bodies, comments dropped', () => {
  const sql = `-- a comment; with a semicolon
CREATE TABLE t (a int); -- trailing
CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1; -- inside the body
  RETURN NULL;
END
$$;
CREATE TRIGGER g AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION f();
`;
  assert.deepEqual(splitStatements(sql), [
    'CREATE TABLE t (a int)',
    'CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n  PERFORM 1; -- inside the body\n  RETURN NULL;\nEND\n$$',
    'CREATE TRIGGER g AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION f()',
  ]);
});

test('every migration file splits into statements that each end where a statement ends', () => {
  for (const m of loadMigrations()) {
    const statements = splitStatements(m.sql);
    assert.ok(statements.length > 0, m.name);
    for (const s of statements) assert.equal((s.match(/\$\$/g) ?? []).length % 2, 0, `${m.name}: unbalanced $$ in ${s}`);
  }
});

for (const kind of STORE_KINDS) {
  describe(`migrations on ${kind}`, () => {
    const served = useServedStore(kind, { server: false });
    const tables = async () =>
      (
        await served.store.query<{ t: string }>(
          `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_name LIKE 'mig\\_%' ORDER BY 1`,
        )
      ).map((r) => r.t);
    const versions = async () =>
      (await served.store.query<{ v: number }>('SELECT version AS v FROM schema_migrations WHERE version >= 900 ORDER BY version')).map(
        (r) => Number(r.v),
      );
    const m = (version: number, name: string, sql: string): Migration => ({ version, name, sql });
    /** Numbered migrations alone, with no repeatable step. */
    const numbered = (...migrations: Migration[]): Schema => ({ migrations, repeatable: [] });

    test('the real migrations are applied in order and recorded; a second run applies nothing', async () => {
      const all = loadMigrations();
      assert.deepEqual(
        all.map((x) => x.version),
        [...all.map((x) => x.version)].sort((a, b) => a - b),
      );
      const recorded = (
        await served.store.query<{ v: number }>('SELECT version AS v FROM schema_migrations ORDER BY applied_at, version')
      ).map((r) => Number(r.v));
      assert.deepEqual(
        recorded,
        all.map((x) => x.version),
      );
      assert.deepEqual(await migrate(served.store, SCHEMA), { migrations: [], repeatable: [] });
    });

    test('a schema migrated by a newer build is refused by migrate and by the schema check, and left as it is', async () => {
      const hash = async () =>
        (await served.store.query<{ hash: string }>(`SELECT hash FROM schema_repeatables WHERE name = 'referral_sets_render'`))[0]?.hash;
      const last = loadMigrations().at(-1)!;
      // The newer build's functions: an older build's would differ, and were made again over them.
      await served.store.query(`UPDATE schema_repeatables SET hash = 'newer' WHERE name = 'referral_sets_render'`);
      await served.store.query(`INSERT INTO schema_migrations (version, name) VALUES (${last.version + 1}, 'from_a_newer_build')`);
      try {
        const ahead = new RegExp(
          `^the schema of .* is at migration ${migrationName({ version: last.version + 1, name: 'from_a_newer_build' })}, and this build knows up to ${migrationName(last)}: ` +
            'a newer build migrated it; run that build \\(or a newer one\\), not this one \\(nothing was changed\\)$',
        );
        await assert.rejects(migrate(served.store, SCHEMA), (e: Error) => e instanceof SchemaAheadError && ahead.test(e.message));
        await assert.rejects(assertSchemaCurrent(served.store, SCHEMA), SchemaAheadError);
        assert.equal(await hash(), 'newer');
      } finally {
        await served.store.query(`DELETE FROM schema_migrations WHERE version = ${last.version + 1}`);
        await served.store.query(`UPDATE schema_repeatables SET hash = 'x' WHERE name = 'referral_sets_render'`);
        await migrate(served.store, SCHEMA);
      }
    });

    test("another application's schema_migrations is named as such, and left as it is", async () => {
      const foreign = async (create: string, rows: string) => {
        await served.store.query('ALTER TABLE schema_migrations RENAME TO our_schema_migrations');
        try {
          await served.store.query(create);
          await served.store.query(rows);
          for (const attempt of [() => migrate(served.store, SCHEMA), () => assertSchemaCurrent(served.store, SCHEMA)])
            await assert.rejects(
              attempt(),
              (e: Error) => e instanceof ForeignSchemaError && /^the table schema_migrations of .* is not epochview's/.test(e.message),
            );
          return (await served.store.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations'))[0]?.n;
        } finally {
          await served.store.query('DROP TABLE schema_migrations');
          await served.store.query('ALTER TABLE our_schema_migrations RENAME TO schema_migrations');
        }
      };
      // Its migrations by other names, or other columns.
      assert.equal(
        await foreign(
          'CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL)',
          `INSERT INTO schema_migrations VALUES (1, 'create_users'), (2, 'add_email'), (3, 'create_orders')`,
        ),
        3,
      );
      assert.equal(
        await foreign('CREATE TABLE schema_migrations (id integer, migration text)', `INSERT INTO schema_migrations VALUES (1, 'x')`),
        1,
      );
    });

    test('pending migrations apply in version order, whatever order they are given in', async () => {
      // 902 needs 901's table: applied out of order it would fail.
      const applied = await migrate(
        served.store,
        numbered(m(902, 'second', 'ALTER TABLE mig_a ADD COLUMN b int'), m(901, 'first', 'CREATE TABLE mig_a (a int)')),
      );
      assert.deepEqual(applied.migrations, [901, 902]);
      assert.deepEqual(await versions(), [901, 902]);
      assert.deepEqual(
        (await migrate(served.store, numbered(m(901, 'first', 'CREATE TABLE mig_a (a int)'), m(902, 'second', '')))).migrations,
        [],
        'an applied version is not run again',
      );
    });

    test('a failed migration leaves no half state: none of the run is applied or recorded', async () => {
      await assert.rejects(
        migrate(
          served.store,
          numbered(
            m(903, 'fine', 'CREATE TABLE mig_c (c int); INSERT INTO mig_c VALUES (1)'),
            m(904, 'broken', 'CREATE TABLE mig_d (d int); SELECT no_such_column FROM mig_c'),
          ),
        ),
      );
      assert.deepEqual(await tables(), ['mig_a']);
      assert.deepEqual(await versions(), [901, 902]);
      // Fixed, the same run goes through.
      assert.deepEqual(
        (await migrate(served.store, numbered(m(903, 'fine', 'CREATE TABLE mig_c (c int)'), m(904, 'fixed', 'CREATE TABLE mig_d (d int)'))))
          .migrations,
        [903, 904],
      );
      assert.deepEqual(await tables(), ['mig_a', 'mig_c', 'mig_d']);
    });
  });
}
