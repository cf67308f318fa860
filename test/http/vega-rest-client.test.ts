/**
 * Vega's generated REST client (@vegaprotocol/rest-clients, generated from the data-node's OpenAPI
 * document) in a process of its own (vega-rest-client.mjs), against a real `serve` of the demo
 * chain on both stores: its ReferralProgramService, TeamsService and RewardsService methods for
 * every operation we answer. Each call must reach the route the data-node has for it (the client's
 * answer equals ours for the URL the contract gives), and each answer must validate against the
 * data-node's own OpenAPI document that ships with the client (the v0.76 document: its schemas
 * check types and formats, not field order or presence).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import type { OpenApiDocument } from '../../src/contract/openapi.js';
import { runNode } from '../helpers/cli.js';
import { SchemaChecker } from '../helpers/openapi.js';
import { useDemoServe } from '../helpers/served-store.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS } from '../helpers/stores.js';

const CLIENT = fileURLToPath(new URL('vega-rest-client.mjs', import.meta.url));
const DATA_NODE_DOC = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve('@vegaprotocol/rest-clients/openapi/trading_data_v2.openapi.json'), 'utf8'),
) as OpenApiDocument;
const checker = new SchemaChecker(DATA_NODE_DOC);

/** A call of the client, and the URL (path and query) the contract gives for the same request. */
interface Call {
  service: string;
  method: string;
  args: unknown[];
  url: string;
}

interface ClientResult {
  status?: number;
  body: unknown;
}

async function callClient(base: string, calls: Call[]): Promise<ClientResult[]> {
  const res = await runNode([CLIENT, base], {
    stdin: JSON.stringify(calls.map(({ service, method, args }) => ({ service, method, args }))),
  });
  assert.equal(res.code, 0, res.stderr);
  return JSON.parse(res.stdout) as ClientResult[];
}

/** The calls of the operations we answer, with the demo chain's example ids. */
function calls(ex: Record<string, string>, referrer: string, teamMember: string, refereesSet: string, lastEndedEpoch: number): Call[] {
  const { referralSetId, referee, teamId, teamEpochs, assetId } = ex as Record<string, string>;
  const u = undefined;
  return [
    // ReferralProgramService
    {
      service: 'ReferralProgramService',
      method: 'tradingDataServiceListReferralSets',
      args: [referralSetId],
      url: `/api/v2/referral-sets?referralSetId=${referralSetId}`,
    },
    {
      service: 'ReferralProgramService',
      method: 'tradingDataServiceListReferralSets',
      args: [u, 3, u, u, u, false],
      url: '/api/v2/referral-sets?pagination.first=3&pagination.newestFirst=false',
    },
    {
      service: 'ReferralProgramService',
      method: 'tradingDataServiceListReferralSets',
      args: [u, u, u, u, u, u, referrer],
      url: `/api/v2/referral-sets?referrer=${referrer}`,
    },
    {
      service: 'ReferralProgramService',
      method: 'tradingDataServiceListReferralSets',
      args: [u, u, u, u, u, u, u, referee],
      url: `/api/v2/referral-sets?referee=${referee}`,
    },
    {
      service: 'ReferralProgramService',
      method: 'tradingDataServiceListReferralSetReferees',
      args: [refereesSet, u, u, u, u, u, u, u, 30],
      url: `/api/v2/referral-sets/referees?referralSetId=${refereesSet}&aggregationEpochs=30`,
    },
    {
      service: 'ReferralProgramService',
      method: 'tradingDataServiceListReferralSetReferees',
      args: [u, 10, u, u, u, false],
      url: '/api/v2/referral-sets/referees?pagination.first=10&pagination.newestFirst=false',
    },
    {
      service: 'ReferralProgramService',
      method: 'tradingDataServiceGetReferralSetStats',
      args: [u, u, u, 10],
      url: '/api/v2/referral-sets/stats?pagination.first=10',
    },
    {
      service: 'ReferralProgramService',
      method: 'tradingDataServiceGetCurrentReferralProgram',
      args: [],
      url: '/api/v2/referral-programs/current',
    },
    // TeamsService
    { service: 'TeamsService', method: 'tradingDataServiceListTeams', args: [u, u, 5], url: '/api/v2/teams?pagination.first=5' },
    { service: 'TeamsService', method: 'tradingDataServiceListTeams', args: [teamId], url: `/api/v2/teams?teamId=${teamId}` },
    { service: 'TeamsService', method: 'tradingDataServiceListTeams', args: [u, teamMember], url: `/api/v2/teams?partyId=${teamMember}` },
    {
      service: 'TeamsService',
      method: 'tradingDataServiceListTeamsStatistics',
      args: [u, '30', 5],
      url: '/api/v2/teams/stats?aggregationEpochs=30&pagination.first=5',
    },
    { service: 'TeamsService', method: 'tradingDataServiceListTeamReferees', args: [teamId], url: `/api/v2/teams/referees/${teamId}` },
    {
      service: 'TeamsService',
      method: 'tradingDataServiceListTeamRefereeHistory',
      args: [teamMember],
      url: `/api/v2/teams/referees/history/${teamMember}`,
    },
    {
      service: 'TeamsService',
      method: 'tradingDataServiceListTeamMembersStatistics',
      args: [teamId, u, teamEpochs],
      url: `/api/v2/teams/${teamId}/stats?aggregationEpochs=${teamEpochs}`,
    },
    // RewardsService
    {
      service: 'RewardsService',
      method: 'tradingDataServiceListEpochRewardSummaries',
      args: [[assetId], u, String(lastEndedEpoch - 2), String(lastEndedEpoch), 20],
      url: `/api/v2/rewards/epoch/summaries?filter.assetIds=${assetId}&filter.fromEpoch=${lastEndedEpoch - 2}&filter.toEpoch=${lastEndedEpoch}&pagination.first=20`,
    },
  ];
}

for (const kind of STORE_KINDS) {
  describe(`Vega's generated REST client on ${kind}`, () => {
    const demo = useDemoServe(kind);

    test('every call reaches its route and its answer validates against the data-node document', { timeout: 60_000 }, async () => {
      const overview = (await get(`${demo.serve.url}/explorer/api/overview`)).body as {
        examples: Record<string, string>;
        lastEndedEpoch: string;
      };
      const assets = (await get(`${demo.serve.url}/explorer/api/assets`)).body as { assets: { id: string }[] };
      const examples: Record<string, string> = { ...overview.examples, assetId: assets.assets[0]!.id };
      const { referralSetId, teamId } = examples;
      const set = (await get(`${demo.serve.url}/api/v2/referral-sets?referralSetId=${referralSetId}`)).body as {
        referralSets: { edges: { node: { referrer: string } }[] };
      };
      const members = (await get(`${demo.serve.url}/api/v2/teams/referees/${teamId}`)).body as {
        teamReferees: { edges: { node: { referee: string } }[] };
      };
      const teamMember = members.teamReferees.edges[0]!.node.referee;
      // The example set may have no referee left: the set of the first referee listed.
      const referees = (await get(`${demo.serve.url}/api/v2/referral-sets/referees?pagination.first=1`)).body as {
        referralSetReferees: { edges: { node: { referralSetId: string } }[] };
      };
      const refereesSet = referees.referralSetReferees.edges[0]!.node.referralSetId;
      const list = calls(examples, set.referralSets.edges[0]!.node.referrer, teamMember, refereesSet, Number(overview.lastEndedEpoch));
      const results = await callClient(demo.serve.url, list);
      for (const [i, call] of list.entries()) {
        const ours = await get(demo.serve.url + call.url);
        assert.equal(ours.status, 200, `${call.url}: ${JSON.stringify(ours.body)}`);
        assert.deepEqual(results[i], { body: ours.body }, `${call.method}(${JSON.stringify(call.args)}) against ${call.url}`);
        const edges = (Object.values(ours.body as object)[0] as { edges?: unknown[] }).edges;
        assert.ok(edges === undefined || edges.length > 0, `${call.url}: the demo chain has rows for it`);
        const { response } = checker.responseFor('GET', call.url, 200);
        const schema = response.content?.['application/json']?.schema;
        assert.ok(schema, `${call.url}: the data-node documents its answer`);
        assert.equal(checker.check(schema, ours.body), null, `${call.url} against the data-node's document`);
      }
    });

    test("an error reaches the client as the data-node's status and body", async () => {
      const call: Call = {
        service: 'ReferralProgramService',
        method: 'tradingDataServiceListReferralSets',
        args: ['zz'],
        url: '/api/v2/referral-sets?referralSetId=zz',
      };
      const [result] = await callClient(demo.serve.url, [call]);
      const ours = await get(demo.serve.url + call.url);
      assert.equal(ours.status, 400);
      assert.deepEqual(result, { status: 400, body: ours.body });
      const { response } = checker.responseFor('GET', call.url, 500);
      assert.equal(checker.check(response.content!['application/json']!.schema!, ours.body), null);
    });
  });
}
