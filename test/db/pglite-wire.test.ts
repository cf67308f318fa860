/**
 * The embedded store's statements in one call each (src/db/pglite-wire.ts), through the store:
 * values, parameters, errors and notices as PGlite's own query() gives them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { PgliteStore } from '../../src/db/pglite-store.js';
import { WireStatements } from '../../src/db/pglite-wire.js';
import { StatementBatches } from '../../src/db/statement-batches.js';
import { ARRIVALS_ONLY } from '../helpers/batches.js';
import { eventually } from '../helpers/serve.js';
import { STORE_KINDS } from '../helpers/stores.js';

describe('PGlite statements in one call', { skip: !STORE_KINDS.includes('pglite') }, () => {
  let store: PgliteStore;
  before(async () => {
    store = await PgliteStore.open('memory://');
  });
  after(() => store.close());

  test('text, booleans, small integers and NULL, by column name; repeated runs of the prepared statement', async () => {
    for (const n of [1, 2, 3]) {
      const rows = await store.query(
        `SELECT $1::text AS t, ($2::int > 1) AS b, $2::int AS i, $2::smallint AS s, NULL::text AS nothing, 'é ✓'::varchar AS v
           FROM generate_series(1, $2::int) AS g ORDER BY g`,
        [`run ${n}`, n],
      );
      assert.deepEqual(
        rows,
        Array.from({ length: n }, () => ({ t: `run ${n}`, b: n > 1, i: n, s: n, nothing: null, v: 'é ✓' })),
      );
    }
    assert.deepEqual(
      await store.query(`SELECT x FROM unnest($1::text[]) WITH ORDINALITY AS u(x, o) ORDER BY o`, [
        ['a', 'b,c', 'say "hi"', 'back\\slash', null, ''],
      ]),
      [{ x: 'a' }, { x: 'b,c' }, { x: 'say "hi"' }, { x: 'back\\slash' }, { x: null }, { x: '' }],
    );
  });

  test('other result types are left to PGlite: the values its query() gives', async () => {
    assert.deepEqual(
      await store.query(`SELECT 9007199254740993::bigint AS big, '{"a":[1]}'::jsonb AS j, 1.5::float8 AS f, 'x'::text AS t`),
      [{ big: 9007199254740993n, j: { a: [1] }, f: 1.5, t: 'x' }],
    );
  });

  test('errors: PostgreSQL fields; a statement that failed to parse runs once its table exists', async () => {
    const missing = (await store.query('SELECT v::text AS v FROM later WHERE v > $1', [0]).catch((e: unknown) => e)) as Error & {
      code?: string;
      position?: string;
    };
    assert.match(missing.message, /relation "later" does not exist/);
    assert.equal(missing.code, '42P01');
    assert.equal(missing.position, '26'); // 1-based, at "later"
    const zero = (await store.query('SELECT (1 / $1::int)::text AS q', [0]).catch((e: unknown) => e)) as Error & { code?: string };
    assert.equal(zero.message, 'division by zero');
    assert.equal(zero.code, '22012');
    assert.deepEqual(await store.query('SELECT (1 / $1::int)::text AS q', [1]), [{ q: '1' }]);

    await store.exec('CREATE TABLE later (v int PRIMARY KEY)');
    await store.transaction(async (tx) => {
      await tx.query('INSERT INTO later SELECT g FROM generate_series(1, $1::int) AS g', [3]);
    });
    assert.deepEqual(await store.query('SELECT v::text AS v FROM later WHERE v > $1', [1]), [{ v: '2' }, { v: '3' }]);
    // In a transaction, a failed statement fails the transaction, and nothing of it is kept.
    await assert.rejects(
      store.transaction(async (tx) => {
        await tx.query('INSERT INTO later VALUES ($1)', [4]);
        await tx.query('INSERT INTO later VALUES ($1)', [1]);
      }),
      /duplicate key value violates unique constraint "later_pkey"/,
    );
    assert.deepEqual(await store.query('SELECT count(*)::int AS n FROM later'), [{ n: 3 }]);
  });

  test('a notice sent by a statement outside a transaction reaches the listeners of its channel only', async () => {
    const heard: string[] = [];
    const other: string[] = [];
    const stop = await store.listen('wire_news', { onNotify: (p) => heard.push(p), onListening: () => {} });
    const stopOther = await store.listen('wire_other', { onNotify: (p) => other.push(p), onListening: () => {} });
    await store.query(`SELECT 'sent'::text AS r FROM (SELECT pg_notify('wire_news', $1)) AS n`, ['one']);
    await eventually('the notice', () => heard.length >= 1);
    assert.deepEqual(heard, ['one']);
    assert.deepEqual(other, []);
    await stop();
    await stopOther();
  });

  test('replies are not kept: 300 statements of 1 MB each leave the memory where it was', async () => {
    const sql = `SELECT repeat(chr(97 + $1::int % 26), 1000000) AS big`;
    await store.query(sql, [0]);
    const before = process.memoryUsage().rss;
    for (let i = 0; i < 300; i++) assert.equal((await store.query<{ big: string }>(sql, [i]))[0]!.big.length, 1_000_000);
    // Kept replies (PGlite parses a reply into its current query unless told otherwise) would add 300 MB.
    const grown = (process.memoryUsage().rss - before) / 2 ** 20;
    assert.ok(grown < 100, `the process grew ${grown.toFixed(0)} MiB`);
  });

  test('past the prepared statements bound, statements still run (through PGlite query())', async () => {
    for (let i = 0; i < 260; i++) assert.deepEqual(await store.query(`SELECT ($1::int + ${i})::text AS v`, [1]), [{ v: String(i + 1) }]);
  });

  test('a batch of statements runs prepared, as its members do: never through PGlite query()', async () => {
    // In this thread, to count PGlite's own query() calls: each parses the statement again and
    // makes six calls into the backend (the batches' bigint member number once sent them all there).
    const db = await PGlite.create();
    try {
      let parsedAnew = 0;
      const query = db.query.bind(db);
      db.query = ((...args: Parameters<PGlite['query']>) => {
        parsedAnew++;
        return query(...args);
      }) as PGlite['query'];
      const wire = new WireStatements(db, () => {});
      const sizes: number[] = [];
      const batches = new StatementBatches(
        (sql, params) => wire.query(sql, params) as never,
        1,
        (n) => sizes.push(n),
        ARRIVALS_ONLY,
      );
      const rows = await Promise.all(
        [1, 2, 3, 4, 5].map((i) => batches.queryRow(`SELECT $1::int AS v, $2::text AS t, ($1::int > 2) AS b`, [i, `t${i}`])),
      );
      assert.deepEqual(
        rows,
        [1, 2, 3, 4, 5].map((i) => ({ v: i, t: `t${i}`, b: i > 2 })),
      );
      assert.deepEqual(sizes, [4]);
      assert.equal(parsedAnew, 0);
    } finally {
      await db.close();
    }
  });
});
