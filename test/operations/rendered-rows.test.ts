/**
 * Stored nodes and cursors (migration 009): each row of referral_sets and epoch_reward_summaries
 * carries the JSON its page shows, rendered by a trigger whenever the row is written. The
 * operations' node.ts and cursor.ts still define that JSON: the triggers must run exactly their
 * SQL, and every stored value must be what that SQL gives for the row as it is now, also after
 * a later block changed the row (a referee joining, a payout adding to a summary).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cursorSql as summaryCursorSql } from '../../src/operations/epoch-reward-summaries/cursor.js';
import { EPOCH_REWARD_SUMMARY } from '../../src/operations/epoch-reward-summaries/node.js';
import { cursorSql as setCursorSql } from '../../src/operations/referral-sets/cursor.js';
import { REFERRAL_SET } from '../../src/operations/referral-sets/node.js';
import { messageJsonSql } from '../../src/pagination/message.js';
import { sqlId, sqlPlainString } from '../../src/pagination/sql-json.js';
import { readFileSync } from 'node:fs';
import { FIXTURES } from '../helpers/cli.js';
import { blockLines, hex, payout, refereeJoined, setCreated } from '../helpers/events.js';
import { useServedStore } from '../helpers/served-store.js';
import type { ReferralSetsBody, SummariesBody } from '../helpers/bodies.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS } from '../helpers/stores.js';

/** Each rendered table: its trigger function, and the node and cursor SQL of its operation over a row alias. */
const RENDERED = [
  {
    table: 'referral_sets',
    fn: 'referral_sets_render',
    node: (r: string) => messageJsonSql(REFERRAL_SET, r),
    cursor: (r: string) => setCursorSql(`${r}.created_at`, sqlId(`${r}.id`)),
  },
  {
    table: 'epoch_reward_summaries',
    fn: 'epoch_reward_summaries_render',
    node: (r: string) => messageJsonSql(EPOCH_REWARD_SUMMARY, r),
    cursor: (r: string) =>
      summaryCursorSql(
        `${r}.epoch::text`,
        sqlId(`${r}.asset_id`),
        sqlId(`${r}.market_id`),
        sqlPlainString(`${r}.reward_type`),
        `${r}.amount::text`,
      ),
  },
];

/** The body a trigger function must have: the operation's SQL over NEW. */
const triggerBody = (r: (typeof RENDERED)[number]) =>
  `\nBEGIN\n  NEW.node := ${r.node('NEW')};\n  NEW.cursor := ${r.cursor('NEW')};\n  RETURN NEW;\nEND\n`;

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

    test("the triggers run the operations' SQL", async () => {
      for (const r of RENDERED) {
        const [fn] = await served.store.query<{ prosrc: string }>('SELECT prosrc FROM pg_proc WHERE proname = $1', [r.fn]);
        assert.equal(
          fn?.prosrc,
          triggerBody(r),
          `${r.fn}: a changed node or cursor needs a migration replacing the function with this body`,
        );
      }
    });

    test("every stored node and cursor is the operation's rendering of the row, also after later blocks change it", async () => {
      for (const r of RENDERED) {
        const [stale] = await served.store.query<{ rows: string; stale: string }>(
          `SELECT count(*)::text AS rows, count(*) FILTER (WHERE t.node <> ${r.node('t')} OR t.cursor <> ${r.cursor('t')})::text AS stale FROM ${r.table} AS t`,
        );
        assert.notEqual(stale?.rows, '0', r.table);
        assert.equal(stale?.stale, '0', r.table);
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
  });
}
