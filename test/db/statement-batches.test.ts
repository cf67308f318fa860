/** Statements waiting for a connection run as one: each gets its own row or its own error. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PostgresStore } from '../../src/db/postgres-store.js';
import { ONE_THREAD_TUNING, StatementBatches } from '../../src/db/statement-batches.js';
import { StoreTimeoutError, type SqlParam } from '../../src/db/store.js';
import { ARRIVALS_ONLY } from '../helpers/batches.js';
import { STORE_KINDS, createTestStore, type TestStore } from '../helpers/stores.js';

describe('StatementBatches on the PostgreSQL server', { skip: !STORE_KINDS.includes('postgres') }, () => {
  let db: TestStore;
  let store: PostgresStore;
  before(async () => {
    db = await createTestStore('postgres');
    store = new PostgresStore(db.databaseUrl!, 1);
    await store.exec(
      `CREATE TABLE t (id bytea PRIMARY KEY, n bigint NOT NULL); INSERT INTO t SELECT decode(lpad(to_hex(g), 4, '0'), 'hex'), g * 10 FROM generate_series(1, 100) AS g`,
    );
  });
  after(async () => {
    await store.close();
    await db.drop();
  });

  /** A batcher over the store's one connection, and the sizes of the batches it ran. */
  function batcher(): { batches: StatementBatches; sizes: number[]; statements: string[] } {
    const sizes: number[] = [];
    const statements: string[] = [];
    const run = <Row extends object>(sql: string, params: readonly SqlParam[]) => {
      statements.push(sql);
      return store.query<Row>(sql, params);
    };
    return { batches: new StatementBatches(run, 1, (n) => sizes.push(n), ARRIVALS_ONLY), sizes, statements };
  }

  /**
   * A run over the store that counts the most statements in flight at once (`most`, which may be
   * reset) and the batch sizes, on a clock of its own: a statement whose column is named `c`
   * advances it by `memberMs[c]` for each member it runs (a batch's members are its arrays'
   * length), so that whether a text is cheap does not depend on the machine's load.
   */
  function countingRun(memberMs: Record<string, number>) {
    let inFlight = 0;
    let now = 0;
    const counted = {
      most: 0,
      sizes: [] as number[],
      now: () => now,
      run: async <Row extends object>(sql: string, params: readonly SqlParam[]) => {
        counted.most = Math.max(counted.most, ++inFlight);
        try {
          return await store.query<Row>(sql, params);
        } finally {
          inFlight--;
          const members = Array.isArray(params[0]) ? params[0].length : 1;
          const column = Object.keys(memberMs).find((c) => sql.includes(` AS ${c}`));
          now += members * (column === undefined ? 0 : memberMs[column]!);
        }
      },
    };
    return counted;
  }

  const LOOKUP = `SELECT (SELECT t.n::text FROM t WHERE t.id = decode($1, 'hex')) AS n, $2::bigint + 1 AS next, $3::text AS label`;

  test('the statements waiting for the connection run as one, each with its own row', async () => {
    const { batches, sizes, statements } = batcher();
    const ids = Array.from({ length: 40 }, (_, i) => (i + 1).toString(16).padStart(4, '0'));
    const rows = await Promise.all(
      ids.map((id, i) =>
        batches.queryRow<{ n: string | null; next: string; label: string | null }>(LOOKUP, [id, i, i % 3 === 0 ? null : `l${i}`]),
      ),
    );
    assert.deepEqual(
      rows,
      ids.map((_, i) => ({ n: String((i + 1) * 10), next: String(i + 1), label: i % 3 === 0 ? null : `l${i}` })),
    );
    // The first ran alone on the free connection; the other 39 waited, and ran as one.
    assert.deepEqual(sizes, [39]);
    assert.equal(statements.length, 2);
  });

  test('a statement with no row answers undefined, in a batch and alone', async () => {
    const { batches } = batcher();
    const none = `SELECT t.n::text AS n FROM t WHERE t.id = decode($1, 'hex')`;
    const rows = await Promise.all(['0001', 'ffff', '0002', 'fffe'].map((id) => batches.queryRow<{ n: string }>(none, [id])));
    assert.deepEqual(rows, [{ n: '10' }, undefined, { n: '20' }, undefined]);
  });

  test('each text has its own slot; array parameters and no parameters run alone', async () => {
    const { batches, sizes, statements } = batcher();
    const other = `SELECT $1::int * 2 AS doubled`;
    const answers = await Promise.all([
      batches.queryRow<{ n: string }>(LOOKUP, ['0001', 0, 'a']),
      batches.queryRow<{ doubled: number }>(other, [4]),
      batches.queryRow<{ n: string }>(LOOKUP, ['0002', 1, 'b']),
      batches.queryRow<{ doubled: number }>(other, [5]),
      batches.queryRow<{ n: string }>(LOOKUP, ['0003', 2, 'c']),
      batches.queryRow<{ c: number }>(`SELECT cardinality($1::int[]) AS c`, [[1, 2, 3]]),
    ]);
    assert.deepEqual(answers, [
      { n: '10', next: '1', label: 'a' },
      { doubled: 8 },
      { n: '20', next: '2', label: 'b' },
      { doubled: 10 },
      { n: '30', next: '3', label: 'c' },
      { c: 3 },
    ]);
    // LOOKUP and `other` started alone, each in its own slot, and so did the array; then the
    // two LOOKUPs that waited ran as one, and the one `other` alone.
    assert.deepEqual(sizes, [2]);
    assert.equal(statements.length, 5);
    assert.deepEqual(await batches.queryRow('SELECT 1 AS one', []), { one: 1 });
  });

  test('a cheap text runs one batch at a time while fewer than 16 wait; a costly one up to its slots, in batches of bounded cost', async () => {
    const cheap = `SELECT $1::int AS cheap`;
    const costly = `SELECT $1::int AS costly`;
    // Cheap: under 5 ms a member (0.01 ms, here). Costly: 10 ms a member. Batches of 50 ms at most.
    const counted = countingRun({ cheap: 0.01, costly: 10 });
    const { run, sizes } = counted;
    const batches = new StatementBatches(
      run,
      3,
      (n) => sizes.push(n),
      { cheapMemberMs: 5, batchBudgetMs: 50, secondBatchQuorum: 16 },
      counted.now,
    );
    await batches.queryRow(cheap, [-1]);
    await new Promise((resolve) => setImmediate(resolve)); // Its cost is known once its batch has ended.
    await Promise.all(Array.from({ length: 16 }, (_, i) => batches.queryRow(cheap, [i])));
    assert.equal(counted.most, 1);
    assert.deepEqual(sizes, [15]);
    // Once its cost is known, three batches of the costly text at once, of 5 members at most
    // (50 ms): 3 start alone, and the 27 that wait run in six batches or more.
    assert.deepEqual(await batches.queryRow(costly, [0]), { costly: 0 });
    await new Promise((resolve) => setImmediate(resolve));
    counted.most = 0;
    sizes.length = 0;
    const rows = await Promise.all(Array.from({ length: 30 }, (_, i) => batches.queryRow(costly, [i])));
    assert.deepEqual(
      rows,
      Array.from({ length: 30 }, (_, i) => ({ costly: i })),
    );
    assert.equal(counted.most, 3);
    assert.ok(sizes.length >= 6 && sizes.every((n) => n <= 5), `batch sizes ${sizes.join(', ')}`);
  });

  test('a cheap text starts another batch beside those running whenever 16 statements wait, up to its slots', async () => {
    const cheap = `SELECT $1::int AS cheap`;
    const counted = countingRun({ cheap: 0.01 });
    const { run, sizes } = counted;
    const batches = new StatementBatches(
      run,
      3,
      (n) => sizes.push(n),
      { cheapMemberMs: 5, batchBudgetMs: 50, secondBatchQuorum: 16 },
      counted.now,
    );
    await batches.queryRow(cheap, [-1]);
    await new Promise((resolve) => setImmediate(resolve)); // Its cost is known once its batch has ended.
    // One starts alone; each 16th waiting starts a batch of 16 beside it, until the three slots are
    // taken; the 7 after wait until no batch runs (a cheap text's one slot).
    const rows = await Promise.all(Array.from({ length: 40 }, (_, i) => batches.queryRow(cheap, [i])));
    assert.deepEqual(
      rows,
      Array.from({ length: 40 }, (_, i) => ({ cheap: i })),
    );
    assert.equal(counted.most, 3);
    assert.deepEqual(sizes, [16, 16, 7]);

    // The embedded store's tuning (one thread): never a second batch of a cheap text.
    const alone = countingRun({ cheap: 0.01 });
    const oneThread = new StatementBatches(alone.run, 3, (n) => alone.sizes.push(n), ONE_THREAD_TUNING, alone.now);
    await oneThread.queryRow(cheap, [-1]);
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all(Array.from({ length: 40 }, (_, i) => oneThread.queryRow(cheap, [i])));
    assert.equal(alone.most, 1);
    assert.deepEqual(alone.sizes, [39]);
  });

  test('a member that fails fails alone: the batch runs its members one by one', async () => {
    const { batches, sizes } = batcher();
    const cast = `SELECT $1::int AS v`;
    const results = await Promise.allSettled(['1', '2', 'x', '4'].map((v) => batches.queryRow<{ v: number }>(cast, [v])));
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      [{ v: 1 }, { v: 2 }, 'invalid input syntax for type integer: "x"', { v: 4 }],
    );
    assert.deepEqual(sizes, [3]);
  });

  test('a statement still running at its deadline is cancelled, and its connection replaced', async () => {
    const one = new PostgresStore(db.databaseUrl!, 1, 0, { slots: 0 });
    try {
      // No statement timeout: only the cancel at the deadline ends the sleep before its minute.
      await assert.rejects(one.query('SELECT pg_sleep(60)', [], performance.now() + 50), StoreTimeoutError);
      assert.deepEqual(await one.query('SELECT 1 AS one', [], performance.now() + 60_000), [{ one: 1 }]);
      await assert.rejects(one.query('SELECT 1 AS one', [], performance.now() - 1), StoreTimeoutError);
    } finally {
      await one.close();
    }
  });

  test('a batch past the statement timeout fails all its members with it, and runs none again', async () => {
    const timed = new PostgresStore(db.databaseUrl!, 1, 100, { slots: 0 });
    try {
      const statements: string[] = [];
      const run = <Row extends object>(sql: string, params: readonly SqlParam[]) => {
        statements.push(sql);
        return timed.query<Row>(sql, params);
      };
      const batches = new StatementBatches(run, 1, undefined, ARRIVALS_ONLY);
      const sleep = `SELECT $1::text AS s FROM pg_sleep($1::float8)`;
      const results = await Promise.allSettled(['0', '0.04', '0.04', '0.04'].map((s) => batches.queryRow(sleep, [s])));
      assert.deepEqual(results[0], { status: 'fulfilled', value: { s: '0' } });
      for (const r of results.slice(1)) assert.ok(r.status === 'rejected' && r.reason instanceof StoreTimeoutError, String(r.status));
      assert.equal(statements.length, 2);
    } finally {
      await timed.close();
    }
  });
});

describe('deadlines (Until) of batched statements', () => {
  const MEMBER = 'epochview_batch_member';

  test('one past its deadline when its batch starts is left out; a batch is given up at its latest deadline, or never if one has none', async () => {
    let now = 0;
    const runs: { members: number; until: number | undefined }[] = [];
    let release: () => void = () => {};
    const run = async <Row extends object>(_sql: string, params: readonly SqlParam[], until: number | undefined) => {
      const values = Array.isArray(params[0]) ? params[0] : [params[0]];
      runs.push({ members: values.length, until });
      if (runs.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return (Array.isArray(params[0]) ? values.map((v, i) => ({ [MEMBER]: i + 1, v })) : [{ v: values[0] }]) as Row[];
    };
    const batches = new StatementBatches(run, 1, undefined, ARRIVALS_ONLY, () => now);
    const sql = 'SELECT $1::text AS v';
    const first = batches.queryRow(sql, ['first'], 100);
    const waiting = [
      batches.queryRow(sql, ['late'], 3),
      batches.queryRow(sql, ['later'], 50),
      batches.queryRow(sql, ['latest'], 70),
      batches.queryRow(sql, ['none'], undefined),
    ];
    now = 5;
    release();
    assert.deepEqual(await first, { v: 'first' });
    const [late, ...rest] = await Promise.allSettled(waiting);
    assert.ok(late!.status === 'rejected' && late!.reason instanceof StoreTimeoutError);
    assert.deepEqual(
      rest.map((r) => (r.status === 'fulfilled' ? r.value : r.reason)),
      [{ v: 'later' }, { v: 'latest' }, { v: 'none' }],
    );
    // The three that still waited ran as one, with no deadline: one of them had none.
    assert.deepEqual(runs, [
      { members: 1, until: 100 },
      { members: 3, until: undefined },
    ]);

    runs.length = 0;
    const held = batches.queryRow(sql, ['held'], 100);
    const two = [batches.queryRow(sql, ['a'], 80), batches.queryRow(sql, ['b'], 90)];
    release();
    await held;
    await Promise.all(two);
    assert.deepEqual(runs, [
      { members: 1, until: 100 },
      { members: 2, until: 90 },
    ]);
  });
});
