/**
 * Every request of the shared REST fixtures that GraphQL can express, asked both ways of a real
 * `serve` on both stores: the GraphQL data equals the REST body converted by the rules of
 * graphql.md §3 (numbers, RFC3339Nano times, null edges of an empty summaries page), and REST's
 * errors with details are the data-node's GraphQL errors of §5. A request GraphQL cannot express
 * is one whose query string does not parse (GraphQL's types refuse such values before any
 * operation runs), asks oldest first (GraphQL has no newestFirst), or gives a number beyond Int.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { goJson } from '../../src/contract/json.js';
import { parseQuery, queryPairs } from '../../src/contract/query.js';
import { ROUTES } from '../../src/http/routes.js';
import { FIXTURES, runCli } from '../helpers/cli.js';
import { type Expectation, loadExpectations } from '../helpers/fixtures.js';
import { graphqlNode, postGraphql } from '../helpers/graphql.js';
import { type ServeProcess, startServe } from '../helpers/serve.js';
import { get } from '../helpers/server.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';

const DATASETS = ['referral-sets', 'team-stats', 'epoch-summaries'] as const;
const INT_MAX = 2 ** 31 - 1;

/** A REST request as a GraphQL document and its variables, the fields selected in REST's order; undefined when not expressible. */
interface Asked {
  field: string;
  query: string;
  variables: Record<string, unknown>;
}

const SELECTIONS: Record<string, string> = {
  referralSets: 'id referrer createdAt updatedAt totalMembers',
  teamMembersStatistics:
    'partyId totalQuantumVolume totalQuantumRewards quantumRewards { epoch totalQuantumRewards } totalGamesPlayed gamesPlayed quantumVolumes { epoch totalQuantumVolumes }',
  epochRewardSummaries: 'epoch assetId marketId rewardType amount',
};

function asGraphql(request: string): Asked | undefined {
  const [path = '', query = ''] = request.split('?');
  const route = ROUTES.slice(0, 3).find((r) => new RegExp(`^${r.path.replace(':teamId', '[^/]+')}$`).test(path));
  if (!route) return undefined;
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
  } else if (route.path.startsWith('/api/v2/teams')) {
    field = 'teamMembersStatistics';
    const epochs = int(fields.aggregationEpochs);
    if (epochs === null) return undefined;
    Object.assign(variables, { teamId: decodeURIComponent(path.split('/')[4]!), partyId: fields.partyId, aggregationEpochs: epochs });
    defs = '$teamId: ID!, $partyId: ID, $aggregationEpochs: Int, $pagination: Pagination';
    args = 'teamId: $teamId, partyId: $partyId, aggregationEpochs: $aggregationEpochs, pagination: $pagination';
  } else {
    field = 'epochRewardSummaries';
    const [fromEpoch, toEpoch] = [int(fields.fromEpoch), int(fields.toEpoch)];
    if (fromEpoch === null || toEpoch === null) return undefined;
    variables.filter = { assetIds: fields.assetIds, marketIds: fields.marketIds, fromEpoch, toEpoch };
    defs = '$filter: RewardSummaryFilter, $pagination: Pagination';
    args = 'filter: $filter, pagination: $pagination';
  }
  const selection = `edges { node { ${SELECTIONS[field]} } cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }`;
  return {
    field,
    query: `query Fixture(${defs}) { ${field}(${args}) { ${selection} } }`,
    variables: JSON.parse(JSON.stringify(variables)),
  };
}

type Json = Record<string, unknown>;
/** The GraphQL answer a REST answer converts to (§3 for data, §5 for errors). */
function convert(field: string, status: number, body: Json): Json {
  if (status === 200) {
    const connection = Object.values(body)[0] as { edges: { node: Json; cursor: string }[]; pageInfo: Json };
    const edges = connection.edges.map((e) => ({ node: graphqlNode(e.node), cursor: e.cursor }));
    return {
      data: { [field]: { edges: edges.length === 0 && field === 'epochRewardSummaries' ? null : edges, pageInfo: connection.pageInfo } },
    };
  }
  const details = body.details as { message: string }[];
  const codeNames: Record<number, string> = { 3: 'InvalidArgument', 13: 'Internal' };
  const error = {
    message: details.map((d) => d.message).join(', '),
    path: [field],
    extensions: { code: body.code, type: codeNames[body.code as number] },
  };
  return { errors: [error], data: field === 'referralSets' ? null : { [field]: null } };
}

const ERRORS = loadExpectations('errors');

for (const kind of STORE_KINDS) {
  for (const dataset of DATASETS) {
    describe(`GraphQL and REST fixtures, ${dataset} on ${kind}`, () => {
      let ts: TestStore;
      let serve: ServeProcess;
      before(async () => {
        ts = await createTestStore(kind);
        const ingested = await runCli(['ingest', `${FIXTURES}${dataset}.ndjson`, ...ts.args]);
        assert.equal(ingested.code, 0, ingested.stderr);
        serve = await startServe([...ts.args, '--response-cache-mb', '0']);
      });
      after(async () => {
        await serve?.stop();
        await ts?.drop();
      });

      const cases: Expectation[] = [...loadExpectations(dataset), ...ERRORS.filter((e) => e.dataset === dataset)];
      test('every expressible request answers alike both ways', async () => {
        let asked = 0;
        for (const c of cases) {
          if ((c.method ?? 'GET') !== 'GET') continue;
          const gql = asGraphql(c.request);
          if (!gql) continue;
          const rest = await get(serve.url + c.request);
          assert.equal(rest.status, c.status, `${c.name}: REST as the fixture says`);
          const answer = await postGraphql(serve.url, { operationName: 'Fixture', query: gql.query, variables: gql.variables });
          assert.equal(answer.status, 200, `${c.name}: ${answer.text}`);
          assert.equal(answer.text, goJson(convert(gql.field, rest.status, rest.body as Json)), c.name);
          // Every GraphQL answer shows the head, an error's too (REST's errors show none).
          if (rest.status === 200) assert.equal(answer.headers.get('x-block-height'), rest.headers.get('x-block-height'), c.name);
          else assert.match(answer.headers.get('x-block-height') ?? '', /^\d+$/, c.name);
          asked++;
        }
        // Exactly these many are expressible: a request that stopped translating would go unseen.
        assert.equal(asked, { 'referral-sets': 56, 'team-stats': 34, 'epoch-summaries': 37 }[dataset]);
      });
    });
  }
}
