/**
 * The last epoch a chain may name (MAX_EPOCH, 2^63 - 2; sources/fields.ts), with the widest
 * window a request may ask: every window's bounds and spans stay bigints, so the pages answer.
 * (An epoch end at 2^63 - 1 made `int8range(…, L, '[]')` overflow: a 500 for the leaderboard
 * and a team's members at aggregationEpochs 2^63 - 1; such an epoch is now refused at ingest.)
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_EPOCH } from '../../src/sources/fields.js';
import {
  blockLines,
  epochEvent,
  hex,
  payout,
  refereeJoined,
  refereeJoinedTeam,
  setCreated,
  teamCreated,
  teamsStats,
} from '../helpers/events.js';
import { runCli } from '../helpers/cli.js';
import { dumpStore } from '../helpers/compare-stores.js';
import { assertPagingConsistent } from '../helpers/paging.js';
import { useServedStore } from '../helpers/served-store.js';
import { get } from '../helpers/server.js';
import { createTestStore, STORE_KINDS } from '../helpers/stores.js';

const TEAM = hex('c1');
const SET = hex('c1');
const WIDEST = '9223372036854775807';
const LAST = String(MAX_EPOCH);
const PREVIOUS = String(MAX_EPOCH - 1n);

/** A set's statistics at an epoch: its referee's taker volume. */
const setStats = (epoch: string, volume: string) => ({
  type: 'BUS_EVENT_TYPE_REFERRAL_SET_STATS_UPDATED',
  referralSetStatsUpdated: {
    setId: SET,
    atEpoch: epoch,
    referralSetRunningNotionalTakerVolume: volume,
    refereesStats: [{ partyId: hex('e1'), epochNotionalTakerVolume: volume }],
  },
});
/** The rewards the referee generated for the set's referrer at an epoch. */
const feesStats = (epoch: string, quantumAmount: string) => ({
  type: 'BUS_EVENT_TYPE_FEES_STATS_UPDATED',
  feesStats: {
    market: hex('0a'),
    asset: hex('0f'),
    epochSeq: epoch,
    referrerRewardsGenerated: [{ referrer: hex('d1'), generatedReward: [{ party: hex('e1'), amount: '1', quantumAmount }] }],
  },
});

// A team of two with statistics in the chain's last two epochs, and a referral set of one referee
// with statistics in them.
const CHAIN = [
  ...blockLines(1, [
    teamCreated(TEAM, hex('d1'), 'last', '1700000000000000000', '1'),
    refereeJoinedTeam(TEAM, hex('e1'), '1'),
    setCreated(SET, hex('d1')),
    refereeJoined(SET, hex('e1'), '1'),
  ]),
  ...[PREVIOUS, LAST].flatMap((epoch, i) =>
    blockLines(i + 2, [
      teamsStats(epoch, TEAM, { [hex('d1')]: '10', [hex('e1')]: '20' }),
      payout(epoch, hex('0f'), '7'),
      setStats(epoch, String(100 * (i + 1))),
      feesStats(epoch, String(i + 1)),
      epochEvent(epoch, 'EPOCH_ACTION_END'),
    ]),
  ),
].join('\n');

for (const kind of STORE_KINDS) {
  describe(`the last epoch a chain may name, on ${kind}`, () => {
    const served = useServedStore(kind, { ingest: { stdin: `${CHAIN}\n` } });

    test('the leaderboard over the widest window lists the team with both epochs', async () => {
      const res = await get(`${served.url}/api/v2/teams/stats?aggregationEpochs=${WIDEST}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(
        res.text,
        '{"statistics":{"edges":[{"node":{"teamId":"c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1","totalQuantumVolume":"60","totalQuantumRewards":"0","quantumRewards":[{"epoch":"9223372036854775805","totalQuantumRewards":"0"},{"epoch":"9223372036854775806","totalQuantumRewards":"0"}],"totalGamesPlayed":"0","gamesPlayed":[],"quantumVolumes":[{"epoch":"9223372036854775805","totalQuantumVolumes":"30"},{"epoch":"9223372036854775806","totalQuantumVolumes":"30"}]},"cursor":"eyJJRCI6ImMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzEifQ=="}],"pageInfo":{"hasNextPage":false,"hasPreviousPage":false,"startCursor":"eyJJRCI6ImMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzEifQ==","endCursor":"eyJJRCI6ImMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzEifQ=="}}}',
      );
    });

    test("a team's members over the widest window: the team has two epochs, not 2^63 - 1, so none", async () => {
      const res = await get(`${served.url}/api/v2/teams/${TEAM}/stats?aggregationEpochs=${WIDEST}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(
        res.text,
        '{"statistics":{"edges":[],"pageInfo":{"hasNextPage":false,"hasPreviousPage":false,"startCursor":"","endCursor":""}}}',
      );
    });

    test("a team's members over its two epochs", async () => {
      const res = await get(`${served.url}/api/v2/teams/${TEAM}/stats?aggregationEpochs=2&partyId=${hex('e1')}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(
        res.text,
        '{"statistics":{"edges":[{"node":{"partyId":"e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1","totalQuantumVolume":"40","totalQuantumRewards":"0","quantumRewards":[{"epoch":"9223372036854775805","totalQuantumRewards":"0"},{"epoch":"9223372036854775806","totalQuantumRewards":"0"}],"totalGamesPlayed":"0","gamesPlayed":[],"quantumVolumes":[{"epoch":"9223372036854775805","totalQuantumVolumes":"20"},{"epoch":"9223372036854775806","totalQuantumVolumes":"20"}]},"cursor":"eyJJRCI6ImUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTEifQ=="}],"pageInfo":{"hasNextPage":false,"hasPreviousPage":false,"startCursor":"eyJJRCI6ImUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTEifQ==","endCursor":"eyJJRCI6ImUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTEifQ=="}}}',
      );
    });

    test("a set's referees over the widest window (a uint32)", async () => {
      const res = await get(`${served.url}/api/v2/referral-sets/referees?referralSetId=${SET}&aggregationEpochs=4294967295`);
      assert.equal(res.status, 200, res.text);
      assert.equal(
        res.text,
        '{"referralSetReferees":{"edges":[{"node":{"referralSetId":"c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1","referee":"e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1","joinedAt":"1700000000000000000","atEpoch":"1","totalRefereeNotionalTakerVolume":"300","totalRefereeGeneratedRewards":"3"},"cursor":"eyJKb2luZWRBdCI6IjIwMjMtMTEtMTRUMjI6MTM6MjBaIiwiUmVmZXJlZSI6ImUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTEifQ=="}],"pageInfo":{"hasNextPage":false,"hasPreviousPage":false,"startCursor":"eyJKb2luZWRBdCI6IjIwMjMtMTEtMTRUMjI6MTM6MjBaIiwiUmVmZXJlZSI6ImUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTEifQ==","endCursor":"eyJKb2luZWRBdCI6IjIwMjMtMTEtMTRUMjI6MTM6MjBaIiwiUmVmZXJlZSI6ImUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTEifQ=="}}}',
      );
    });

    test("the sets' statistics at the last epoch", async () => {
      const res = await get(`${served.url}/api/v2/referral-sets/stats?atEpoch=${LAST}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(
        res.text,
        '{"stats":{"edges":[{"node":{"atEpoch":"9223372036854775806","referralSetRunningNotionalTakerVolume":"200","partyId":"e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1","discountFactor":"","rewardFactor":"","epochNotionalTakerVolume":"200","rewardsMultiplier":"","rewardsFactorMultiplier":"","wasEligible":false,"referrerTakerVolume":"","discountFactors":{"infrastructureDiscountFactor":"","liquidityDiscountFactor":"","makerDiscountFactor":""},"rewardFactors":null,"rewardsFactorsMultiplier":null},"cursor":"eyJWZWdhVGltZSI6IjIwMjMtMTEtMTRUMjI6MTM6MjNaIiwiQXRFcG9jaCI6OTIyMzM3MjAzNjg1NDc3NTgwNiwiU2V0SUQiOiJjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxIiwiUGFydHlJRCI6ImUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTEifQ=="}],"pageInfo":{"hasNextPage":false,"hasPreviousPage":false,"startCursor":"eyJWZWdhVGltZSI6IjIwMjMtMTEtMTRUMjI6MTM6MjNaIiwiQXRFcG9jaCI6OTIyMzM3MjAzNjg1NDc3NTgwNiwiU2V0SUQiOiJjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxIiwiUGFydHlJRCI6ImUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTEifQ==","endCursor":"eyJWZWdhVGltZSI6IjIwMjMtMTEtMTRUMjI6MTM6MjNaIiwiQXRFcG9jaCI6OTIyMzM3MjAzNjg1NDc3NTgwNiwiU2V0SUQiOiJjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxIiwiUGFydHlJRCI6ImUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTFlMWUxZTEifQ=="}}}',
      );
    });

    // Cursors of epochs past a double's 53 bits are read exactly: read as doubles, the last
    // epoch's named 2^63 and the page after it repeated the last epoch's rows.
    test('paging walks over the last epochs: pages of 1 both ways against one page', async () => {
      const lists: [string, string, number][] = [
        ['/api/v2/rewards/epoch/summaries', 'summaries', 2],
        [`/api/v2/referral-sets/stats?referralSetId=${SET}&referee=${hex('e1')}`, 'stats', 2],
        [`/api/v2/teams/referees/history/${hex('e1')}`, 'teamRefereeHistory', 1],
      ];
      for (const [path, key, rows] of lists) assert.equal(await assertPagingConsistent(served.url + path, key, 1), rows, path);
    });

    test('an epoch of 2^63 - 1 is refused at ingest, by name, and nothing of its block applied', async () => {
      const ts = await createTestStore(kind);
      try {
        const past = String(MAX_EPOCH + 1n);
        const chain = [
          ...CHAIN.split('\n'),
          ...blockLines(4, [teamsStats(past, TEAM, { [hex('d1')]: '1' }), epochEvent(past, 'EPOCH_ACTION_END')]),
        ];
        const res = await runCli(['ingest', '-', ...ts.args], { stdin: `${chain.join('\n')}\n` });
        assert.equal(res.code, 1, res.stderr);
        assert.match(
          res.stderr,
          /^error: line 22, event 4-1, field teamsStatsUpdated\.atEpoch: expected an epoch from 0 to 9223372036854775806, got "9223372036854775807"$/m,
        );
        assert.equal((await dumpStore(ts)).chain_head![0]!.split('|')[0], '3');
      } finally {
        await ts.drop();
      }
    });
  });
}
