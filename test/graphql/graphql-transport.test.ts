/**
 * /graphql of a real `serve` on both stores, over the referral-sets fixtures: the transport of
 * graphql.md §4 (POST, GET, other media types, batches, OPTIONS, HEAD, headers, CORS), the
 * errors of §5 (422 for the whole document's validation, 200 with null propagation for the
 * operations' errors), the argument rules of §2, the limits on hostile documents (never a 500),
 * the response cache, and the operation's name in metrics and logs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  buildClientSchema,
  buildSchema,
  type GraphQLEnumType,
  type GraphQLSchema,
  getIntrospectionQuery,
  type IntrospectionQuery,
} from 'graphql';
import { postGraphql } from '../helpers/graphql.js';
import { eventually, sample, type ServeProcess, startServe } from '../helpers/serve.js';
import { get, rawRequest } from '../helpers/server.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';

const SET = '46f5a1b4b156d1ad330c16a3831d03bf9b2bd6c0816bee06f92e23399ccea098';
const SET_NODE = {
  id: SET,
  referrer: '3f665edef10637ce81fc069e7a609683ceaf4915888564e88216858f73ccef03',
  totalMembers: 11,
  createdAt: '2024-03-01T00:05:00.123456Z',
};
const VALIDATION = { code: 'GRAPHQL_VALIDATION_FAILED' };

/** The data-node's schema of the three queries (graphql.md §1), AccountType aside. */
const DATA_NODE_SDL = `
type Query {
  referralSets(id: ID, referrer: ID, referee: ID, pagination: Pagination): ReferralSetConnection!
  teamMembersStatistics(teamId: ID!, partyId: ID, aggregationEpochs: Int, pagination: Pagination): TeamMembersStatisticsConnection
  epochRewardSummaries(filter: RewardSummaryFilter, pagination: Pagination): EpochRewardSummaryConnection
  referralSetReferees(id: ID, referrer: ID, referee: ID, pagination: Pagination, aggregationEpochs: Int): ReferralSetRefereeConnection!
  referralSetStats(setId: ID, epoch: Int, partyId: ID, pagination: Pagination): ReferralSetStatsConnection!
  currentReferralProgram: CurrentReferralProgram
  teams(teamId: ID, partyId: ID, pagination: Pagination): TeamConnection
  teamsStatistics(teamId: ID, aggregationEpochs: Int, pagination: Pagination): TeamsStatisticsConnection
  teamReferees(teamId: ID!, pagination: Pagination): TeamRefereeConnection
  teamRefereeHistory(referee: ID!, pagination: Pagination): TeamRefereeHistoryConnection
}
type CurrentReferralProgram { id: ID! version: Int! benefitTiers: [BenefitTier!]! endOfProgramTimestamp: Timestamp! windowLength: Int! stakingTiers: [StakingTier!]! endedAt: Timestamp }
type BenefitTier {
  minimumEpochs: Int! minimumRunningNotionalTakerVolume: String!
  referralDiscountFactor: String! @deprecated(reason: "Use referralDiscountFactors") referralDiscountFactors: DiscountFactors!
  referralRewardFactor: String! @deprecated(reason: "Use referralRewardFactors") referralRewardFactors: RewardFactors!
  tierNumber: Int
}
type StakingTier { minimumStakedTokens: String! referralRewardMultiplier: String! }
type DiscountFactors { infrastructureFactor: String! makerFactor: String! liquidityFactor: String! }
type RewardFactors { infrastructureFactor: String! makerFactor: String! liquidityFactor: String! }
type ReferralSetRefereeConnection { edges: [ReferralSetRefereeEdge]! pageInfo: PageInfo! }
type ReferralSetRefereeEdge { node: ReferralSetReferee! cursor: String! }
type ReferralSetReferee { referralSetId: ID! refereeId: ID! joinedAt: Timestamp! atEpoch: Int! totalRefereeNotionalTakerVolume: String! totalRefereeGeneratedRewards: String! }
type ReferralSetStatsConnection { edges: [ReferralSetStatsEdge]! pageInfo: PageInfo! }
type ReferralSetStatsEdge { node: ReferralSetStats! cursor: String! }
type ReferralSetStats {
  atEpoch: Int! partyId: ID! wasEligible: Boolean!
  discountFactor: String! @deprecated(reason: "Use discountFactors")
  rewardFactor: String! @deprecated(reason: "Use rewardFactors")
  discountFactors: DiscountFactors! rewardFactors: RewardFactors!
  epochNotionalTakerVolume: String! referralSetRunningNotionalTakerVolume: String! rewardsMultiplier: String!
  rewardsFactorMultiplier: String! @deprecated(reason: "Use rewardsFactorsMultiplier")
  rewardsFactorsMultiplier: RewardFactors! referrerTakerVolume: String!
}
input Pagination { first: Int after: String last: Int before: String }
input RewardSummaryFilter { assetIds: [ID!] marketIds: [ID!] fromEpoch: Int toEpoch: Int }
type PageInfo { hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String! endCursor: String! }
type ReferralSetConnection { edges: [ReferralSetEdge]! pageInfo: PageInfo! }
type ReferralSetEdge { node: ReferralSet! cursor: String! }
type ReferralSet { id: ID! referrer: ID! totalMembers: Int! createdAt: Timestamp! updatedAt: Timestamp! }
type TeamMembersStatisticsConnection { edges: [TeamMemberStatisticsEdge!]! pageInfo: PageInfo! }
type TeamMemberStatisticsEdge { node: TeamMemberStatistics! cursor: String! }
type TeamMemberStatistics {
  partyId: String! totalQuantumVolume: String! quantumVolumes: [QuantumVolumesPerEpoch!]!
  totalQuantumRewards: String! quantumRewards: [QuantumRewardsPerEpoch!]!
  totalGamesPlayed: Int! gamesPlayed: [String!]!
}
type QuantumRewardsPerEpoch { epoch: Int! totalQuantumRewards: String! }
type QuantumVolumesPerEpoch { epoch: Int! totalQuantumVolumes: String! }
type EpochRewardSummaryConnection { edges: [EpochRewardSummaryEdge] pageInfo: PageInfo }
type EpochRewardSummaryEdge { node: EpochRewardSummary! cursor: String! }
type EpochRewardSummary { epoch: Int! marketId: ID assetId: ID! rewardType: AccountType! amount: String! }
type TeamConnection { edges: [TeamEdge!]! pageInfo: PageInfo! }
type TeamEdge { node: Team! cursor: String! }
type Team { teamId: ID! referrer: ID! name: String! teamUrl: String! avatarUrl: String! totalMembers: Int! createdAt: Timestamp! createdAtEpoch: Int! closed: Boolean! allowList: [String!]! }
type TeamsStatisticsConnection { edges: [TeamStatisticsEdge!]! pageInfo: PageInfo! }
type TeamStatisticsEdge { node: TeamStatistics! cursor: String! }
type TeamStatistics { teamId: String! totalQuantumVolume: String! quantumVolumes: [QuantumVolumesPerEpoch!]! totalQuantumRewards: String! quantumRewards: [QuantumRewardsPerEpoch!]! totalGamesPlayed: Int! gamesPlayed: [String!]! }
type TeamRefereeConnection { edges: [TeamRefereeEdge!]! pageInfo: PageInfo! }
type TeamRefereeEdge { node: TeamReferee! cursor: String! }
type TeamReferee { teamId: ID! referee: ID! joinedAt: Timestamp! joinedAtEpoch: Int! }
type TeamRefereeHistoryConnection { edges: [TeamRefereeHistoryEdge!]! pageInfo: PageInfo! }
type TeamRefereeHistoryEdge { node: TeamRefereeHistory! cursor: String! }
type TeamRefereeHistory { teamId: ID! joinedAt: Timestamp! joinedAtEpoch: Int! }
scalar Timestamp
enum AccountType { ACCOUNT_TYPE_GLOBAL_REWARD }`;

/** Each type's fields (or input fields) in order, with their types and arguments: what a schema says beyond descriptions. */
function shape(schema: GraphQLSchema, names: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of names) {
    const type = schema.getType(name);
    if (!type || !('getFields' in type)) continue;
    out[name] = Object.values(type.getFields()).map((f) => {
      const args =
        'args' in f && f.args.length > 0
          ? `(${f.args.map((a: { name: string; type: unknown }) => `${a.name}: ${String(a.type)}`).join(', ')})`
          : '';
      return `${f.name}${args}: ${String(f.type)}${f.deprecationReason ? ` @deprecated(${f.deprecationReason})` : ''}`;
    });
  }
  return out;
}

for (const kind of STORE_KINDS) {
  describe(`/graphql on ${kind}`, () => {
    let ts: TestStore;
    let serve: ServeProcess;
    let height: string;
    before(async () => {
      ts = await createTestStore(kind, { dataset: 'referral-sets' });
      serve = await startServe([...ts.args]);
      height = (await get(`${serve.url}/api/v2/referral-sets`)).headers.get('x-block-height')!;
    });
    after(async () => {
      await serve?.stop();
      await ts?.drop();
    });

    const ask = (query: string, variables?: Record<string, unknown>, operationName?: string) =>
      postGraphql(serve.url, { query, ...(variables ? { variables } : {}), ...(operationName ? { operationName } : {}) });
    const BY_ID = `{ referralSets(id: "${SET}") { edges { node { id referrer totalMembers createdAt } } } }`;

    test('POST answers compact JSON with the chain head and CORS headers; GET the same', async () => {
      const res = await rawRequest(
        `${serve.url}/graphql`,
        { 'content-type': 'application/json', origin: 'https://console.vega.xyz' },
        'POST',
      );
      assert.equal(res.status, 400, 'a POST without a body is no request');
      const post = await postGraphql(serve.url, { query: BY_ID }, { origin: 'https://console.vega.xyz' });
      const expected = JSON.stringify({ data: { referralSets: { edges: [{ node: SET_NODE }] } } });
      assert.equal(post.status, 200);
      assert.equal(post.text, expected);
      assert.equal(post.headers.get('content-type'), 'application/json');
      assert.equal(post.headers.get('x-block-height'), height);
      assert.match(post.headers.get('x-block-timestamp')!, /^\d{19}$/);
      assert.equal(post.headers.get('access-control-allow-origin'), '*');
      assert.equal(post.headers.get('access-control-expose-headers'), '*');
      const viaGet = await get(`${serve.url}/graphql?query=${encodeURIComponent(BY_ID)}`);
      assert.equal(viaGet.status, 200);
      assert.equal(viaGet.text, expected);
      const vars = await get(
        `${serve.url}/graphql?operationName=B&variables=${encodeURIComponent(JSON.stringify({ id: SET }))}&query=${encodeURIComponent(
          'query A { __typename } query B($id: ID) { referralSets(id: $id) { edges { node { totalMembers } } } }',
        )}`,
      );
      assert.equal(vars.text, JSON.stringify({ data: { referralSets: { edges: [{ node: { totalMembers: 11 } }] } } }));
    });

    test('GET /graphql without a document: GraphiQL for a browser, said to vary by Accept; else a 422, kept by no cache', async () => {
      const page = await get(`${serve.url}/graphql`, { headers: { accept: 'text/html' } });
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(page.headers.get('vary'), 'accept, accept-encoding');
      const json = await get(`${serve.url}/graphql`);
      assert.equal(json.status, 422);
      assert.equal(json.headers.get('cache-control'), 'no-store');
    });

    test("introspection shows the data-node's types, field order, arguments and nullability", async () => {
      const res = await ask(getIntrospectionQuery());
      assert.equal(res.status, 200);
      const ours = buildClientSchema((res.body as { data: IntrospectionQuery }).data);
      const expected = buildSchema(DATA_NODE_SDL);
      const names = Object.keys(expected.getTypeMap()).filter((n) => !n.startsWith('__') && n !== 'AccountType');
      assert.deepEqual(shape(ours, names), shape(expected, names));
      const accountTypes = (ours.getType('AccountType') as GraphQLEnumType).getValues();
      assert.equal(accountTypes.length, 31);
      assert.equal(accountTypes.find((v) => v.name === 'ACCOUNT_TYPE_REWARD_AVERAGE_POSITION')?.deprecationReason, 'Deprecated');
    });

    test('other media types, batches and bad JSON are 400s; OPTIONS 200; HEAD 405', async () => {
      const post = (body: string, type: string) => get(`${serve.url}/graphql`, { method: 'POST', headers: { 'content-type': type }, body });
      const plain = await post(JSON.stringify({ query: BY_ID }), 'text/plain');
      assert.equal(plain.status, 400);
      assert.equal(plain.text, '{"errors":[{"message":"transport not supported"}],"data":null}');
      const batch = await post(JSON.stringify([{ query: BY_ID }]), 'application/json');
      assert.equal(batch.status, 400);
      assert.equal(
        batch.text,
        '{"errors":[{"message":"json request body could not be decoded: json: cannot unmarshal array into Go value of type graphql.RawParams"}],"data":null}',
      );
      const broken = await post('{"query":', 'application/json');
      assert.equal(broken.status, 400);
      assert.match((broken.body as { errors: { message: string }[] }).errors[0]!.message, /^json request body could not be decoded: /);
      // As gqlgen decodes the body into its RawParams with Go's encoding/json: a field of another
      // JSON type is refused, naming it; null leaves the zero value; keys match in any case.
      const undecodable = (what: string) =>
        JSON.stringify({ errors: [{ message: `json request body could not be decoded: json: cannot unmarshal ${what}` }], data: null });
      for (const [body, what] of [
        ['{"query":5}', 'number into Go struct field RawParams.query of type string'],
        ['{"query":"{ __typename }","operationName":true}', 'bool into Go struct field RawParams.operationName of type string'],
        ['{"query":"{ __typename }","variables":"{}"}', 'string into Go struct field RawParams.variables of type map[string]interface {}'],
        ['{"query":"{ __typename }","extensions":[1]}', 'array into Go struct field RawParams.extensions of type map[string]interface {}'],
        ['{"query":{},"operationName":1}', 'object into Go struct field RawParams.query of type string'],
        ['5', 'number into Go value of type graphql.RawParams'],
        ['"{ __typename }"', 'string into Go value of type graphql.RawParams'],
      ] as const) {
        const res = await post(body, 'application/json');
        assert.equal(res.status, 400, body);
        assert.equal(res.text, undecodable(what), body);
      }
      const typename = '{"data":{"__typename":"Query"}}';
      assert.equal(
        (await post('{"query":"{ __typename }","operationName":null,"variables":null,"extensions":null}', 'application/json')).text,
        typename,
      );
      assert.equal((await post('{"Query":"{ __typename }","OPERATIONNAME":""}', 'application/json')).text, typename);
      assert.equal((await post('{"query":null}', 'application/json')).status, 422, 'no document');
      // GET: variables null are none, as gqlgen decodes them; variables or extensions that do not decode are a 400.
      const nullVariables = await get(`${serve.url}/graphql?query=${encodeURIComponent('{ __typename }')}&variables=null`);
      assert.equal(nullVariables.status, 200);
      assert.equal(nullVariables.text, typename);
      const badExtensions = await get(`${serve.url}/graphql?query=${encodeURIComponent('{ __typename }')}&extensions=%5B`);
      assert.equal(badExtensions.status, 400);
      assert.equal(badExtensions.text, '{"errors":[{"message":"extensions could not be decoded"}],"data":null}');
      const badVariables = await get(`${serve.url}/graphql?query=${encodeURIComponent(BY_ID)}&variables=%7B`);
      assert.equal(badVariables.status, 400);
      assert.equal(badVariables.text, '{"errors":[{"message":"variables could not be decoded"}],"data":null}');

      const options = await rawRequest(`${serve.url}/graphql`, {}, 'OPTIONS');
      assert.equal(options.status, 200);
      const preflight = await rawRequest(
        `${serve.url}/graphql`,
        { origin: 'https://console.vega.xyz', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
        'OPTIONS',
      );
      assert.equal(preflight.status, 200);
      const headers = Object.fromEntries(preflight.headers.map(([k, v]) => [k.toLowerCase(), v]));
      assert.equal(headers['access-control-allow-origin'], '*');
      assert.equal(headers['access-control-allow-methods'], 'GET, POST, OPTIONS');
      assert.equal(headers['access-control-allow-headers'], 'content-type');
      const head = await rawRequest(`${serve.url}/graphql`, {}, 'HEAD');
      assert.equal(head.status, 405);
    });

    test('the whole document is validated: 422 with locations, nothing executed', async () => {
      const unknown = await ask('{ markets { edges { node { id } } } }');
      assert.equal(unknown.status, 422);
      assert.equal(
        unknown.text,
        JSON.stringify({
          errors: [
            { message: 'Cannot query field "markets" on type "Query".', locations: [{ line: 1, column: 3 }], extensions: VALIDATION },
          ],
          data: null,
        }),
      );
      // The operation not executed is validated too.
      const other = await ask(`query A { __typename } query B { referralSets { nope } }`, undefined, 'A');
      assert.equal(other.status, 422);
      const several = await ask('query A { __typename } query B { __typename }');
      assert.equal(several.status, 422);
      assert.equal(
        several.text,
        JSON.stringify({
          errors: [{ message: 'operation name is required when a document has several operations', extensions: VALIDATION }],
          data: null,
        }),
      );
      const named = await ask('query A { a: __typename } query B { b: __typename }', undefined, 'B');
      assert.equal(named.text, '{"data":{"b":"Query"}}');
      const missing = await ask('query A { __typename }', undefined, 'C');
      assert.equal(missing.status, 422);
      const parse = await ask('{ referralSets(');
      assert.equal(parse.status, 422);
      assert.deepEqual((parse.body as { errors: { extensions: unknown }[] }).errors[0]!.extensions, { code: 'GRAPHQL_PARSE_FAILED' });
      const badVariable = await ask('query($first: Int) { referralSets(pagination: { first: $first }) { edges { cursor } } }', {
        first: 'two',
      });
      assert.equal(badVariable.status, 422);
      const empty = await ask('');
      assert.equal(empty.status, 422);
      const subscription = await ask('subscription { x }');
      assert.equal(subscription.status, 422);
      // The schema has no mutation (nor subscription) type: gqlgen's validator refuses the operation, executed or not.
      const unsupported = (type: string, column: number) =>
        JSON.stringify({
          errors: [
            { message: `Schema does not support operation type "${type}"`, locations: [{ line: 1, column }], extensions: VALIDATION },
          ],
          data: null,
        });
      const mutation = await ask('mutation { __typename }');
      assert.equal(mutation.status, 422);
      assert.equal(mutation.text, unsupported('mutation', 1));
      assert.equal(subscription.text, unsupported('subscription', 1));
      const notExecuted = await ask('query A { __typename } mutation B { __typename }', undefined, 'A');
      assert.equal(notExecuted.status, 422);
      assert.equal(notExecuted.text, unsupported('mutation', 24));
      // A GET carries queries only (graphql.md §4): a mutation's is 406, before its validation.
      const viaGet = await get(`${serve.url}/graphql?query=${encodeURIComponent('mutation { __typename }')}`);
      assert.equal(viaGet.status, 406);
      assert.equal(viaGet.text, '{"errors":[{"message":"GET requests only for queries"}],"data":null}');
    });

    test("the operations' errors: 200, the data-node's shape, null propagation", async () => {
      const both = await ask(`{ epochRewardSummaries { edges { cursor } } referralSets(pagination: { first: 0 }) { edges { cursor } } }`);
      assert.equal(both.status, 200);
      assert.equal(
        both.text,
        JSON.stringify({
          errors: [{ message: 'invalid pagination', path: ['referralSets'], extensions: { code: 3, type: 'InvalidArgument' } }],
          data: null,
        }),
      );
      const sibling = await ask(`{ teamMembersStatistics(teamId: "zz") { edges { cursor } } ${BY_ID.slice(1, -1)} }`);
      assert.equal(
        sibling.text,
        JSON.stringify({
          errors: [
            { message: 'failed to list team referees', path: ['teamMembersStatistics'], extensions: { code: 3, type: 'InvalidArgument' } },
          ],
          data: { teamMembersStatistics: null, referralSets: { edges: [{ node: SET_NODE }] } },
        }),
      );
      const negative = await ask('{ teamMembersStatistics(teamId: "ab", aggregationEpochs: -1) { edges { cursor } } }');
      assert.equal(
        negative.text,
        JSON.stringify({
          errors: [
            { message: 'failed to list team referees', path: ['teamMembersStatistics'], extensions: { code: 13, type: 'Internal' } },
          ],
          data: { teamMembersStatistics: null },
        }),
      );
      // A null sent for a variable whose default made the document valid, in a non-null place:
      // the executor's field error (with its path, siblings answered), not a 422.
      const nulled = await ask('query($t: ID = "x") { a: teamMembersStatistics(teamId: $t) { edges { cursor } } b: __typename }', {
        t: null,
      });
      assert.equal(nulled.status, 200);
      assert.equal(
        nulled.text,
        JSON.stringify({
          errors: [{ message: 'Argument "teamId" of non-null type "ID!" must not be null.', path: ['a'] }],
          data: { a: null, b: 'Query' },
        }),
      );
      const directive = await ask('query($c: Boolean = true) { referralSets @include(if: $c) { edges { cursor } } __typename }', {
        c: null,
      });
      assert.equal(directive.status, 200);
      assert.equal(
        directive.text,
        JSON.stringify({ errors: [{ message: 'Argument "if" of non-null type "Boolean!" must not be null.' }], data: null }),
      );
      // family.md §9.2: the other negative arguments. teamsStatistics' is the same error with its
      // operation's message; referralSetStats' too, and its root is non-null: all of data is null.
      const negativeTeams = await ask('{ teamsStatistics(aggregationEpochs: -1) { edges { cursor } } }');
      assert.equal(
        negativeTeams.text,
        JSON.stringify({
          errors: [{ message: 'failed to list team statistics', path: ['teamsStatistics'], extensions: { code: 13, type: 'Internal' } }],
          data: { teamsStatistics: null },
        }),
      );
      const negativeEpoch = await ask('{ referralSetStats(epoch: -1) { edges { cursor } } }');
      assert.equal(
        negativeEpoch.text,
        JSON.stringify({
          errors: [{ message: 'failed to get referral set stats', path: ['referralSetStats'], extensions: { code: 13, type: 'Internal' } }],
          data: null,
        }),
      );
      // referralSetReferees' wraps to 32 bits, as the data-node's does: 4294967295, every ended
      // epoch (so the answer of the widest window GraphQL's Int can send), not an error.
      const referees = (n: number) =>
        ask(`{ referralSetReferees(aggregationEpochs: ${n}) { edges { node { refereeId totalRefereeNotionalTakerVolume } cursor } } }`);
      const wrapped = await referees(-1);
      assert.equal(wrapped.status, 200);
      assert.equal(wrapped.text, (await referees(2147483647)).text);
      assert.notEqual((wrapped.body as { data: { referralSetReferees: { edges: unknown[] } } }).data.referralSetReferees.edges.length, 0);
      // A cursor's text reaches the store only if PostgreSQL can hold it: a NUL is a bad cursor.
      const nul = Buffer.from('{"reward_type":"\\u0000"}').toString('base64');
      const cursor = await ask(`{ epochRewardSummaries(pagination: { after: "${nul}" }) { edges { cursor } } }`);
      assert.equal(
        cursor.text,
        JSON.stringify({
          errors: [{ message: 'invalid pagination', path: ['epochRewardSummaries'], extensions: { code: 3, type: 'InvalidArgument' } }],
          data: { epochRewardSummaries: null },
        }),
      );
      const uint = await ask('{ epochRewardSummaries(filter: { fromEpoch: -1 }) { edges { cursor } } }');
      assert.equal(
        uint.text,
        JSON.stringify({
          errors: [{ message: 'cannot convert to uint - must be positive', path: ['epochRewardSummaries'] }],
          data: { epochRewardSummaries: null },
        }),
      );
    });

    test('variables with defaults, fragments, @skip, aliases; a variable not sent inside a literal counts as 0', async () => {
      const doc = `
        query Sets($id: ID = "${SET}", $skip: Boolean = false, $to: Int, $p: Pagination) {
          one: referralSets(id: $id) { ...Set }
          two: referralSets(id: $id) @skip(if: $skip) { edges { node { ... on ReferralSet { totalMembers } } } }
          none: epochRewardSummaries(filter: { toEpoch: $to }, pagination: $p) { edges { cursor } pageInfo { startCursor } }
        }
        fragment Set on ReferralSetConnection { __typename edges { __typename node { __typename id } } }`;
      const res = await ask(doc);
      assert.equal(
        res.text,
        JSON.stringify({
          data: {
            one: {
              __typename: 'ReferralSetConnection',
              edges: [{ __typename: 'ReferralSetEdge', node: { __typename: 'ReferralSet', id: SET } }],
            },
            two: { edges: [{ node: { totalMembers: 11 } }] },
            none: { edges: null, pageInfo: { startCursor: '' } },
          },
        }),
      );
      const skipped = await ask(doc, { skip: true, to: null });
      assert.deepEqual(Object.keys((skipped.body as { data: object }).data), ['one', 'none']);
    });

    test('hostile documents get their limit as a 422, never a 500; the process stays up', async () => {
      const limit = async (query: string, message: RegExp) => {
        const res = await ask(query);
        assert.equal(res.status, 422, res.text.slice(0, 300));
        const errors = (res.body as { errors: { message: string; extensions: unknown }[] }).errors;
        assert.match(errors[0]!.message, message);
      };
      const deep = `{ referralSets { edges { node { id } } } ${'__schema { types { fields { type { ofType { '.repeat(3)}name${' } } } } }'.repeat(3)} }`;
      await limit(deep, /^Maximum introspection depth exceeded$/);
      // Our types nest five deep: deeper is unknown fields (an upstream's deep types: see graphql-upstream.test.ts).
      await limit(
        `{ referralSets { edges { node { id ${'{ a '.repeat(90)}${'}'.repeat(90)} } } } }`,
        /^Field "id" must not have a selection/,
      );
      const wide = `{ referralSets { edges { node { ${Array.from({ length: 1001 }, (_, i) => `a${i}: id`).join(' ')} } } } }`;
      await limit(wide, /^the document selects more than 1000 fields \(fragments expanded\)$/);
      const aliases = `{ ${Array.from({ length: 1000 }, (_, i) => `a${i}:referralSets(pagination:{first:5000}){edges{cursor}}`).join(' ')} }`;
      await limit(aliases, /^the document selects more than 1000 fields \(fragments expanded\)$/);
      await limit(`${aliases.split(' ').slice(0, 301).join(' ')} }`, /^the operation asks 300 root fields, the limit is 20$/);
      const rows = `{ ${Array.from({ length: 5 }, (_, i) => `a${i}: referralSets(pagination: { first: 5000 }) { edges { cursor } }`).join(' ')} }`;
      await limit(rows, /^the operation asks 25000 rows, the limit is 20000$/);
      // A default page is 1,000 rows: 20 of them are within the bound.
      const defaults = `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: referralSets { edges { cursor } }`).join(' ')} }`;
      assert.equal((await ask(defaults)).status, 200);
      const big = `{ __typename ${' '.repeat(70_000)}}`;
      await limit(big, /^the document is 70014 bytes, the limit is 65536$/);
      // Fragments spread in fragments, each twice: 2^30 fields once expanded.
      const fragments = Array.from({ length: 30 }, (_, i) => `fragment F${i} on PageInfo { ...F${i + 1} ...F${i + 1} }`).join(' ');
      await limit(
        `{ referralSets { pageInfo { ...F0 } } } ${fragments} fragment F30 on PageInfo { hasNextPage }`,
        /^the document selects more than 1000 fields/,
      );
      const cycle = await ask('{ referralSets { pageInfo { ...A } } } fragment A on PageInfo { ...B } fragment B on PageInfo { ...A }');
      assert.equal(cycle.status, 422);
      await limit(`{ ${'a '.repeat(25_000)}}`, /^Syntax Error: Document contains more that 20000 tokens\. Parsing aborted\.$/);
      // Nested past graphql-js' recursion (its parser's, its validation's), within the size and
      // token bounds: the nesting's bound, never a stack overflow's 500.
      const brackets = /^the document nests brackets more than 100 deep$/;
      await limit(`{${'a{'.repeat(5000)}b${'}'.repeat(5000)}}`, brackets);
      await limit(`{ referralSets(id: ${'['.repeat(2000)}"a"${']'.repeat(2000)}) { __typename } }`, brackets);
      await limit(`{ referralSets(pagination: ${'{a:'.repeat(3000)}1${'}'.repeat(3000)}) { __typename } }`, brackets);
      await limit(`{ ${'...{'.repeat(3000)}__typename${'}'.repeat(3000)} }`, brackets);
      const list = await get(
        `${serve.url}/graphql?query=${encodeURIComponent(`{ referralSets(id: ${'['.repeat(2000)}1${']'.repeat(2000)}) { __typename } }`)}`,
      );
      assert.equal(list.status, 422);
      // Each fragment spreading the next: shallow text, but validation follows the spreads.
      const chain = Array.from({ length: 1500 }, (_, i) => `fragment F${i} on __Type{ofType{...F${i + 1}}}`).join('');
      await limit(
        `{__schema{types{...F0}}}${chain}fragment F1500 on __Type{name}`,
        /^the document nests selections more than 100 deep \(fragments followed\)$/,
      );
      // Brackets in strings, block strings and comments are text.
      const text = await ask(
        `{ a: __type(name: "${'{['.repeat(60)}\\"${'('.repeat(60)}") { name } # ${'{'.repeat(200)}\n b: __type(name: """${'['.repeat(200)}\\""" """) { name } }`,
      );
      assert.equal(text.text, '{"data":{"a":null,"b":null}}');
      const body = await get(`${serve.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(300_000) } }),
      });
      assert.equal(body.status, 413);
      assert.equal((body.body as { data: null }).data, null);
      const nested = await get(`${serve.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"query":"{ __typename }","variables":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
      });
      assert.equal(nested.status, 200, 'JSON nested deep is only data');
      assert.equal((await get(`${serve.url}/healthz`)).status, 200);
    });

    test('answers of our fields go through the response cache; metrics and logs name the operation', async () => {
      const metrics = async () => (await get(`${serve.url}/metrics`)).text;
      const hits = async () => sample(await metrics(), 'epochview_response_cache_requests_total{outcome="hit"}') ?? 0;
      const before = await hits();
      const query = `query CachedSets { referralSets(id: "${SET}") { edges { node { id } } } }`;
      const answers = [await ask(query), await ask(query), await ask(query)];
      assert.deepEqual(
        answers.map((a) => a.text),
        Array(3).fill(JSON.stringify({ data: { referralSets: { edges: [{ node: { id: SET } }] } } })),
      );
      // Kept on the second request of the same document and variables (see ResponseCache), then served.
      assert.equal((await hits()) - before, 1);
      assert.equal(answers[2]!.headers.get('x-block-height'), height);
      const text = await metrics();
      assert.equal(sample(text, 'epochview_http_requests_total{operation="graphql CachedSets",status="200"}'), 3);
      await eventually('the request lines', () => serve.logs().filter((l) => l.operation === 'graphql CachedSets').length === 3);
      const line = serve.logs().find((l) => l.operation === 'graphql CachedSets')!;
      assert.deepEqual(
        { operation: line.operation, method: line.method, url: line.url, route: line.route, status: line.status },
        { operation: 'graphql CachedSets', method: 'POST', url: '/graphql', route: '/graphql', status: 200 },
      );
    });
  });
}

describe('/graphql under the rate limit', () => {
  test('the same limit as REST, counted across both doors, with a GraphQL body', { timeout: 120_000 }, async () => {
    const ts = await createTestStore(STORE_KINDS[0]!);
    const serve = await startServe([...ts.args, '--rate-limit-max', '2']);
    try {
      assert.equal((await get(`${serve.url}/api/v2/referral-sets`)).status, 200);
      assert.equal((await postGraphql(serve.url, { query: '{ __typename }' })).status, 200);
      const limited = await postGraphql(serve.url, { query: '{ __typename }' });
      assert.equal(limited.status, 429);
      const [error] = (limited.body as { errors: { message: string; extensions: unknown }[] }).errors;
      assert.match(error!.message, /^Resource exhausted error: more than 2 requests in 60000 ms from this client, retry in \d+ s$/);
      assert.deepEqual(error!.extensions, { code: 8, type: 'ResourceExhausted' });
    } finally {
      await serve.stop();
      await ts.drop();
    }
  });
});
