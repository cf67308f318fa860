/**
 * Apollo Client 3, the library the Vega apps read our three queries with, in a process of its own
 * (apollo-client.mjs), against a real `serve` of the demo chain on both stores. The documents are
 * written in the shapes of graphql.md §6: aliases under @include with a defaulted Boolean, a
 * named fragment, an input object literal holding variables with one declared and not sent, all
 * in one document; Apollo adds __typename to every selection set. The data must be the REST
 * answers' in GraphQL's encodings; with errorPolicy 'none' an error anywhere fails the request.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { apollo } from '../helpers/graphql.js';
import { graphqlNode, withUrls } from '../../bench/graphql-urls.js';
import { useDemoServe } from '../helpers/served-store.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS } from '../helpers/stores.js';

/** Apollo's whole document (the console's ReferralSets, TeamMembers and rewards queries, as one). */
const DOCUMENT = `
fragment TeamMemberStatsFields on TeamMemberStatistics {
  partyId
  totalQuantumVolume
  totalQuantumRewards
  totalGamesPlayed
  gamesPlayed
  quantumRewards { epoch totalQuantumRewards }
  quantumVolumes { epoch totalQuantumVolumes }
}
query VegaPage($id: ID, $referrer: ID, $referee: ID, $checkReferrals: Boolean = true, $teamId: ID!, $aggregationEpochs: Int,
  $fromEpoch: Int, $toEpoch: Int, $pagination: Pagination) {
  referralSets(id: $id) { edges { node { id referrer totalMembers createdAt updatedAt } } }
  referrer: referralSets(referrer: $referrer) @include(if: $checkReferrals) { edges { node { id referrer } } }
  referee: referralSets(referee: $referee) @include(if: $checkReferrals) { edges { node { id referrer totalMembers } } }
  teamMembersStatistics(teamId: $teamId, aggregationEpochs: $aggregationEpochs) {
    edges { node { ...TeamMemberStatsFields } }
  }
  epochRewardSummaries(filter: { fromEpoch: $fromEpoch, toEpoch: $toEpoch }, pagination: $pagination) {
    edges { node { epoch marketId assetId rewardType amount } }
    pageInfo { hasNextPage endCursor }
  }
}`;

type Json = Record<string, unknown>;
type Connection = { edges: { node: Json }[]; pageInfo: Json };

/** The nodes of a REST page, in GraphQL's encodings, with only `fields`, each with Apollo's __typename. */
function nodes(body: unknown, typename: string, fields: string[]): Json[] {
  const connection = Object.values(body as Json)[0] as Connection;
  return connection.edges.map(({ node }) => {
    const converted = graphqlNode(typename === 'Team' ? withUrls(node) : node);
    const picked: Json = { __typename: typename };
    for (const f of fields) {
      const value = converted[f];
      picked[f] = Array.isArray(value)
        ? value.map((v) =>
            typeof v === 'object'
              ? { __typename: f === 'quantumRewards' ? 'QuantumRewardsPerEpoch' : 'QuantumVolumesPerEpoch', ...(v as Json) }
              : v,
          )
        : value;
    }
    return picked;
  });
}

const edgesOf = (typename: string, list: Json[]) => list.map((node) => ({ __typename: typename, node }));

/**
 * The console's team documents (vegaprotocol/frontend-monorepo apps/trading/lib/hooks: Team,
 * Teams, TeamsStatistics; family.md §9.4), written in their shape: fragments, an alias, an
 * optional variable left unsent, @include with a defaulted Boolean.
 */
const TEAM_FIELDS = ['teamId', 'referrer', 'name', 'teamUrl', 'avatarUrl', 'createdAt', 'createdAtEpoch', 'closed', 'allowList'];
const TEAM_STATS_FIELDS = ['teamId', 'totalQuantumVolume', 'totalQuantumRewards', 'totalGamesPlayed', 'quantumRewards', 'gamesPlayed'];
const TEAM_REFEREE_FIELDS = ['teamId', 'referee', 'joinedAt', 'joinedAtEpoch'];
const TEAM_MEMBER_FIELDS = ['partyId', 'totalQuantumVolume', 'totalQuantumRewards', 'totalGamesPlayed'];
const TEAMS_FIELDS = [
  'allowList',
  'avatarUrl',
  'closed',
  'createdAt',
  'createdAtEpoch',
  'name',
  'referrer',
  'teamId',
  'teamUrl',
  'totalMembers',
];
const TEAM_STATISTICS_FIELDS = ['teamId', 'totalQuantumVolume', 'totalQuantumRewards', 'totalGamesPlayed', 'gamesPlayed'];
const selection = (fields: string[]) =>
  fields.map((f) => (f === 'quantumRewards' ? 'quantumRewards { epoch totalQuantumRewards }' : f)).join('\n  ');
const TEAM_DOCUMENT = `
fragment TeamFields on Team {
  ${selection(TEAM_FIELDS)}
}
fragment TeamStatsFields on TeamStatistics {
  ${selection(TEAM_STATS_FIELDS)}
}
fragment TeamRefereeFields on TeamReferee {
  ${selection(TEAM_REFEREE_FIELDS)}
}
fragment TeamMemberStatsFields on TeamMemberStatistics {
  ${selection(TEAM_MEMBER_FIELDS)}
}
query Team($teamId: ID!, $partyId: ID, $aggregationEpochs: Int) {
  teams(teamId: $teamId) { edges { node { ...TeamFields } } }
  partyTeams: teams(partyId: $partyId) { edges { node { ...TeamFields } } }
  teamsStatistics(teamId: $teamId, aggregationEpochs: $aggregationEpochs) { edges { node { ...TeamStatsFields } } }
  teamReferees(teamId: $teamId) { edges { node { ...TeamRefereeFields } } }
  teamMembersStatistics(teamId: $teamId, aggregationEpochs: $aggregationEpochs) { edges { node { ...TeamMemberStatsFields } } }
}`;
const TEAMS_DOCUMENT = `
fragment TeamsFields on Team {
  ${selection(TEAMS_FIELDS)}
}
query Teams($teamId: ID, $partyId: ID, $checkReferrals: Boolean = false) {
  teams(teamId: $teamId, partyId: $partyId) { edges { node { ...TeamsFields } } }
  referrer: referralSets(referrer: $partyId) @include(if: $checkReferrals) { edges { node { id referrer } } }
  referee: referralSets(referee: $partyId) @include(if: $checkReferrals) { edges { node { id referrer } } }
}`;
const TEAMS_STATISTICS_DOCUMENT = `
fragment TeamStatisticsFields on TeamStatistics {
  ${selection(TEAM_STATISTICS_FIELDS)}
}
query TeamsStatistics($teamId: ID, $aggregationEpochs: Int) {
  teamsStatistics(teamId: $teamId, aggregationEpochs: $aggregationEpochs) { edges { node { ...TeamStatisticsFields } } }
}`;

/**
 * The console's referral documents (family.md §9.4), ours in their shapes: Referees (asked with
 * the program's window and with 30), ReferralSetStats with $epoch unsent, and CurrentPrograms'
 * referral program through its fragment (its other root fields are the data-node's own).
 */
const REFEREES = `query Referees($code: ID!, $aggregationEpochs: Int) {
  referralSetReferees(id: $code, aggregationEpochs: $aggregationEpochs) {
    edges { node { referralSetId refereeId joinedAt atEpoch totalRefereeNotionalTakerVolume totalRefereeGeneratedRewards } }
  }
}`;
const FACTORS = '{ infrastructureFactor makerFactor liquidityFactor }';
const REFERRAL_SET_STATS = `query ReferralSetStats($code: ID!, $epoch: Int) {
  referralSetStats(setId: $code, epoch: $epoch) {
    edges { node { atEpoch partyId discountFactor rewardFactor epochNotionalTakerVolume referralSetRunningNotionalTakerVolume
      rewardsMultiplier rewardsFactorMultiplier wasEligible referrerTakerVolume discountFactors ${FACTORS} rewardFactors ${FACTORS}
      rewardsFactorsMultiplier ${FACTORS} } }
  }
}`;
const CURRENT_PROGRAMS = `fragment ReferralProgramFields on CurrentReferralProgram {
  id version endOfProgramTimestamp windowLength endedAt
  benefitTiers { minimumEpochs minimumRunningNotionalTakerVolume referralDiscountFactors ${FACTORS} referralRewardFactors ${FACTORS} }
  stakingTiers { minimumStakedTokens referralRewardMultiplier }
}
query CurrentPrograms { currentReferralProgram { ...ReferralProgramFields } }`;

/** A REST node converted (graphql-urls.ts), with `fields` only, Apollo's __typename on it and on the objects it holds. */
function typed(node: Json, typename: string, fields: string[], inner: Record<string, string> = {}): Json {
  const converted = graphqlNode(node);
  const out: Json = { __typename: typename };
  for (const f of fields) {
    const value = converted[f];
    const withType = (v: unknown) => (inner[f] && v !== null && typeof v === 'object' ? { __typename: inner[f], ...(v as Json) } : v);
    out[f] = Array.isArray(value) ? value.map(withType) : withType(value);
  }
  return out;
}

/** Apollo's key order for a factors object: the selection's. */
const factorsAsSelected = (f: Json) => ({
  __typename: f.__typename,
  infrastructureFactor: f.infrastructureFactor,
  makerFactor: f.makerFactor,
  liquidityFactor: f.liquidityFactor,
});

for (const kind of STORE_KINDS) {
  describe(`Apollo Client on ${kind}`, () => {
    const demo = useDemoServe(kind);

    test('the apps documents, all at once: the data of REST in the data-node encodings', { timeout: 60_000 }, async () => {
      const overview = (await get(`${demo.serve.url}/explorer/api/overview`)).body as {
        examples: Record<string, string>;
        lastEndedEpoch: string;
      };
      const { referralSetId, referee, teamId, teamEpochs } = overview.examples as Record<string, string>;
      const set = (await get(`${demo.serve.url}/api/v2/referral-sets?referralSetId=${referralSetId}`)).body;
      const referrer = (Object.values(set as Json)[0] as Connection).edges[0]!.node.referrer as string;
      const rest = async (path: string) => (await get(demo.serve.url + path)).body;
      const toEpoch = Number(overview.lastEndedEpoch);
      const fromEpoch = toEpoch - 9;
      const variables = { id: referralSetId, referrer, referee, teamId, aggregationEpochs: Number(teamEpochs), fromEpoch, toEpoch };

      const [answer] = await apollo(demo.serve.url, [{ query: DOCUMENT, variables }]);
      assert.equal(answer!.error, undefined, JSON.stringify(answer!.error));
      const summaries = await rest(`/api/v2/rewards/epoch/summaries?filter.fromEpoch=${fromEpoch}&filter.toEpoch=${toEpoch}`);
      const summaryPage = Object.values(summaries as Json)[0] as Connection;
      assert.ok(summaryPage.edges.length > 10, 'a window of ten epochs holds summaries');
      const teamNodes = nodes(await rest(`/api/v2/teams/${teamId}/stats?aggregationEpochs=${teamEpochs}`), 'TeamMemberStatistics', [
        'partyId',
        'totalQuantumVolume',
        'totalQuantumRewards',
        'totalGamesPlayed',
        'gamesPlayed',
        'quantumRewards',
        'quantumVolumes',
      ]);
      assert.ok(teamNodes.length > 0, 'the example team has members');
      assert.deepEqual(answer!.data, {
        referralSets: {
          __typename: 'ReferralSetConnection',
          edges: edgesOf('ReferralSetEdge', nodes(set, 'ReferralSet', ['id', 'referrer', 'totalMembers', 'createdAt', 'updatedAt'])),
        },
        referrer: {
          __typename: 'ReferralSetConnection',
          edges: edgesOf(
            'ReferralSetEdge',
            nodes(await rest(`/api/v2/referral-sets?referrer=${referrer}`), 'ReferralSet', ['id', 'referrer']),
          ),
        },
        referee: {
          __typename: 'ReferralSetConnection',
          edges: edgesOf(
            'ReferralSetEdge',
            nodes(await rest(`/api/v2/referral-sets?referee=${referee}`), 'ReferralSet', ['id', 'referrer', 'totalMembers']),
          ),
        },
        teamMembersStatistics: { __typename: 'TeamMembersStatisticsConnection', edges: edgesOf('TeamMemberStatisticsEdge', teamNodes) },
        epochRewardSummaries: {
          __typename: 'EpochRewardSummaryConnection',
          edges: edgesOf(
            'EpochRewardSummaryEdge',
            nodes(summaries, 'EpochRewardSummary', ['epoch', 'marketId', 'assetId', 'rewardType', 'amount']),
          ),
          pageInfo: { __typename: 'PageInfo', hasNextPage: summaryPage.pageInfo.hasNextPage, endCursor: summaryPage.pageInfo.endCursor },
        },
      });
      // Each referralSets alias asked its own filter: the set's referrer has the set among theirs.
      const referrerSets = (answer!.data!.referrer as { edges: { node: Json }[] }).edges.map((e) => e.node.id);
      assert.ok(referrerSets.includes(referralSetId), 'the referrer alias lists the set');
    });

    test("the console's Team, Teams and TeamsStatistics documents, answered in full by epochview alone", { timeout: 60_000 }, async () => {
      const overview = (await get(`${demo.serve.url}/explorer/api/overview`)).body as { examples: Record<string, string> };
      const { teamId, teamEpochs } = overview.examples as Record<string, string>;
      const rest = async (path: string) => (await get(demo.serve.url + path)).body;
      const team = (await rest(`/api/v2/teams?teamId=${teamId}`)) as Json;
      const creator = (Object.values(team)[0] as Connection).edges[0]!.node.referrer as string;
      const n = Number(teamEpochs);
      const [teamPage, allTeams, partyTeams, leaderboard, oneTeam] = await apollo(demo.serve.url, [
        // The team page: $partyId unsent lists every team under partyTeams (the hook takes edges[0]).
        { query: TEAM_DOCUMENT, variables: { teamId, aggregationEpochs: n } },
        { query: TEAMS_DOCUMENT, variables: {} },
        { query: TEAMS_DOCUMENT, variables: { partyId: creator, checkReferrals: true } },
        { query: TEAMS_STATISTICS_DOCUMENT, variables: { aggregationEpochs: 192 } },
        { query: TEAMS_STATISTICS_DOCUMENT, variables: { teamId, aggregationEpochs: 30 } },
      ]);
      const connection = (typename: string, edge: string, node: string, body: unknown, fields: string[]) => ({
        __typename: typename,
        edges: edgesOf(edge, nodes(body, node, fields)),
      });
      const teams = (body: unknown, fields: string[]) => connection('TeamConnection', 'TeamEdge', 'Team', body, fields);
      const statistics = (body: unknown, fields: string[]) =>
        connection('TeamsStatisticsConnection', 'TeamStatisticsEdge', 'TeamStatistics', body, fields);
      for (const answer of [teamPage, allTeams, partyTeams, leaderboard, oneTeam])
        assert.equal(answer!.error, undefined, JSON.stringify(answer!.error));
      const everyTeam = await rest('/api/v2/teams');
      assert.ok((Object.values(everyTeam as Json)[0] as Connection).edges.length > 10, 'the demo has teams');
      assert.deepEqual(teamPage!.data, {
        teams: teams(team, TEAM_FIELDS),
        partyTeams: teams(everyTeam, TEAM_FIELDS),
        teamsStatistics: statistics(await rest(`/api/v2/teams/stats?teamId=${teamId}&aggregationEpochs=${n}`), TEAM_STATS_FIELDS),
        teamReferees: connection(
          'TeamRefereeConnection',
          'TeamRefereeEdge',
          'TeamReferee',
          await rest(`/api/v2/teams/referees/${teamId}`),
          TEAM_REFEREE_FIELDS,
        ),
        teamMembersStatistics: connection(
          'TeamMembersStatisticsConnection',
          'TeamMemberStatisticsEdge',
          'TeamMemberStatistics',
          await rest(`/api/v2/teams/${teamId}/stats?aggregationEpochs=${n}`),
          TEAM_MEMBER_FIELDS,
        ),
      });
      assert.equal((teamPage!.data!.teamReferees as { edges: unknown[] }).edges.length > 0, true, 'the example team has referees');
      assert.equal((teamPage!.data!.teamsStatistics as { edges: unknown[] }).edges.length, 1, 'the example team has statistics');
      assert.deepEqual(allTeams!.data, { teams: teams(everyTeam, TEAMS_FIELDS) });
      assert.deepEqual(partyTeams!.data, {
        teams: teams(await rest(`/api/v2/teams?partyId=${creator}`), TEAMS_FIELDS),
        referrer: {
          __typename: 'ReferralSetConnection',
          edges: edgesOf(
            'ReferralSetEdge',
            nodes(await rest(`/api/v2/referral-sets?referrer=${creator}`), 'ReferralSet', ['id', 'referrer']),
          ),
        },
        referee: {
          __typename: 'ReferralSetConnection',
          edges: edgesOf(
            'ReferralSetEdge',
            nodes(await rest(`/api/v2/referral-sets?referee=${creator}`), 'ReferralSet', ['id', 'referrer']),
          ),
        },
      });
      assert.equal((partyTeams!.data!.teams as { edges: unknown[] }).edges.length, 1, "the creator's team");
      const board = await rest('/api/v2/teams/stats?aggregationEpochs=192');
      assert.ok((Object.values(board as Json)[0] as Connection).edges.length > 10, 'the leaderboard lists teams');
      assert.deepEqual(leaderboard!.data, { teamsStatistics: statistics(board, TEAM_STATISTICS_FIELDS) });
      assert.deepEqual(oneTeam!.data, {
        teamsStatistics: statistics(await rest(`/api/v2/teams/stats?teamId=${teamId}&aggregationEpochs=30`), TEAM_STATISTICS_FIELDS),
      });
    });

    test("the console's Referees, ReferralSetStats and CurrentPrograms documents: epochview alone answers them whole", async () => {
      const rest = async (path: string) => (await get(demo.serve.url + path)).body as Json;
      const program = (await rest('/api/v2/referral-programs/current')).currentReferralProgram as Json;
      // The set with the most referees, and a window of the program's length.
      const all = (Object.values(await rest('/api/v2/referral-sets/referees?pagination.first=5000')) as Connection[])[0]!.edges;
      const counts = new Map<string, number>();
      for (const e of all) counts.set(e.node.referralSetId as string, (counts.get(e.node.referralSetId as string) ?? 0) + 1);
      const code = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
      const windowLength = Number(program.windowLength);
      const [byWindow, by30, stats, programs] = await apollo(demo.serve.url, [
        { query: REFEREES, variables: { code, aggregationEpochs: windowLength } },
        { query: REFEREES, variables: { code, aggregationEpochs: 30 } },
        { query: REFERRAL_SET_STATS, variables: { code } },
        { query: CURRENT_PROGRAMS },
      ]);
      const refereeFields = [
        'referralSetId',
        'refereeId',
        'joinedAt',
        'atEpoch',
        'totalRefereeNotionalTakerVolume',
        'totalRefereeGeneratedRewards',
      ];
      const referees = async (n: number) => {
        const page = (
          Object.values(await rest(`/api/v2/referral-sets/referees?referralSetId=${code}&aggregationEpochs=${n}`)) as Connection[]
        )[0]!;
        assert.ok(page.edges.length > 1, 'the set has referees');
        return {
          referralSetReferees: {
            __typename: 'ReferralSetRefereeConnection',
            edges: edgesOf(
              'ReferralSetRefereeEdge',
              page.edges.map((e) => typed(e.node, 'ReferralSetReferee', refereeFields)),
            ),
          },
        };
      };
      assert.deepEqual(byWindow!.data, await referees(windowLength));
      assert.deepEqual(by30!.data, await referees(30));
      // The window changes the totals: the demo's referees trade in most epochs.
      assert.notDeepEqual(byWindow!.data, by30!.data);

      const statsPage = (Object.values(await rest(`/api/v2/referral-sets/stats?referralSetId=${code}`)) as Connection[])[0]!;
      assert.ok(statsPage.edges.length > 0, 'the set has statistics at the latest epoch');
      const statsFields = [
        'atEpoch',
        'partyId',
        'discountFactor',
        'rewardFactor',
        'epochNotionalTakerVolume',
        'referralSetRunningNotionalTakerVolume',
        'rewardsMultiplier',
        'rewardsFactorMultiplier',
        'wasEligible',
        'referrerTakerVolume',
        'discountFactors',
        'rewardFactors',
        'rewardsFactorsMultiplier',
      ];
      const inner = { discountFactors: 'DiscountFactors', rewardFactors: 'RewardFactors', rewardsFactorsMultiplier: 'RewardFactors' };
      assert.deepEqual(stats!.data, {
        referralSetStats: {
          __typename: 'ReferralSetStatsConnection',
          edges: edgesOf(
            'ReferralSetStatsEdge',
            statsPage.edges.map((e) => {
              const node = typed(e.node, 'ReferralSetStats', statsFields, inner);
              for (const k of Object.keys(inner)) node[k] = factorsAsSelected(node[k] as Json);
              return node;
            }),
          ),
        },
      });

      const tier = (t: Json) => ({
        __typename: 'BenefitTier',
        minimumEpochs: t.minimumEpochs,
        minimumRunningNotionalTakerVolume: t.minimumRunningNotionalTakerVolume,
        referralDiscountFactors: factorsAsSelected({ __typename: 'DiscountFactors', ...(t.referralDiscountFactors as Json) }),
        referralRewardFactors: factorsAsSelected({ __typename: 'RewardFactors', ...(t.referralRewardFactors as Json) }),
      });
      const converted = graphqlNode(program);
      assert.deepEqual(programs!.data, {
        currentReferralProgram: {
          __typename: 'CurrentReferralProgram',
          id: converted.id,
          version: converted.version,
          endOfProgramTimestamp: converted.endOfProgramTimestamp,
          windowLength: converted.windowLength,
          endedAt: converted.endedAt,
          benefitTiers: (converted.benefitTiers as Json[]).map(tier),
          stakingTiers: (converted.stakingTiers as Json[]).map((t) => ({ __typename: 'StakingTier', ...t })),
        },
      });
      // The demo's program is updated (tier factors "0.0100" normalised) and has ended.
      assert.equal(converted.version, 3);
      assert.deepEqual(((programs!.data!.currentReferralProgram as Json).benefitTiers as Json[])[0]!.referralRewardFactors, {
        __typename: 'RewardFactors',
        infrastructureFactor: '0.01',
        makerFactor: '0.01',
        liquidityFactor: '0.01',
      });
    });

    test('@include(if: false) leaves the aliases out; an empty window gives null summaries edges', async () => {
      const [answer] = await apollo(demo.serve.url, [
        {
          query: DOCUMENT,
          variables: { checkReferrals: false, id: 'ab', teamId: 'ab', fromEpoch: 1_000_000, toEpoch: 1_000_009 },
        },
      ]);
      assert.deepEqual(answer!.data, {
        referralSets: { __typename: 'ReferralSetConnection', edges: [] },
        teamMembersStatistics: { __typename: 'TeamMembersStatisticsConnection', edges: [] },
        epochRewardSummaries: {
          __typename: 'EpochRewardSummaryConnection',
          edges: null,
          pageInfo: { __typename: 'PageInfo', hasNextPage: false, endCursor: '' },
        },
      });
    });

    test("errorPolicy 'none': an error anywhere fails the request; 'all' keeps the other fields", async () => {
      const variables = { checkReferrals: false, id: 'ab', teamId: 'zz' };
      const [none, all] = await apollo(demo.serve.url, [
        { query: DOCUMENT, variables },
        { query: DOCUMENT, variables, errorPolicy: 'all' },
      ]);
      const error = {
        message: 'failed to list team referees',
        path: ['teamMembersStatistics'],
        extensions: { code: 3, type: 'InvalidArgument' },
      };
      assert.deepEqual(none, { error: { message: 'failed to list team referees', graphQLErrors: [error] } });
      assert.deepEqual(all!.errors, [error]);
      assert.equal(all!.data!.teamMembersStatistics, null);
      assert.deepEqual(all!.data!.referralSets, { __typename: 'ReferralSetConnection', edges: [] });
    });
  });
}
