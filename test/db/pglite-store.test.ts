/** The embedded store in its own thread: the event loop stays free, transactions cross the boundary whole. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PgliteStore } from '../../src/db/pglite-store.js';
import { toThreadError } from '../../src/db/pglite-thread.js';
import { eventually } from '../helpers/serve.js';
import { createTestStore, STORE_KINDS } from '../helpers/stores.js';

describe('PgliteStore in a worker thread', { skip: !STORE_KINDS.includes('pglite') }, () => {
  // One store for the file: creating an in-memory PGlite runs initdb, which takes a while. Its
  // batches' clock stands still: a statement's cost is 0, whatever the machine's load.
  let store: PgliteStore;
  const batches: number[] = [];
  before(async () => {
    store = await PgliteStore.open(
      'memory://',
      (n) => batches.push(n),
      () => 0,
    );
  });
  after(() => store.close());

  test('a long statement leaves the event loop free', { timeout: 300_000 }, async () => {
    let maxGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    const [row] = await store.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM generate_series(1, 4000000) AS g, LATERAL (SELECT md5(g::text)) AS m`,
    );
    const ms = performance.now() - started;
    clearInterval(timer);
    assert.equal(row!.n, '4000000');
    assert.ok(ms > 200, `the statement took ${ms.toFixed(0)} ms: too short to tell`);
    assert.ok(maxGap < ms / 2, `the event loop stalled ${maxGap.toFixed(0)} ms during a ${ms.toFixed(0)} ms statement`);
  });

  test('transactions: commit, rollback on a throw, other statements wait for the end', { timeout: 300_000 }, async () => {
    await store.exec('CREATE TABLE t (v int PRIMARY KEY)');
    const count = async () => (await store.query<{ n: string }>('SELECT count(*)::text AS n FROM t'))[0]!.n;

    let outside: Promise<string> | undefined;
    const value = await store.transaction(async (tx) => {
      await tx.query('INSERT INTO t VALUES ($1), ($2)', [1, 2]);
      // Issued while the transaction is open: it runs after the commit, and sees both rows.
      outside = count();
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(await tx.query('SELECT count(*)::text AS n FROM t'), [{ n: '2' }]);
      return 'done';
    });
    assert.equal(value, 'done');
    assert.equal(await outside, '2');

    await assert.rejects(
      store.transaction(async (tx) => {
        await tx.query('INSERT INTO t VALUES (3)');
        throw new Error('changed my mind');
      }),
      /^Error: changed my mind$/,
    );
    // A failed statement: PostgreSQL's error, with its code, and nothing of the transaction kept.
    const err = await store
      .transaction(async (tx) => {
        await tx.query('INSERT INTO t VALUES (4)');
        await tx.query('INSERT INTO t VALUES (1)');
      })
      .catch((e: unknown) => e as Error & { code?: string });
    assert.match(err!.message, /duplicate key value violates unique constraint "t_pkey"/);
    assert.equal(err!.code, '23505');
    assert.equal(await count(), '2');
    assert.deepEqual(await store.query('SELECT v FROM t ORDER BY v'), [{ v: 1 }, { v: 2 }]);

    const missing = (await store.query('SELECT * FROM nowhere').catch((e: unknown) => e)) as Error & { code?: string };
    assert.equal(missing.code, '42P01');
  });

  test('one-row statements waiting behind a transaction run as one batch, each with its own row', { timeout: 300_000 }, async () => {
    const lookup = `SELECT $1::int * 10 AS v, $2::text AS label`;
    // Its cost known first (cheap, on the store's clock); the first of the ten below waits for the
    // transaction, and the other nine for it.
    assert.deepEqual(await store.queryRow(lookup, [0, null]), { v: 0, label: null });
    batches.length = 0;
    let rows: Promise<unknown>[] = [];
    await store.transaction(async (tx) => {
      await tx.query('SELECT 1');
      // The thread is held until the transaction ends: the first statement waits in the thread,
      // the other nine of its text wait here, and run together after it.
      rows = Array.from({ length: 10 }, (_, i) => store.queryRow(lookup, [i, i % 2 === 0 ? null : `l${i}`]));
    });
    assert.deepEqual(
      await Promise.all(rows),
      Array.from({ length: 10 }, (_, i) => ({ v: i * 10, label: i % 2 === 0 ? null : `l${i}` })),
    );
    assert.deepEqual(batches, [9]);
  });

  test('notices cross the thread; a closed store refuses calls', { timeout: 300_000 }, async () => {
    const heard: string[] = [];
    const listening: boolean[] = [];
    const stop = await store.listen('news', { onNotify: (p) => heard.push(p), onListening: (l) => listening.push(l) });
    assert.deepEqual(listening, [true]);
    await store.query(`SELECT pg_notify('news', 'one')`);
    await store.transaction(async (tx) => void (await tx.query(`SELECT pg_notify('news', 'two')`)));
    await eventually('both notices', () => heard.length >= 2);
    assert.deepEqual(heard, ['one', 'two']);
    await stop();
    await store.query(`SELECT pg_notify('news', 'three')`);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(heard, ['one', 'two']);
    await store.close();
    await assert.rejects(store.query('SELECT 1'), /^Error: pglite \(in memory\) is closed$/);
  });
});

test('stores opened one after another share a thread in turn: each sees its own folder, hears its own notices, and gives its folder back', {
  skip: !STORE_KINDS.includes('pglite'),
  timeout: 300_000,
}, async () => {
  const [a, b] = [await createTestStore('pglite'), await createTestStore('pglite')];
  try {
    const first = await PgliteStore.open(a.dataDir!);
    await first.exec(`CREATE TABLE mark (v text); INSERT INTO mark VALUES ('a')`);
    const heard: string[] = [];
    await first.listen('news', { onNotify: (p) => heard.push(p), onListening: () => {} });
    await first.close();
    await assert.rejects(first.query('SELECT 1'), /is closed$/);

    // In the thread the first left: another folder, and its notices go to its own listener
    // alone (whose number is the first's listener's: the same calls came before it).
    const second = await PgliteStore.open(b.dataDir!);
    assert.deepEqual(await second.query(`SELECT to_regclass('mark') IS NULL AS none`), [{ none: true }]);
    const heardBySecond: string[] = [];
    await second.listen('news', { onNotify: (p) => heardBySecond.push(p), onListening: () => {} });
    await second.query(`SELECT pg_notify('news', 'for the second')`);
    await eventually('the notice', () => heardBySecond.length > 0);
    // Opened while the second is open: a thread of its own; the first's folder was given back.
    const third = await PgliteStore.open(a.dataDir!);
    assert.deepEqual(await third.query('SELECT v FROM mark'), [{ v: 'a' }]);
    await Promise.all([second.close(), third.close(), third.close()]);
    assert.deepEqual(heardBySecond, ['for the second']);
    assert.deepEqual(heard, []);

    const again = await PgliteStore.open(b.dataDir!);
    assert.deepEqual(await again.query('SELECT count(*)::int AS n FROM chain_head'), [{ n: 0 }]);
    await again.close();
  } finally {
    await Promise.all([a.drop(), b.drop()]);
  }
});

test("an error crossing from the thread keeps its message, even when PGlite's WebAssembly threw no Error", () => {
  // What the thread caught when thousands of ids made PostgreSQL exit: logged as "Error: [object Object]" before.
  const exit = Object.assign(Object.create({}), { name: 'ExitStatus', message: 'Program terminated with exit(100)', status: 100 });
  assert.deepEqual(toThreadError(exit), {
    message: 'Program terminated with exit(100)',
    name: 'ExitStatus',
    fields: { name: 'ExitStatus', message: 'Program terminated with exit(100)', status: 100 },
  });
  assert.deepEqual(toThreadError(Object.assign(new RangeError('too long'), { code: 'X' })), {
    message: 'too long',
    name: 'RangeError',
    fields: { code: 'X' },
  });
  assert.equal(toThreadError({ status: 3 }).message, '{ status: 3 }');
  assert.equal(toThreadError('text').message, 'text');
});
