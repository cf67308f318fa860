/**
 * team_party_games (migration 011): the epochs in which each party of a team played each game,
 * which the team statistics page reads. Ingestion writes it block by block; migration 011 filled
 * it from team_member_stats' games when it upgraded a store that had data, and migration 014
 * then dropped those games, which nothing read any more.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { SCHEMA } from '../../src/schema.js';
import { openStore } from '../../src/db/open.js';
import type { Store } from '../../src/db/store.js';
import { FIXTURES } from '../helpers/cli.js';
import { dumpReadModels, dumpTable } from '../helpers/dump.js';
import { useServedStore } from '../helpers/served-store.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';

const T = 'aa'.repeat(32);
const P1 = 'b1'.repeat(32);
const P2 = 'b2'.repeat(32);
const G1 = 'c1'.repeat(32);
const G2 = 'c2'.repeat(32);

/** Rows of team_member_stats before migration 011: (party, epoch, games). */
const ROWS: [string, number, string[]][] = [
  [P1, 3, [G1, G2]],
  [P1, 4, [G1]],
  [P1, 5, []],
  [P1, 6, [G1]],
  [P2, 4, [G2]],
];

const migrations = (from: number, to: number) => ({
  migrations: loadMigrations().filter((m) => m.version >= from && m.version <= to),
  repeatable: [],
});

for (const kind of STORE_KINDS) {
  describe(`team_party_games on ${kind}`, () => {
    // One block per transaction: rewards of an epoch whose row an earlier transaction wrote.
    const byBlock = useServedStore(kind, {
      ingest: { file: `${FIXTURES}team-stats.ndjson`, args: ['--batch-events', '1'] },
      server: false,
    });
    const together = useServedStore(kind, { dataset: 'team-stats', server: false });

    test('ingested block by block, every read model is what one transaction writes', async () => {
      const [a, b] = [await dumpReadModels(byBlock.store), await dumpReadModels(together.store)];
      assert.ok(a.team_party_games!.length > 10, String(a.team_party_games!.length));
      assert.deepEqual(a, b);
    });

    describe('upgrading a store with data', () => {
      let ts: TestStore;
      let store: Store;
      before(async () => {
        ts = await createTestStore(kind, { empty: true });
        store = await openStore({ databaseUrl: ts.databaseUrl, dataDir: ts.dataDir ?? '' });
      });
      after(async () => {
        await store?.close();
        await ts?.drop();
      });

      test("migration 011 fills it from team_member_stats' games, migration 014 drops those, migration 017 the team-level tables, 019 their spans", async () => {
        await migrate(store, migrations(1, 10));
        await store.query(
          `INSERT INTO team_member_stats (team_id, party, epoch, games)
           SELECT decode($1, 'hex'), decode(p, 'hex'), e, ARRAY(SELECT decode(g, 'hex') FROM unnest(string_to_array(gs, ',')) AS g)
             FROM unnest($2::text[], $3::int8[], $4::text[]) AS u(p, e, gs)`,
          [T, ROWS.map((r) => r[0]), ROWS.map((r) => String(r[1])), ROWS.map((r) => r[2].join(','))],
        );
        await migrate(store, migrations(11, 11));
        const expected = [`${T}|${P1}|${G1}|{[3,5),[6,7)}`, `${T}|${P1}|${G2}|{[3,4)}`, `${T}|${P2}|${G2}|{[4,5)}`];
        assert.deepEqual(await dumpTable(store, 'team_party_games'), expected);

        await migrate(store, SCHEMA);
        const columns = await store.query<{ c: string }>(
          `SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'team_member_stats' ORDER BY ordinal_position`,
        );
        assert.deepEqual(
          columns.map((r) => r.c),
          ['team_id', 'party', 'epoch', 'quantum_volume', 'quantum_rewards'],
        );
        assert.deepEqual(await dumpTable(store, 'team_party_games'), expected);
        assert.equal((await dumpTable(store, 'team_member_stats')).length, ROWS.length);
        // Migration 017 fills the team-level tables from the same rows: sums per (team, epoch), the games' epochs per team.
        assert.deepEqual(await dumpTable(store, 'team_epoch_stats'), [`${T}|3|0|0`, `${T}|4|0|0`, `${T}|5|0|0`, `${T}|6|0|0`]);
        assert.deepEqual(await dumpTable(store, 'team_games'), [`${T}|${G1}|{[3,5),[6,7)}`, `${T}|${G2}|{[3,5)}`]);
        // Migration 019 fills the teams' spans from the sums.
        assert.deepEqual(await dumpTable(store, 'team_stats_spans'), [`${T}|3|6`]);
      });
    });
  });
}
