/**
 * GET /api/v2/openapi.json on both stores: a valid OpenAPI document (checked by
 * @apidevtools/swagger-parser) that lists every query parameter of contract §2 under both
 * spellings with its type, and nothing the service does not parse.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Store } from '../../src/db/store.js';
import type { OpenApiDocument, ParameterObject, SchemaObject } from '../../src/contract/openapi.js';
import { SchemaChecker } from '../helpers/openapi.js';
import { get, startServer } from '../helpers/server.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';

type Kind = 'int32' | 'cursor' | 'bool' | 'id' | 'uint32' | 'uint64' | 'ids';

/** Contract §2, written out independently of the operations' tables. */
const PAGINATION: [string, Kind][] = [
  ['pagination.first', 'int32'],
  ['pagination.after', 'cursor'],
  ['pagination.last', 'int32'],
  ['pagination.before', 'cursor'],
  ['pagination.newestFirst', 'bool'],
  ['pagination.newest_first', 'bool'],
];
const CONTRACT: Record<string, { operationId: string; query: [string, Kind][] }> = {
  '/api/v2/referral-sets': {
    operationId: 'TradingDataService_ListReferralSets',
    query: [...PAGINATION, ['referralSetId', 'id'], ['referral_set_id', 'id'], ['referrer', 'id'], ['referee', 'id']],
  },
  '/api/v2/teams/{teamId}/stats': {
    operationId: 'TradingDataService_ListTeamMembersStatistics',
    query: [...PAGINATION, ['partyId', 'id'], ['party_id', 'id'], ['aggregationEpochs', 'uint64'], ['aggregation_epochs', 'uint64']],
  },
  '/api/v2/rewards/epoch/summaries': {
    operationId: 'TradingDataService_ListEpochRewardSummaries',
    query: [
      ...PAGINATION,
      ['filter.assetIds', 'ids'],
      ['filter.asset_ids', 'ids'],
      ['filter.marketIds', 'ids'],
      ['filter.market_ids', 'ids'],
      ['filter.fromEpoch', 'uint64'],
      ['filter.from_epoch', 'uint64'],
      ['filter.toEpoch', 'uint64'],
      ['filter.to_epoch', 'uint64'],
    ],
  },
  // The team family (family.md §2).
  '/api/v2/teams': {
    operationId: 'TradingDataService_ListTeams',
    query: [...PAGINATION, ['teamId', 'id'], ['team_id', 'id'], ['partyId', 'id'], ['party_id', 'id']],
  },
  '/api/v2/teams/stats': {
    operationId: 'TradingDataService_ListTeamsStatistics',
    query: [...PAGINATION, ['teamId', 'id'], ['team_id', 'id'], ['aggregationEpochs', 'uint64'], ['aggregation_epochs', 'uint64']],
  },
  '/api/v2/teams/referees/{teamId}': { operationId: 'TradingDataService_ListTeamReferees', query: PAGINATION },
  '/api/v2/teams/referees/history/{referee}': { operationId: 'TradingDataService_ListTeamRefereeHistory', query: PAGINATION },
  // The referral family (family.md §2).
  '/api/v2/referral-sets/referees': {
    operationId: 'TradingDataService_ListReferralSetReferees',
    query: [
      ...PAGINATION,
      ['referralSetId', 'id'],
      ['referral_set_id', 'id'],
      ['referrer', 'id'],
      ['referee', 'id'],
      ['aggregationEpochs', 'uint32'],
      ['aggregation_epochs', 'uint32'],
    ],
  },
  '/api/v2/referral-sets/stats': {
    operationId: 'TradingDataService_GetReferralSetStats',
    query: [
      ...PAGINATION,
      ['referralSetId', 'id'],
      ['referral_set_id', 'id'],
      ['atEpoch', 'uint64'],
      ['at_epoch', 'uint64'],
      ['referee', 'id'],
    ],
  },
  '/api/v2/referral-programs/current': { operationId: 'TradingDataService_GetCurrentReferralProgram', query: [] },
};

/** The proto3 optional fields of the messages (family.md §3): left out when unset, so not required. */
const OPTIONAL: Record<string, string[]> = {
  v2Team: ['teamUrl', 'avatarUrl'],
  v2ReferralProgram: ['endedAt'],
  vegaBenefitTier: ['tierNumber'],
};

/** The explorer's endpoints (tag Explorer), listed beside the data-node's operations. */
const EXPLORER: Record<string, { operationId: string; query: string[] }> = {
  '/explorer/api/overview': { operationId: 'Explorer_Overview', query: [] },
  '/explorer/api/assets': { operationId: 'Explorer_ListAssets', query: [] },
  '/explorer/api/teams': { operationId: 'Explorer_ListTeams', query: [...PAGINATION.map(([name]) => name), 'search'] },
};

function assertKind(p: ParameterObject, kind: Kind): void {
  const s = p.schema;
  const where = `${p.name}: ${JSON.stringify(p)}`;
  assert.equal(p.in, 'query', where);
  assert.ok(p.description.length > 0, where);
  switch (kind) {
    case 'int32':
      assert.deepEqual([s.type, s.format], ['integer', 'int32'], where);
      break;
    case 'bool':
      assert.equal(s.type, 'boolean', where);
      assert.equal(s.default, true, where);
      break;
    case 'cursor':
      assert.equal(s.type, 'string', where);
      assert.ok(new RegExp(s.pattern!).test('eyJJRCI6ImFiIn0=') && !new RegExp(s.pattern!).test(''), where);
      break;
    case 'id':
      assert.equal(s.type, 'string', where);
      break;
    case 'uint32':
      // As the gateway documents a uint32.
      assert.deepEqual([s.type, s.format, s.maximum], ['integer', 'int64', 4294967295], where);
      break;
    case 'uint64':
      // As the gateway documents 64-bit integers: strings of decimal digits.
      assert.deepEqual([s.type, s.format], ['string', 'uint64'], where);
      assert.ok(s.pattern && new RegExp(s.pattern).test('18446744073709551615') && !new RegExp(s.pattern).test('1e3'), where);
      break;
    case 'ids':
      assert.equal(s.type, 'array', where);
      assert.equal(s.items?.type, 'string', where);
      assert.equal(p.style, 'form', where);
      assert.equal(p.explode, true, where);
      break;
  }
  if (kind === 'id' || kind === 'ids') {
    const pattern = new RegExp((kind === 'ids' ? s.items! : s).pattern!);
    for (const ok of ['', 'ab', 'ABcd', 'fBTC', 'VOTE']) assert.ok(pattern.test(ok), `${where} accepts ${ok}`);
    for (const bad of ['a', 'zz', 'vote', 'FBTC', 'ab,cd']) assert.ok(!pattern.test(bad), `${where} rejects ${bad}`);
  }
}

/** A value the service must reject for each documented parameter: proof that it parses the key. */
const INVALID: Record<string, string> = { integer: 'abc', boolean: 'yes', string: 'zz', array: 'zz' };

for (const kind of STORE_KINDS) {
  describe(`OpenAPI document on ${kind}`, () => {
    let ts: TestStore;
    let store: Store;
    let server: Awaited<ReturnType<typeof startServer>>;
    let doc: OpenApiDocument;
    before(async () => {
      ts = await createTestStore(kind);
      store = await ts.open();
      server = await startServer(store);
      const res = await get(`${server.url}/api/v2/openapi.json`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      doc = res.body as OpenApiDocument;
    });
    after(async () => {
      await server?.close();
      await store?.close();
      await ts?.drop();
    });

    test('is a valid OpenAPI 3.1 document', async () => {
      assert.equal(doc.openapi, '3.1.0');
      // validate() dereferences its argument in place: give it a copy.
      const api = await SwaggerParser.validate(structuredClone(doc) as never);
      assert.equal((api as { info: { title: string } }).info.title, 'epochview');
      // Every schema also compiles under a strict JSON-schema validator.
      const checker = new SchemaChecker(doc);
      for (const name of Object.keys(doc.components.schemas)) checker.check({ $ref: `#/components/schemas/${name}` }, null);
    });

    test("the data-node's operations and the explorer's endpoints, and only them", () => {
      assert.deepEqual(Object.keys(doc.paths).sort(), [...Object.keys(CONTRACT), ...Object.keys(EXPLORER)].sort());
      for (const [path, c] of [...Object.entries(CONTRACT), ...Object.entries(EXPLORER)]) {
        assert.deepEqual(Object.keys(doc.paths[path]!), ['get'], path);
        assert.equal(doc.paths[path]!.get.operationId, c.operationId);
      }
      for (const [path, c] of Object.entries(EXPLORER)) {
        assert.deepEqual(
          doc.paths[path]!.get.parameters.map((p) => p.name),
          [...c.query, 'pretty'],
          path,
        );
      }
    });

    test('every query parameter of contract §2 under both spellings, typed, and nothing else', () => {
      for (const [path, c] of Object.entries(CONTRACT)) {
        const params = doc.paths[path]!.get.parameters;
        const query = params.filter((p) => p.in === 'query');
        const byName = new Map(query.map((p) => [p.name, p]));
        assert.equal(byName.size, query.length, `${path}: duplicate parameters`);
        for (const [name, kind] of c.query) {
          const p = byName.get(name);
          assert.ok(p, `${path}: ${name} is missing`);
          assertKind(p, kind);
        }
        // The rest: the optional indented-output switch.
        assert.deepEqual(
          query.map((p) => p.name).filter((n) => !c.query.some(([name]) => name === n)),
          ['pretty'],
          path,
        );
        const pathParams = params.filter((p) => p.in === 'path');
        assert.deepEqual(
          pathParams.map((p) => p.name),
          [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
        );
        for (const p of pathParams) assert.equal(p.required, true);
        if (c.query.length > 0) assert.equal(byName.get('pagination.first')!.schema.maximum, 5000);
      }
      const team = doc.paths['/api/v2/teams/{teamId}/stats']!.get.parameters;
      assert.equal(team.find((p) => p.name === 'aggregationEpochs')!.schema.default, '10');
      const teams = doc.paths['/api/v2/teams/stats']!.get.parameters;
      assert.equal(teams.find((p) => p.name === 'aggregationEpochs')!.schema.default, '10');
    });

    test('every documented parameter is parsed by the service: a bad value is a 400', async () => {
      const checker = new SchemaChecker(doc);
      for (const [path, item] of Object.entries(doc.paths)) {
        // No program on an empty store (a 404), and no parameter to parse.
        if (path === '/api/v2/referral-programs/current') continue;
        const base = server.url + path.replace('{teamId}', 'a2').replace('{referee}', 'a2');
        // Documented keys with good values: 200, an empty page without block headers, as documented.
        const ok = await get(`${base}?pagination.first=2&pagination.newest_first=false`);
        assert.equal(ok.status, 200);
        assert.equal(checker.check(checker.responseFor('GET', path, 200).response.content['application/json'].schema, ok.body), null);
        assert.equal(ok.headers.get('x-block-height'), null);
        for (const p of item.get.parameters) {
          if (p.in !== 'query' || p.name === 'pretty') continue;
          // Free text (the explorer's search) has no invalid value.
          if (p.schema.type === 'string' && p.schema.pattern === undefined) continue;
          const bad = INVALID[p.schema.type!]!;
          const res = await get(`${base}?${encodeURIComponent(p.name)}=${bad}`);
          assert.equal(res.status, 400, `${path} ${p.name}=${bad}: ${res.text}`);
          assert.equal((res.body as { code: number }).code, 3);
          // The same key in other case is unknown to the service, hence ignored.
          const other = p.name.replace(/[a-z]/, (c) => c.toUpperCase());
          assert.equal((await get(`${base}?${encodeURIComponent(other)}=${bad}`)).status, 200, `${path} ${other}`);
        }
      }
    });

    test('responses: schemas in proto order, 64-bit integers as strings, errors, block headers', () => {
      const checker = new SchemaChecker(doc);
      const props = (name: string) => Object.keys(checker.resolve<SchemaObject>({ $ref: `#/components/schemas/${name}` }).properties!);
      assert.deepEqual(props('v2PageInfo'), ['hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor']);
      assert.deepEqual(props('v2ReferralSetEdge'), ['node', 'cursor']);
      assert.deepEqual(props('v2ReferralSetConnection'), ['edges', 'pageInfo']);
      assert.deepEqual(props('v2ReferralSet'), ['id', 'referrer', 'createdAt', 'updatedAt', 'totalMembers']);
      assert.deepEqual(props('v2TeamMemberStatistics'), [
        'partyId',
        'totalQuantumVolume',
        'totalQuantumRewards',
        'quantumRewards',
        'totalGamesPlayed',
        'gamesPlayed',
        'quantumVolumes',
      ]);
      assert.deepEqual(props('v2QuantumRewardsPerEpoch'), ['epoch', 'totalQuantumRewards']);
      assert.deepEqual(props('v2QuantumVolumesPerEpoch'), ['epoch', 'totalQuantumVolumes']);
      assert.deepEqual(props('vegaEpochRewardSummary'), ['epoch', 'assetId', 'marketId', 'rewardType', 'amount']);
      assert.deepEqual(props('googlerpcStatus'), ['code', 'message', 'details']);
      assert.deepEqual(props('vegaErrorDetail'), ['@type', 'code', 'message', 'inner']);
      for (const [schema, field] of [
        ['v2ReferralSet', 'createdAt'],
        ['v2ReferralSet', 'updatedAt'],
        ['v2ReferralSet', 'totalMembers'],
        ['v2TeamMemberStatistics', 'totalGamesPlayed'],
        ['v2QuantumRewardsPerEpoch', 'epoch'],
        ['vegaEpochRewardSummary', 'epoch'],
      ] as const) {
        const s = checker.resolve<SchemaObject>({ $ref: `#/components/schemas/${schema}` }).properties![field]!;
        assert.equal(s.type, 'string', `${schema}.${field}`);
        assert.match(s.format!, /^u?int64$/);
        assert.ok(new RegExp(s.pattern!).test('1709250000250000000') && !new RegExp(s.pattern!).test('1.5'), `${schema}.${field}`);
      }
      for (const name of Object.keys(doc.components.schemas)) {
        const s = doc.components.schemas[name]!;
        if (s.type !== 'object') continue;
        assert.equal(s.additionalProperties, false, name);
        assert.deepEqual(
          s.required,
          Object.keys(s.properties!).filter((p) => !OPTIONAL[name]?.includes(p)),
          name,
        );
      }
      const codes: Record<string, number> = { '400': 3, '404': 5, '429': 8, '500': 13, '501': 12, '503': 14, '504': 4 };
      for (const [path, item] of Object.entries(doc.paths)) {
        const responses = item.get.responses;
        assert.deepEqual(Object.keys(responses).sort(), ['200', '400', '404', '429', '500', '501', '503', '504'], path);
        const ok = checker.resolve(responses['200']!);
        assert.deepEqual(Object.keys(ok.headers ?? {}), ['X-Block-Height', 'X-Block-Timestamp', 'ETag', 'Cache-Control'], path);
        for (const [status, code] of Object.entries(codes)) {
          const r = checker.resolve(responses[status]!);
          const schema = r.content['application/json'].schema;
          const details =
            status === '500' ? [{ '@type': 'type.googleapis.com/vega.ErrorDetail', code: 10000, message: 'm', inner: '' }] : [];
          assert.equal(checker.check(schema, { code, message: 'm', details }), null, `${path} ${status}`);
          assert.notEqual(checker.check(schema, { code: code + 1, message: 'm', details }), null, `${path} ${status} other code`);
          assert.notEqual(checker.check(schema, { code, message: 'm', details, extra: 1 }), null, `${path} ${status} extra key`);
          assert.notEqual(checker.check(schema, { code, details }), null, `${path} ${status} no message`);
        }
      }
    });
  });
}
