import { goJson } from '../src/contract/json.js';
import { parseQuery, queryPairs } from '../src/contract/query.js';
import { byPriority } from '../src/http/fast-path.js';
import { ROUTES } from '../src/http/routes.js';

/**
 * REST requests as GraphQL documents, and REST answers as the GraphQL answers they convert to
 * (graphql.md §3 and §5), written apart from the service's GraphQL door: the benchmark asks the
 * same requests both ways with these, and test/doors.test.ts the fixtures'.
 */

/** Go's RFC3339Nano in UTC of a Unix ns string (graphql.md §3), written apart from the service's. */
function rfc3339NanoOf(ns: string): string | null {
  if (/^0+$/.test(ns)) return null;
  const n = BigInt(ns);
  const ms = Number(n / 1_000_000n);
  const fraction = (n % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${new Date(ms).toISOString().slice(0, 19)}${fraction ? `.${fraction}` : ''}Z`;
}

/** Integers shown as Int, and times, by their REST key (graphql.md §3, family.md §9.3). */
const INT_KEYS = new Set([
  'epoch',
  'totalMembers',
  'totalGamesPlayed',
  'atEpoch',
  'version',
  'windowLength',
  'minimumEpochs',
  'tierNumber',
  'createdAtEpoch',
  'joinedAtEpoch',
]);
const TIME_KEYS = new Set(['createdAt', 'updatedAt', 'joinedAt', 'endOfProgramTimestamp', 'endedAt']);
/** Factor objects (family.md §9.1): short field names, an absent one as three "", a benefit tier's normalised. */
const FACTOR_KEYS = new Set([
  'discountFactors',
  'rewardFactors',
  'rewardsFactorsMultiplier',
  'referralRewardFactors',
  'referralDiscountFactors',
]);
const NORMALISED_KEYS = new Set(['referralRewardFactors', 'referralDiscountFactors']);

/** A decimal with no trailing fractional zeros (family.md §9.3), written apart from the service's. */
function normalised(text: string): string {
  if (text === '' || !text.includes('.')) return text;
  return text.replace(/0+$/, '').replace(/\.$/, '');
}

function factorsOf(key: string, value: Record<string, string> | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kind of ['infrastructure', 'liquidity', 'maker']) {
    const given = value === null ? '' : (Object.entries(value).find(([k]) => k.startsWith(kind))?.[1] ?? '');
    out[`${kind}Factor`] = NORMALISED_KEYS.has(key) && value !== null ? normalised(given) : given;
  }
  return out;
}

/** A REST node's values in GraphQL's encodings (graphql.md §3): epochs and counts as numbers, times in RFC3339Nano. */
export function graphqlNode(node: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (INT_KEYS.has(key)) out[key] = Number(value);
    else if (TIME_KEYS.has(key)) out[key] = rfc3339NanoOf(value as string);
    else if (FACTOR_KEYS.has(key)) out[key] = factorsOf(key, value as Record<string, string> | null);
    // ReferralSetReferee's referee is refereeId in GraphQL; TeamReferee's keeps its name.
    else if (key === 'referee' && 'referralSetId' in node) out.refereeId = value;
    else if (Array.isArray(value)) out[key] = value.map((v) => (typeof v === 'object' ? graphqlNode(v as Record<string, unknown>) : v));
    else out[key] = value;
  }
  // An ended program's endedAt, null while it runs.
  if ('endOfProgramTimestamp' in node && !('endedAt' in node)) out.endedAt = null;
  return out;
}

const INT_MAX = 2 ** 31 - 1;

/** A REST request as a GraphQL document and its variables, the fields selected in REST's order; undefined when not expressible. */
export interface Asked {
  field: string;
  query: string;
  variables: Record<string, unknown>;
}

const FACTORS = '{ infrastructureFactor liquidityFactor makerFactor }';

const SELECTIONS: Record<string, string> = {
  referralSetReferees: 'referralSetId refereeId joinedAt atEpoch totalRefereeNotionalTakerVolume totalRefereeGeneratedRewards',
  referralSetStats:
    'atEpoch referralSetRunningNotionalTakerVolume partyId discountFactor rewardFactor epochNotionalTakerVolume rewardsMultiplier ' +
    `rewardsFactorMultiplier wasEligible referrerTakerVolume discountFactors ${FACTORS} rewardFactors ${FACTORS} rewardsFactorsMultiplier ${FACTORS}`,
  currentReferralProgram:
    'version id benefitTiers { minimumRunningNotionalTakerVolume minimumEpochs referralRewardFactor referralDiscountFactor ' +
    `referralRewardFactors ${FACTORS} referralDiscountFactors ${FACTORS} tierNumber } endOfProgramTimestamp windowLength ` +
    'stakingTiers { minimumStakedTokens referralRewardMultiplier } endedAt',
  referralSets: 'id referrer createdAt updatedAt totalMembers',
  teamMembersStatistics:
    'partyId totalQuantumVolume totalQuantumRewards quantumRewards { epoch totalQuantumRewards } totalGamesPlayed gamesPlayed quantumVolumes { epoch totalQuantumVolumes }',
  epochRewardSummaries: 'epoch assetId marketId rewardType amount',
  teams: 'teamId referrer name teamUrl avatarUrl createdAt closed createdAtEpoch allowList totalMembers',
  teamsStatistics:
    'teamId totalQuantumVolume totalQuantumRewards quantumRewards { epoch totalQuantumRewards } totalGamesPlayed gamesPlayed quantumVolumes { epoch totalQuantumVolumes }',
  teamReferees: 'teamId referee joinedAt joinedAtEpoch',
  teamRefereeHistory: 'teamId joinedAt joinedAtEpoch',
};

/** Which fields a document selects: every field of the REST answer, or what the console's own documents select. */
export type Selection = 'all' | 'console';

/**
 * The console's selections where they are not every field (vegaprotocol/frontend-monorepo,
 * apps/trading/lib/hooks): the leaderboard's TeamsStatistics.graphql and the members of
 * Team.graphql, edges and nodes only (no document selects pageInfo or cursors, family.md §9.4),
 * with the `__typename` Apollo adds to every selection set; the types of the connection, the
 * edge and the node.
 */
const CONSOLE: Record<string, { fields: readonly string[]; types: readonly [string, string, string] }> = {
  teamsStatistics: {
    fields: ['teamId', 'totalQuantumVolume', 'totalQuantumRewards', 'totalGamesPlayed', 'gamesPlayed'],
    types: ['TeamsStatisticsConnection', 'TeamStatisticsEdge', 'TeamStatistics'],
  },
  teamMembersStatistics: {
    fields: ['partyId', 'totalQuantumVolume', 'totalQuantumRewards', 'totalGamesPlayed'],
    types: ['TeamMembersStatisticsConnection', 'TeamMemberStatisticsEdge', 'TeamMemberStatistics'],
  },
};

/** The console's selection of a root field, when `selectionOf` asks for it and it is not every field. */
const consoleSelection = (field: string, selectionOf: Selection) => (selectionOf === 'console' ? CONSOLE[field] : undefined);

/** The data-node's routes, tried in the router's order (a static segment before a parameter); a parameter may be empty. */
const API_ROUTES = byPriority(ROUTES.filter((r) => r.operation.service === 'TradingDataService')).map(
  (route) => [route.path, new RegExp(`^${route.path.replace(/:([A-Za-z]+)/g, '(?<$1>[^/]*)')}$`)] as const,
);

/** A path's route and its parameters (decoded). */
function routeOf(path: string): { path: string; params: Record<string, string> } | undefined {
  for (const [routePath, pattern] of API_ROUTES) {
    const m = pattern.exec(path);
    if (m)
      return { path: routePath, params: Object.fromEntries(Object.entries(m.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)])) };
  }
  return undefined;
}

export function asGraphql(request: string, selectionOf: Selection = 'all'): Asked | undefined {
  const [path = '', query = ''] = request.split('?');
  const found = routeOf(path);
  if (!found) return undefined;
  const route = ROUTES.find((r) => r.path === found.path)!;
  if (route.path === '/api/v2/referral-programs/current') {
    // No arguments, no query string read (family.md §1).
    const field = 'currentReferralProgram';
    return { field, query: `query Fixture { ${field} { ${SELECTIONS[field]} } }`, variables: {} };
  }
  let fields: Record<string, unknown>;
  try {
    fields = parseQuery(queryPairs(query), route.operation.fields);
  } catch {
    return undefined;
  }
  if (fields.newestFirst === false) return undefined;
  const int = (v: unknown) => (v === undefined ? undefined : BigInt(v as number) > BigInt(INT_MAX) ? null : Number(v));
  const pagination = { first: fields.first, after: fields.after, last: fields.last, before: fields.before };
  const variables: Record<string, unknown> = { pagination };
  let field: string;
  let args: string;
  let defs: string;
  if (route.path === '/api/v2/referral-sets') {
    field = 'referralSets';
    Object.assign(variables, { id: fields.referralSetId, referrer: fields.referrer, referee: fields.referee });
    defs = '$id: ID, $referrer: ID, $referee: ID, $pagination: Pagination';
    args = 'id: $id, referrer: $referrer, referee: $referee, pagination: $pagination';
  } else if (route.path === '/api/v2/referral-sets/referees') {
    field = 'referralSetReferees';
    // A uint32 above Int's range is sent negative: it wraps to 32 bits (family.md §9.2).
    const epochs = fields.aggregationEpochs as number | undefined;
    Object.assign(variables, {
      id: fields.referralSetId,
      referrer: fields.referrer,
      referee: fields.referee,
      aggregationEpochs: epochs === undefined || epochs <= INT_MAX ? epochs : epochs - 2 ** 32,
    });
    defs = '$id: ID, $referrer: ID, $referee: ID, $pagination: Pagination, $aggregationEpochs: Int';
    args = 'id: $id, referrer: $referrer, referee: $referee, pagination: $pagination, aggregationEpochs: $aggregationEpochs';
  } else if (route.path === '/api/v2/referral-sets/stats') {
    field = 'referralSetStats';
    const epoch = int(fields.atEpoch);
    if (epoch === null) return undefined;
    Object.assign(variables, { setId: fields.referralSetId, epoch, partyId: fields.referee });
    defs = '$setId: ID, $epoch: Int, $partyId: ID, $pagination: Pagination';
    args = 'setId: $setId, epoch: $epoch, partyId: $partyId, pagination: $pagination';
  } else if (route.path === '/api/v2/teams/:teamId/stats') {
    field = 'teamMembersStatistics';
    const epochs = int(fields.aggregationEpochs);
    if (epochs === null) return undefined;
    Object.assign(variables, { teamId: found.params.teamId, partyId: fields.partyId, aggregationEpochs: epochs });
    defs = '$teamId: ID!, $partyId: ID, $aggregationEpochs: Int, $pagination: Pagination';
    args = 'teamId: $teamId, partyId: $partyId, aggregationEpochs: $aggregationEpochs, pagination: $pagination';
  } else if (route.path === '/api/v2/teams') {
    field = 'teams';
    Object.assign(variables, { teamId: fields.teamId, partyId: fields.partyId });
    defs = '$teamId: ID, $partyId: ID, $pagination: Pagination';
    args = 'teamId: $teamId, partyId: $partyId, pagination: $pagination';
  } else if (route.path === '/api/v2/teams/stats') {
    field = 'teamsStatistics';
    const epochs = int(fields.aggregationEpochs);
    if (epochs === null) return undefined;
    Object.assign(variables, { teamId: fields.teamId, aggregationEpochs: epochs });
    defs = '$teamId: ID, $aggregationEpochs: Int, $pagination: Pagination';
    args = 'teamId: $teamId, aggregationEpochs: $aggregationEpochs, pagination: $pagination';
  } else if (route.path === '/api/v2/teams/referees/:teamId') {
    field = 'teamReferees';
    variables.teamId = found.params.teamId;
    defs = '$teamId: ID!, $pagination: Pagination';
    args = 'teamId: $teamId, pagination: $pagination';
  } else if (route.path === '/api/v2/teams/referees/history/:referee') {
    field = 'teamRefereeHistory';
    variables.referee = found.params.referee;
    defs = '$referee: ID!, $pagination: Pagination';
    args = 'referee: $referee, pagination: $pagination';
  } else {
    field = 'epochRewardSummaries';
    const [fromEpoch, toEpoch] = [int(fields.fromEpoch), int(fields.toEpoch)];
    if (fromEpoch === null || toEpoch === null) return undefined;
    variables.filter = { assetIds: fields.assetIds, marketIds: fields.marketIds, fromEpoch, toEpoch };
    defs = '$filter: RewardSummaryFilter, $pagination: Pagination';
    args = 'filter: $filter, pagination: $pagination';
  }
  const theirs = consoleSelection(field, selectionOf);
  const selection = theirs
    ? `edges { node { ${theirs.fields.join(' ')} __typename } __typename } __typename`
    : `edges { node { ${SELECTIONS[field]} } cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }`;
  return {
    field,
    query: `query Fixture(${defs}) { ${field}(${args}) { ${selection} } }`,
    variables: JSON.parse(JSON.stringify(variables)),
  };
}

type Json = Record<string, unknown>;

/** A REST team with its unset URLs as GraphQL shows them: "" in their place (family.md §9.3). */
export function withUrls(node: Json): Json {
  const { teamId, referrer, name, teamUrl = '', avatarUrl = '', ...rest } = node;
  return { teamId, referrer, name, teamUrl, avatarUrl, ...rest };
}

/** The GraphQL answer a REST answer converts to (§3 for data, §5 for errors), the fields as `selectionOf` selects them. */
export function graphqlAnswer(field: string, status: number, body: Json, selectionOf: Selection = 'all'): Json {
  if (status === 200 && field === 'currentReferralProgram') return { data: { [field]: graphqlNode(body[field] as Json) } };
  if (status === 200) {
    const connection = Object.values(body)[0] as { edges: { node: Json; cursor: string }[]; pageInfo: Json };
    const edges = connection.edges.map((e) => ({ node: graphqlNode(field === 'teams' ? withUrls(e.node) : e.node), cursor: e.cursor }));
    const all = { edges: edges.length === 0 && field === 'epochRewardSummaries' ? null : edges, pageInfo: connection.pageInfo };
    return selected(field, { data: { [field]: all } }, selectionOf);
  }
  const details = body.details as { message: string }[];
  const codeNames: Record<number, string> = { 3: 'InvalidArgument', 5: 'NotFound', 13: 'Internal' };
  const error = {
    message: details.map((d) => d.message).join(', '),
    path: [field],
    extensions: { code: body.code, type: codeNames[body.code as number] },
  };
  // Non-null roots null all of data (graphql.md §5, family.md §9.3).
  const nonNull = field === 'referralSets' || field === 'referralSetReferees' || field === 'referralSetStats';
  return { errors: [error], data: nonNull ? null : { [field]: null } };
}

/** A GraphQL answer of every field as the console's selection gives it (see CONSOLE); others as they are. */
function selected(field: string, answer: Json, selectionOf: Selection): Json {
  const theirs = consoleSelection(field, selectionOf);
  const connection = (answer.data as Json | null)?.[field] as { edges: { node: Json }[] } | null | undefined;
  if (!theirs || !connection) return answer;
  const [connectionType, edgeType, nodeType] = theirs.types;
  const edges = connection.edges.map((e) => ({
    node: { ...Object.fromEntries(theirs.fields.map((k) => [k, e.node[k]])), __typename: nodeType },
    __typename: edgeType,
  }));
  return { data: { [field]: { edges, __typename: connectionType } } };
}

/** A REST URL's request as GET /graphql (the benchmark's requests, all expressible). */
export function graphqlUrl(restUrl: string, selectionOf: Selection = 'all'): string {
  const asked = asGraphql(restUrl, selectionOf);
  if (!asked) throw new Error(`not expressible in GraphQL: ${restUrl}`);
  return `/graphql?query=${encodeURIComponent(asked.query)}&variables=${encodeURIComponent(JSON.stringify(asked.variables))}`;
}

/** The GraphQL answer's text that a REST answer converts to. */
export function graphqlAnswerOf(restUrl: string, restBody: string, selectionOf: Selection = 'all'): string {
  return goJson(graphqlAnswer(asGraphql(restUrl)!.field, 200, JSON.parse(restBody) as Json, selectionOf));
}
