/**
 * Ingestion's own maintenance (Ingester.maintain: VACUUM (ANALYZE) of the read models), on both
 * stores: every table of the schema is in its lists, and maintaining analyzes each. Where no
 * autovacuum runs (PGlite; a server with it off), a table left out kept the statistics of its
 * migration, empty, and its pages were planned as if it still were: the leaderboard's team
 * statistics read by bitmap scans and sorts, 200 ms for a page of the mainnet demo chain.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ingester, MAINTAINED_TABLES } from '../../src/ingest/ingest.js';
import { createTestStore, STORE_KINDS } from '../helpers/stores.js';

for (const kind of STORE_KINDS) {
  test(`every read model's table is maintained, and maintaining analyzes each (${kind})`, async () => {
    const ts = await createTestStore(kind);
    const store = await ts.open();
    try {
      const tables = await store.query<{ name: string }>(
        `SELECT table_name AS name FROM information_schema.tables
          WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name NOT LIKE 'schema\\_%'
          ORDER BY 1`,
      );
      assert.deepEqual(
        tables.map((t) => t.name),
        [...MAINTAINED_TABLES].sort(),
      );
      // Each table's count of manual analyzes goes up (the migrations analyze some, empty).
      const analyzes = async () =>
        new Map(
          (
            await store.query<{ name: string; n: string }>(
              'SELECT relname AS name, analyze_count::text AS n FROM pg_stat_user_tables WHERE relname = ANY($1)',
              [MAINTAINED_TABLES],
            )
          ).map((r) => [r.name, Number(r.n)]),
        );
      const before = await analyzes();
      await (await Ingester.open(store)).maintain(0);
      const after = await analyzes();
      assert.deepEqual(
        MAINTAINED_TABLES.filter((t) => !((after.get(t) ?? 0) > (before.get(t) ?? 0))),
        [],
      );
    } finally {
      await store.close();
      await ts.drop();
    }
  });
}
