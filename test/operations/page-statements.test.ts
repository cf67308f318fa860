/**
 * Page statement texts are made once per shape and reused (PageShapes): for every shape, with
 * values that share placeholders and values that do not, the reused text and parameters must be
 * exactly those made afresh. ListReferralSets, ListTeamMembersStatistics and ListEpochRewardSummaries.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PositionOf } from '../../src/contract/message.js';
import type { EPOCH_REWARD_SUMMARY_CURSOR } from '../../src/operations/epoch-reward-summaries/message.js';
import { type SummaryFilter, summariesPage } from '../../src/operations/epoch-reward-summaries/sql.js';
import type { REFERRAL_SET_CURSOR } from '../../src/operations/referral-sets/message.js';
import { referralSetsPage, type SetFilter } from '../../src/operations/referral-sets/sql.js';
import type { TEAM_MEMBER_CURSOR } from '../../src/operations/team-member-stats/message.js';
import { teamStatsPage } from '../../src/operations/team-member-stats/sql.js';
import type { PageRequest } from '../../src/pagination/page.js';
import { PageShapes, type PageSql } from '../../src/pagination/page-sql.js';
import type { SqlParams } from '../../src/pagination/sql-params.js';

/** Keeps no statement: each made afresh, to compare the reused ones with. */
const AFRESH = new PageShapes(0);

const id = (n: number) => n.toString(16).padStart(64, '0');
const json = (v: unknown) => JSON.stringify(v, (_, x: unknown) => (typeof x === 'bigint' ? String(x) : x));

type Made = { sql: PageSql; params: SqlParams };

/** Every direction and order of each limit and cursor: the reused statement against the one made afresh. */
function checkAll<P>(
  limits: number[],
  cursors: (limit: number) => (P | null)[],
  reused: (r: PageRequest<P>) => Made,
  afresh: (r: PageRequest<P>) => Made,
): number {
  let checked = 0;
  for (const limit of limits) {
    for (const cursor of cursors(limit)) {
      for (const direction of ['forward', 'backward'] as const) {
        for (const newestFirst of [true, false]) {
          const req: PageRequest<P> = { direction, limit, cursor, newestFirst };
          const a = reused(req);
          const b = afresh(req);
          assert.deepEqual(a.sql, b.sql, json(req));
          assert.deepEqual(a.params.values, b.params.values, json(req));
          checked++;
        }
      }
    }
  }
  return checked;
}

test('ListReferralSets: a reused statement is the one made afresh, for every filter, cursor, direction, order and shared value', () => {
  type Position = PositionOf<typeof REFERRAL_SET_CURSOR>;
  let checked = 0;
  for (const round of [1, 2, 3]) {
    // Each round other values, so rounds 2 and 3 reuse what round 1 made.
    const a = id(round * 10 + 1);
    const b = id(round * 10 + 2);
    const filters: SetFilter[] = [null, { setId: a }, { referrer: a }, { referee: a }];
    for (const filter of filters) {
      checked += checkAll<Position>(
        [1, 50, 1000],
        (limit) => [
          null,
          { createdAt: 1_700_000_000_000_000_000n + BigInt(round), id: b },
          { createdAt: 1_700_000_000_000_000_000n, id: a }, // the filter's id again
          { createdAt: BigInt(limit + 1), id: b }, // the row limit's value
        ],
        (req) => referralSetsPage(filter, req),
        (req) => referralSetsPage(filter, req, AFRESH),
      );
    }
  }
  assert.equal(checked, 3 * 4 * 3 * 4 * 2 * 2);
});

test('ListTeamMembersStatistics: a reused statement is the one made afresh, for every member filter, cursor, direction, order, shared value and with or without the lists', () => {
  type Position = PositionOf<typeof TEAM_MEMBER_CURSOR>;
  let checked = 0;
  for (const round of [1, 2, 3]) {
    const team = id(round * 10 + 1);
    const party = id(round * 10 + 2);
    const other = id(round * 10 + 3);
    // The window's N: ordinary, and equal to a row limit's value (51 for first=50), so that they share a placeholder.
    for (const n of [10n, 51n]) {
      for (const partyId of [undefined, party, team]) {
        for (const lists of [true, false]) {
          checked += checkAll<Position>(
            [1, 50, 200],
            () => [null, { party: other }, { party }, { party: team }],
            (req) => teamStatsPage(team, n, partyId, req, lists),
            (req) => teamStatsPage(team, n, partyId, req, lists, AFRESH),
          );
        }
      }
    }
  }
  assert.equal(checked, 3 * 2 * 3 * 2 * 3 * 4 * 2 * 2);
});

test('ListEpochRewardSummaries: a reused statement is the one made afresh, with and without an epoch range, for every cursor, direction, order and shared value', () => {
  type Position = PositionOf<typeof EPOCH_REWARD_SUMMARY_CURSOR>;
  let checked = 0;
  for (const round of [1, 2, 3]) {
    const asset = id(round * 10 + 1);
    const market = id(round * 10 + 2);
    const ranges: [bigint | undefined, bigint | undefined][] = [
      [undefined, undefined],
      [5n, undefined],
      [undefined, 9n],
      [5n, 9n],
      [9n, 9n],
    ];
    for (const [fromEpoch, toEpoch] of ranges) {
      const f: SummaryFilter = { assets: [], markets: [], fromEpoch, toEpoch };
      checked += checkAll<Position>(
        [1, 50, 1000],
        (limit) => [
          null,
          { epoch: BigInt(100 + round), assetId: asset, marketId: market, rewardType: 'ACCOUNT_TYPE_FEES_INFRASTRUCTURE' },
          { epoch: 5n, assetId: asset, marketId: asset, rewardType: 'x' }, // the range's start; one id twice
          { epoch: BigInt(limit + 1), assetId: market, marketId: asset, rewardType: '9' }, // the row limit's value
        ],
        (req) => summariesPage(f, req),
        (req) => summariesPage(f, req, AFRESH),
      );
    }
    // With an asset filter the statement is made every time: still the one made afresh.
    const filtered: SummaryFilter = { assets: [asset], markets: [], fromEpoch: undefined, toEpoch: undefined };
    checked += checkAll<Position>(
      [50],
      () => [null, { epoch: 7n, assetId: asset, marketId: market, rewardType: 'r' }],
      (req) => summariesPage(filtered, req),
      (req) => summariesPage(filtered, req, AFRESH),
    );
  }
  assert.equal(checked, 3 * (5 * 3 * 4 * 2 * 2 + 2 * 2 * 2));
});
