/**
 * The OpenAPI document against real answers: every entry of test/fixtures (status and body)
 * must match the documented response schema for its status, strictly (ajv: every field required,
 * no other field, types and patterns) and in proto key order. On both stores, the service's live
 * answers to the same requests, headers included, must match the document it serves. The
 * document's own examples must match their schemas and still equal the fixtures they came from.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROUTES } from '../../src/http/routes.js';
import type { Store } from '../../src/db/store.js';
import {
  deadlineExceeded,
  internalError,
  invalidArgument,
  invalidPagination,
  methodNotAllowed,
  notFound,
  parseError,
  rateLimited,
  tooManyValues,
  unavailable,
  urlTooLong,
  type ApiError,
} from '../../src/contract/errors.js';
import type { HeaderObject, OpenApiDocument, ResponseObject } from '../../src/contract/openapi.js';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { loadExpectations, type Expectation } from '../helpers/fixtures.js';
import { SchemaChecker } from '../helpers/openapi.js';
import type { ReferralSetsBody } from '../helpers/bodies.js';
import { get, startServer } from '../helpers/server.js';
import { createTestStore, DATASETS, STORE_KINDS, type TestStore } from '../helpers/stores.js';

const FILES = [...DATASETS, 'errors'] as const;
const FIXTURE_SETS = Object.fromEntries(FILES.map((f) => [f, loadExpectations(f)])) as Record<(typeof FILES)[number], Expectation[]>;

// The document as the server builds it (the live tests below use the one it serves).
const DOC = buildOpenApiDocument(ROUTES);

/** Checks one answer against the document: schema, key order; returns the operation matched. */
function assertDocumented(
  checker: SchemaChecker,
  method: string,
  request: string,
  status: number,
  body: unknown,
  what: string,
): ResponseObject {
  const { response } = checker.responseFor(method, request, status);
  const schema = response.content['application/json'].schema;
  const error = checker.check(schema, body);
  assert.equal(error, null, `${what}: ${error}\n${JSON.stringify(body)}`);
  const order = checker.keyOrderMismatch(schema, body);
  assert.equal(order, null, `${what}: ${order}`);
  return response;
}

describe('fixtures against the OpenAPI document', () => {
  const checker = new SchemaChecker(DOC);

  for (const file of FILES) {
    test(`every entry of ${file}.expected.json matches its documented response`, () => {
      const entries = FIXTURE_SETS[file];
      assert.ok(entries.length > 0);
      for (const e of entries) assertDocumented(checker, e.method ?? 'GET', e.request, e.status, e.body, `${file}: ${e.name}`);
    });
  }

  test('every status the fixtures use is documented for its operation', () => {
    const statuses = new Set(FILES.flatMap((f) => FIXTURE_SETS[f].map((e) => e.status)));
    assert.deepEqual([...statuses].sort(), [200, 400, 404, 501]);
  });

  test('the check fails on answers that break the schema', () => {
    const sets = FIXTURE_SETS['referral-sets'].find((e) => e.name === 'tie: first=2 oldest first')!;
    const summaries = FIXTURE_SETS['epoch-summaries'].find((e) => e.name === 'research pagination matrix: first=3 newestFirst=false')!;
    const stats = FIXTURE_SETS['team-stats'].find((e) => e.name === 'data-node test: team2, partyId=member21')!;
    const bad = FIXTURE_SETS.errors.find((e) => e.name === 'pagination: first=0')!;
    // biome-ignore lint/suspicious/noExplicitAny: each mutation reaches into the fixture's JSON by the path it breaks; typing every answer's shape here would only add casts
    const mutations: [Expectation, string, (b: any) => void][] = [
      [sets, 'extra field in a node', (b) => (b.referralSets.edges[0].node.extra = 1)],
      [sets, 'missing field in a node', (b) => delete b.referralSets.edges[0].node.totalMembers],
      [sets, 'int64 as a number', (b) => (b.referralSets.edges[0].node.createdAt = 1709250000250000000)],
      [sets, 'uppercase id', (b) => (b.referralSets.edges[0].node.id = b.referralSets.edges[0].node.id.toUpperCase())],
      [sets, 'missing pageInfo field', (b) => delete b.referralSets.pageInfo.endCursor],
      [sets, 'cursor not base64', (b) => (b.referralSets.edges[0].cursor = 'not base64!')],
      [sets, 'extra top-level key', (b) => (b.extra = [])],
      [summaries, 'amount with an exponent', (b) => (b.summaries.edges[0].node.amount = '1e3')],
      [summaries, 'epoch not digits', (b) => (b.summaries.edges[0].node.epoch = '-1')],
      [stats, 'game id with a well-known name', (b) => (b.statistics.edges[0].node.gamesPlayed = ['fBTC'])],
      [stats, 'missing epoch entry field', (b) => delete b.statistics.edges[0].node.quantumVolumes[0].totalQuantumVolumes],
      [bad, 'wrong gRPC code', (b) => (b.code = 13)],
      [bad, 'detail without @type', (b) => delete b.details[0]['@type']],
      [bad, 'detail code as a string', (b) => (b.details[0].code = '10028')],
    ];
    for (const [e, what, mutate] of mutations) {
      const body = structuredClone(e.body);
      mutate(body);
      const { response } = checker.responseFor(e.method ?? 'GET', e.request, e.status);
      assert.notEqual(checker.check(response.content['application/json'].schema, body), null, what);
    }
    // Same fields in another order: valid JSON-schema-wise, caught by the order check.
    const reordered = structuredClone(sets.body) as ReferralSetsBody;
    const { id, ...rest } = reordered.referralSets.edges[0]!.node;
    reordered.referralSets.edges[0]!.node = { ...rest, id };
    const { response } = checker.responseFor('GET', sets.request, 200);
    assert.notEqual(checker.keyOrderMismatch(response.content['application/json'].schema, reordered), null);
  });

  test('every error the service builds matches the documented response for its status', () => {
    const errors: ApiError[] = [
      parseError('parsing field "first": strconv.ParseInt: parsing "abc": invalid syntax'),
      invalidPagination('cannot set both a before and after cursor'),
      invalidArgument(140001, 'failed to get summary', 'could not decode asset ID: x'),
      notFound(),
      methodNotAllowed(),
      unavailable(),
      internalError(10000, 'failed to list referral sets'),
      urlTooLong(9000, 8192),
      tooManyValues('filter.assetIds', 101, 100),
      deadlineExceeded(10_000),
      rateLimited(100, 60_000, 12),
    ];
    for (const err of errors) {
      for (const path of Object.keys(DOC.paths)) {
        assertDocumented(checker, 'GET', path, err.status, err.toBody(), `${err.status} ${err.message} on ${path}`);
      }
    }
  });

  test("the document's examples match their schemas and the fixtures they were taken from", () => {
    const all = FILES.flatMap((f) => FIXTURE_SETS[f].map((e) => ({ ...e, file: `${f}.expected.json` })));
    let count = 0;
    const responses: [string, ResponseObject][] = [
      ...Object.entries(DOC.paths).flatMap(([path, item]) =>
        Object.entries(item.get.responses).map(([status, r]) => [`${path} ${status}`, checker.resolve(r)] as [string, ResponseObject]),
      ),
      ...Object.entries(DOC.components.responses),
    ];
    for (const [where, r] of responses) {
      const media = r.content['application/json'];
      for (const [key, ex] of Object.entries(media.examples ?? {})) {
        count++;
        assert.equal(checker.check(media.schema, ex.value), null, `${where} example ${key}`);
        assert.equal(checker.keyOrderMismatch(media.schema, ex.value), null, `${where} example ${key}`);
        const from = /\(fixture `([^`]+)`\)$/.exec(ex.description);
        if (!from) continue;
        const fixture = all.find((e) => e.file === from[1] && e.name === ex.summary);
        assert.ok(fixture, `${where} example ${key}: no fixture ${from[1]} ${ex.summary}`);
        assert.deepEqual(ex.value, fixture.body, `${where} example ${key}`);
        assert.ok(ex.description.startsWith(`\`${fixture.method ?? 'GET'} ${fixture.request}\``), `${where} example ${key}`);
      }
    }
    assert.ok(count >= 20, `only ${count} examples`);
  });
});

for (const kind of STORE_KINDS) {
  for (const dataset of DATASETS) {
    describe(`live ${dataset} answers on ${kind} match the served OpenAPI document`, () => {
      let ts: TestStore;
      let store: Store;
      let server: Awaited<ReturnType<typeof startServer>>;
      let checker: SchemaChecker;
      before(async () => {
        ts = await createTestStore(kind, { dataset });
        store = await ts.open();
        server = await startServer(store);
        checker = new SchemaChecker((await get(`${server.url}/api/v2/openapi.json`)).body as OpenApiDocument);
      });
      after(async () => {
        await server?.close();
        await store?.close();
        await ts?.drop();
      });

      test('every fixture request: status, body and headers as documented', async () => {
        const cases = [...FIXTURE_SETS[dataset], ...FIXTURE_SETS.errors.filter((e) => e.dataset === dataset)];
        for (const c of cases) {
          const method = c.method ?? 'GET';
          const res = await get(server.url + c.request, { method });
          assert.equal(res.status, c.status, `${c.name}: ${res.text}`);
          const response = assertDocumented(checker, method, c.request, res.status, res.body, `${c.name} (live)`);
          assert.equal(res.headers.get('content-type'), 'application/json', c.name);
          if (res.status === 200) {
            for (const [name, h] of Object.entries(response.headers ?? {})) {
              const header = checker.resolve<HeaderObject>(h);
              const value = res.headers.get(name);
              assert.ok(value !== null, `${c.name}: ${name} missing`);
              assert.equal(checker.check(header.schema, value), null, `${c.name}: ${name}: ${value}`);
            }
          }
        }
      });
    });
  }
}
