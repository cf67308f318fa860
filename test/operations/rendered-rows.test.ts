/**
 * Stored nodes and cursors (migration 009): each row of referral_sets and epoch_reward_summaries
 * carries the JSON its page shows, rendered by a trigger whenever the row is written. `migrate`
 * makes the trigger functions from the operations' message and cursor definitions (a repeatable
 * step): every stored value must be what those definitions give for the row as it is now, also
 * after a later block changed the row (a referee joining, a payout adding to a summary), and a
 * changed definition must re-render the rows.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { assertSchemaCurrent, migrate, pendingMigrations, SchemaBehindError } from '../../src/db/migrate.js';
import { RENDERED_TABLES, renderFunctionBody } from '../../src/operations/rendered-rows.js';
import { cursorSql, messageJsonSql } from '../../src/pagination/message.js';
import { SCHEMA } from '../../src/schema.js';
import { FIXTURES } from '../helpers/cli.js';
import { blockLines, hex, payout, refereeJoined, setCreated } from '../helpers/events.js';
import { useServedStore } from '../helpers/served-store.js';
import type { ReferralSetsBody, SummariesBody } from '../helpers/bodies.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS } from '../helpers/stores.js';

const SET = hex('5a');
const ASSET = hex('a5');

/**
 * The summaries fixture, then a set and a summary, then a block that changes both. One block per
 * transaction (--batch-events 1): the last block updates rows an earlier transaction wrote.
 */
const CHAIN = [
  readFileSync(`${FIXTURES}epoch-summaries.ndjson`, 'utf8').trimEnd(),
  ...blockLines(900_001, [setCreated(SET, hex('5b'), '1700000000123456789'), payout('7', ASSET, '5')]),
  ...blockLines(900_002, [
    refereeJoined(SET, hex('5c'), '7'),
    refereeJoined(SET, hex('5d'), '7'),
    payout('7', ASSET, '18446744073709551615'),
  ]),
].join('\n');

for (const kind of STORE_KINDS) {
  describe(`rendered rows on ${kind}`, () => {
    const served = useServedStore(kind, { ingest: { stdin: `${CHAIN}\n`, args: ['--batch-events', '1'] } });

    test('the trigger functions render the definitions', async () => {
      for (const t of RENDERED_TABLES) {
        const [fn] = await served.store.query<{ prosrc: string }>('SELECT prosrc FROM pg_proc WHERE proname = $1', [`${t.table}_render`]);
        assert.equal(fn?.prosrc, renderFunctionBody(t), t.table);
      }
    });

    test("every stored node and cursor is the operation's rendering of the row, also after later blocks change it", async () => {
      for (const t of RENDERED_TABLES) {
        const counts = await staleRows(t);
        assert.notEqual(counts.rows, '0', t.table);
        assert.equal(counts.stale, '0', t.table);
      }
      const set = (await get(`${served.url}/api/v2/referral-sets?referralSetId=${SET}`)).body as ReferralSetsBody;
      assert.deepEqual(set.referralSets.edges[0]!.node, {
        id: SET,
        referrer: hex('5b'),
        createdAt: '1700000000123456000',
        updatedAt: '1700000000123456000',
        totalMembers: '3',
      });
      assert.equal(
        Buffer.from(set.referralSets.edges[0]!.cursor, 'base64').toString(),
        `{"CreatedAt":"2023-11-14T22:13:20.123456Z","ID":"${SET}"}`,
      );
      const sums = (await get(`${served.url}/api/v2/rewards/epoch/summaries?filter.assetIds=${ASSET}`)).body as SummariesBody;
      assert.deepEqual(
        sums.summaries.edges.map((e) => e.node.amount),
        ['18446744073709551620'],
      );
    });

    test('a changed definition is pending until migrate re-renders every row; rows whose text is the same keep their version', async () => {
      const [sets] = RENDERED_TABLES;
      const versions = async () =>
        (await served.store.query<{ rv: string }>(`SELECT rv::text FROM ${sets!.table} ORDER BY created_at, id`)).map((r) => r.rv);
      const before = await versions();
      // A store rendered by another definition: a stale function (no totalMembers), its rows
      // rendered by it, and its hash recorded.
      await served.store.transaction(async (tx) => {
        await tx.query(
          `CREATE OR REPLACE FUNCTION ${sets!.table}_render() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.node := '{}'; NEW.cursor := ''; RETURN NEW; END $$`,
        );
        await tx.query(`UPDATE ${sets!.table} SET node = NULL`);
        await tx.query(`UPDATE schema_repeatables SET hash = 'other' WHERE name = $1`, [`${sets!.table}_render`]);
      });
      assert.equal((await staleRows(sets!)).stale, (await staleRows(sets!)).rows);
      assert.deepEqual(
        (await pendingMigrations(served.store, SCHEMA)).repeatable.map((step) => step.name),
        ['referral_sets_render'],
      );
      await assert.rejects(assertSchemaCurrent(served.store, SCHEMA), SchemaBehindError);

      assert.deepEqual(await migrate(served.store, SCHEMA), { migrations: [], repeatable: ['referral_sets_render'] });
      assert.equal((await staleRows(sets!)).stale, '0');
      const rerendered = await versions();
      assert.ok(
        rerendered.every((v, i) => v !== before[i]),
        'every text changed: every row has a new version',
      );
      await assertSchemaCurrent(served.store, SCHEMA);

      // Run again with the same definitions: nothing to do.
      assert.deepEqual(await migrate(served.store, SCHEMA), { migrations: [], repeatable: [] });
      // Only the recorded hash differs: the rows are rendered again, to the same text, and keep their versions.
      await served.store.query(`UPDATE schema_repeatables SET hash = 'other' WHERE name = $1`, [`${sets!.table}_render`]);
      assert.deepEqual(await migrate(served.store, SCHEMA), { migrations: [], repeatable: ['referral_sets_render'] });
      assert.deepEqual(await versions(), rerendered);
    });

    /** How many rows the table has, and how many of them hold text other than their definitions give. */
    async function staleRows(t: (typeof RENDERED_TABLES)[number]): Promise<{ rows: string; stale: string }> {
      const [counts] = await served.store.query<{ rows: string; stale: string }>(
        `SELECT count(*)::text AS rows, count(*) FILTER (WHERE r.node <> ${messageJsonSql(t.node, 'r')} OR r.cursor <> ${cursorSql(t.cursor, 'r')})::text AS stale FROM ${t.table} AS r`,
      );
      return counts!;
    }
  });
}
