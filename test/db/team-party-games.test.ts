/**
 * team_party_games (migration 011): the epochs in which each party of a team played each game,
 * which the team statistics page reads instead of the games of every row. Ingestion writes it
 * block by block; the migration fills it from team_member_stats when it upgrades a store that
 * has data. Both must give the table that team_member_stats' games define.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadMigrations, splitStatements } from '../../src/db/migrate.js';
import { FIXTURES } from '../helpers/cli.js';
import { dumpReadModels } from '../helpers/dump.js';
import { useServedStore } from '../helpers/served-store.js';
import { STORE_KINDS } from '../helpers/stores.js';

/** team_party_games as team_member_stats' games define it. */
const DEFINED = `SELECT encode(s.team_id, 'hex') || '|' || encode(s.party, 'hex') || '|' || encode(u.g, 'hex') || '|' || range_agg(int8range(s.epoch, s.epoch, '[]'))::text AS r
                   FROM team_member_stats AS s CROSS JOIN LATERAL unnest(s.games) AS u(g)
                  GROUP BY s.team_id, s.party, u.g ORDER BY s.team_id, s.party, u.g`;

/** The migration's statement that fills the table from the rows a store already has. */
const backfill = () => {
  const migration = loadMigrations().find((m) => m.version === 11)!;
  return splitStatements(migration.sql).find((s) => s.startsWith('INSERT INTO team_party_games'))!;
};

for (const kind of STORE_KINDS) {
  describe(`team_party_games on ${kind}`, () => {
    // One block per transaction: rewards of an epoch whose row an earlier transaction wrote.
    const served = useServedStore(kind, { ingest: { file: `${FIXTURES}team-stats.ndjson`, args: ['--batch-events', '1'] }, server: false });

    test('ingestion writes the epochs of each party\'s games, and the migration\'s backfill gives the same table', async () => {
      const defined = (await served.store.query<{ r: string }>(DEFINED)).map((x) => x.r);
      assert.ok(defined.length > 10, String(defined.length));
      const ingested = (await dumpReadModels(served.store)).team_party_games;
      assert.deepEqual(ingested, defined);
      await served.store.exec('DELETE FROM team_party_games');
      await served.store.exec(backfill());
      assert.deepEqual((await dumpReadModels(served.store)).team_party_games, defined);
    });
  });
}
