/**
 * Bad input at random, with fast-check: requests to every REST route, GraphQL documents by GET and
 * POST, gRPC messages of every method made and broken, on a real `serve` of each store; broken
 * event bytes through the decoders; and chains whose events carry odd values, through `ingest`.
 * Whatever arrives gets an answer of the contract (a status under 500, a well-formed body, no
 * internal text) and the process lives on; the decoders refuse broken bytes with an InputError and
 * nothing else; ingest applies a chain or stops at the bad event with a clear message, and what it
 * applied is served.
 *
 * The seed is fixed, so that a run is repeatable; EPOCHVIEW_FUZZ_SEED takes another, and
 * EPOCHVIEW_FUZZ_RUNS multiplies the runs (a long hunt: EPOCHVIEW_FUZZ_RUNS=50). A failure names
 * the seed, the path to replay and the input, shrunk to a small one.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type protobuf from 'protobufjs';
import { eventFileChunks } from '../src/demo/evts.js';
import { ROUTES } from '../src/http/routes.js';
import { createDecoder, type EventFormat } from '../src/sources/input.js';
import { InputError } from '../src/sources/input-error.js';
import { FIXTURES, runCli } from './helpers/cli.js';
import { grpcAddress, METHODS, messageType, rawCall, rawClient, SERVICE, status } from './helpers/grpc.js';
import { type ServeProcess, startServe } from './helpers/serve.js';
import { get, startServer } from './helpers/server.js';
import { createTestStore, DATASETS, STORE_KINDS, type TestStore } from './helpers/stores.js';

const SEED = Number(process.env.EPOCHVIEW_FUZZ_SEED ?? 20261129);
const TIMES = Number(process.env.EPOCHVIEW_FUZZ_RUNS ?? 1);
const runs = (n: number) => ({ seed: SEED, numRuns: n * TIMES });

/** A team of the `teams` fixture, so that some requests reach real rows. */
const TEAM = 'd1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1';
const ODD = ['', '0', '-1', 'zz', 'network', '%00', '\u0000', 'é', '\u{1F600}', '\u202e', ' 1', '१२', "'; --", '<b>', 'x'.repeat(3000)];
const NUMBERS = [
  '0',
  '1',
  '-1',
  '5000',
  '5001',
  '9223372036854775807',
  '9223372036854775808',
  '18446744073709551616',
  '1e3',
  '1.5',
  '01',
  '+1',
  '0x10',
];

const hexText = (max: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), maxLength: max });
const idLike = fc.oneof(fc.constant(TEAM), hexText(70), fc.constantFrom(...ODD), fc.string());
const numberLike = fc.oneof(fc.constantFrom(...NUMBERS), fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String));
const base64 = (text: fc.Arbitrary<string>) =>
  fc.tuple(text, fc.boolean()).map(([t, url]) => Buffer.from(t).toString(url ? 'base64url' : 'base64'));
/** Cursors: any JSON, the shapes of real ones with odd values, and text that is not base64. */
const cursorLike = fc.oneof(
  base64(fc.json()),
  base64(
    fc
      .record({
        CreatedAt: fc.oneof(
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          fc.string(),
        ),
        ID: idLike,
      })
      .map((o) => JSON.stringify(o)),
  ),
  base64(fc.record({ EpochID: numberLike, AssetID: idLike, MarketID: idLike, RewardType: fc.string() }).map((o) => JSON.stringify(o))),
  // The referral family's: a referee's, a set's statistics, a team referee's history, a team member's
  // (numbers written raw, as the reference writes them: past 64 bits too).
  base64(
    fc.record({ JoinedAt: fc.oneof(fc.constant('9999-12-31T23:59:59Z'), fc.string()), Referee: idLike }).map((o) => JSON.stringify(o)),
  ),
  base64(
    fc
      .tuple(fc.string(), numberLike, idLike, idLike)
      .map(
        ([time, epoch, set, party]) =>
          `{"VegaTime":${JSON.stringify(time)},"AtEpoch":${epoch},"SetID":${JSON.stringify(set)},"PartyID":${JSON.stringify(party)}}`,
      ),
  ),
  base64(numberLike.map((n) => `{"JoinedAtEpoch":${n}}`)),
  base64(idLike.map((party) => JSON.stringify({ PartyID: party }))),
  fc.string(),
);
/** A query-string value: encoded, or with broken escapes left in as sent. */
const valueLike = fc.oneof(
  fc.oneof(idLike, numberLike, fc.constantFrom('true', 'false', 'TRUE', ''), cursorLike).map(encodeURIComponent),
  fc.constantFrom('%', '%zz', '%C3%28', '%F0%9F%98', '%E0%A4', '+', '%2B%2B'),
);
const KEYS = [
  ...['first', 'last', 'after', 'before', 'newestFirst', 'newest_first'].map((k) => `pagination.${k}`),
  ...['assetIds', 'asset_ids', 'marketIds', 'market_ids', 'fromEpoch', 'from_epoch', 'toEpoch', 'to_epoch'].map((k) => `filter.${k}`),
  'referrer',
  'referee',
  'id',
  'teamId',
  'partyId',
  'aggregationEpochs',
  'referralSetId',
  'epoch',
  'atEpoch',
  'at_epoch',
  'aggregation_epochs',
  'referral_set_id',
  'team_id',
  'party_id',
  'search',
  'pagination',
  '',
  '__proto__',
  'constructor',
];
const queryLike = fc
  .array(fc.tuple(fc.constantFrom(...KEYS), valueLike), { maxLength: 5 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));
/** Every route of the API and the explorer, its path parameters to fill (the routes table: a new route is fuzzed too). */
const PATHS = ROUTES.map((r) => r.path);
const urlLike = fc
  .tuple(fc.constantFrom(...PATHS), idLike, queryLike)
  .map(([path, id, query]) => `${path.replace(/:\w+/g, encodeURIComponent(id) || 'x')}${query ? `?${query}` : ''}`);

/** GraphQL documents the apps send, to break. */
const DOCUMENTS = [
  '{ referralSets(pagination: {first: 2}) { edges { node { id referrer } cursor } pageInfo { hasNextPage endCursor } } }',
  `{ teamMembersStatistics(teamId: "${TEAM}", aggregationEpochs: 3) { edges { node { partyId totalQuantumVolume } } } }`,
  '{ epochRewardSummaries(filter: {assetIds: ["a"]}, pagination: {last: 2}) { edges { node { epoch amount rewardType } } } }',
  '{ teams { edges { node { teamId name teamUrl avatarUrl totalMembers } } } }',
  '{ teamsStatistics(aggregationEpochs: 30) { edges { node { teamId totalQuantumRewards quantumRewards { epoch } } } } }',
  `{ teamReferees(teamId: "${TEAM}") { edges { node { referee joinedAt } } } }`,
  `{ teamRefereeHistory(referee: "${TEAM}") { edges { node { teamId } } } }`,
  'query Q($n: Int, $id: ID) { referralSets(id: $id, pagination: {first: $n}) { edges { cursor } } }',
  '{ referralSetReferees(aggregationEpochs: 30, pagination: {first: 2}) { edges { node { refereeId totalRefereeGeneratedRewards } cursor } } }',
  `{ referralSetStats(setId: "${TEAM}", epoch: 2) { edges { node { partyId discountFactors { makerFactor } } } } }`,
  '{ currentReferralProgram { id version benefitTiers { minimumEpochs referralRewardFactors { makerFactor } } endedAt } }',
];
const TOKENS = [
  '{',
  '}',
  '(',
  ')',
  ':',
  '"',
  '$n',
  '...on X',
  '@skip',
  'first: -1',
  'first: 99999999999',
  'first: "x"',
  '__typename',
  '#',
  '\\u0000',
  'a'.repeat(2000),
];
const documentLike = fc
  .tuple(fc.constantFrom(...DOCUMENTS), fc.nat(), fc.constantFrom(...TOKENS), fc.constantFrom('truncate', 'insert', 'replace', 'keep'))
  .map(([doc, n, token, how]) => {
    const at = n % (doc.length + 1);
    if (how === 'truncate') return doc.slice(0, at);
    if (how === 'insert') return doc.slice(0, at) + token + doc.slice(at);
    if (how === 'replace') return doc.slice(0, at) + token + doc.slice(at + token.length);
    return doc;
  });
const variablesLike = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue(),
  fc.record({ n: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null)), id: fc.oneof(idLike, fc.integer()) }),
);

/** A request message of `type` with any of its fields set to values of their types, odd ones included. */
function messageLike(type: protobuf.Type, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of type.fieldsArray) {
    f.resolve();
    const one = valueOfField(f, depth);
    if (one) fields[f.name] = f.repeated ? fc.array(one, { maxLength: 3 }) : one;
  }
  return fc.record(fields, { requiredKeys: [] });
}

function valueOfField(f: protobuf.Field, depth: number): fc.Arbitrary<unknown> | undefined {
  const resolved = f.resolvedType;
  if (resolved && 'fieldsArray' in resolved) return depth < 3 ? messageLike(resolved, depth + 1) : undefined;
  if (resolved && 'values' in resolved) return fc.oneof(fc.constantFrom(...Object.values(resolved.values)), fc.integer());
  switch (f.type) {
    case 'string':
      return fc.oneof(idLike, numberLike, cursorLike);
    case 'bool':
      return fc.boolean();
    case 'uint64':
    case 'int64':
      return fc
        .bigInt({ min: f.type === 'int64' ? -(2n ** 63n) : 0n, max: f.type === 'int64' ? 2n ** 63n - 1n : 2n ** 64n - 1n })
        .map(String);
    default:
      return fc.integer({ min: f.type.startsWith('u') ? 0 : -(2 ** 31), max: f.type.startsWith('u') ? 2 ** 32 - 1 : 2 ** 31 - 1 });
  }
}

/** Bytes broken: cut short, bits flipped, bytes added (an unknown field, a length past the end), or left whole. */
const broken = (bytes: Uint8Array) =>
  fc.oneof(
    fc.constant(Buffer.from(bytes)),
    fc.nat(bytes.length).map((n) => Buffer.from(bytes.subarray(0, n))),
    fc.array(fc.tuple(fc.nat(), fc.nat(7)), { minLength: 1, maxLength: 4 }).map((flips) => {
      const b = Buffer.from(bytes);
      for (const [at, bit] of flips) if (b.length) b[at % b.length]! ^= 1 << bit;
      return b;
    }),
    fc.uint8Array({ minLength: 1, maxLength: 12 }).map((tail) => Buffer.concat([bytes, tail])),
  );

const grpcCall = fc.constantFrom(...METHODS).chain((m) =>
  fc
    .oneof(
      messageLike(messageType(m.request)).chain((value) =>
        broken(messageType(m.request).encode(messageType(m.request).fromObject(value)).finish()),
      ),
      fc.uint8Array({ maxLength: 48 }).map((b) => Buffer.from(b)),
    )
    .map((request) => ({ method: m, request })),
);

/** An answer body as an API error of the contract: {code, message, details[]}. */
function assertApiError(body: string, what: string): void {
  const parsed = JSON.parse(body) as { code?: unknown; message?: unknown; details?: unknown };
  assert.equal(typeof parsed.code, 'number', what);
  assert.equal(typeof parsed.message, 'string', what);
  assert.ok(Array.isArray(parsed.details), what);
}

/** Text that only code, not a client's input, could have put in an answer. */
const INTERNAL_TEXT = /\n\s+at |\.[tj]s:\d+|node_modules|TypeError|RangeError|ReferenceError|undefined/;

for (const kind of STORE_KINDS) {
  describe(`random bad input on ${kind}`, () => {
    let ts: TestStore;
    let serve: ServeProcess;
    before(async () => {
      ts = await createTestStore(kind, { dataset: 'teams' });
      serve = await startServe([...ts.args, '--grpc-port', '0', '--rate-limit-max', '0', '--log-level', 'warn']);
    });
    after(async () => {
      await serve?.stop();
      await ts?.drop();
    });

    test('REST: any route, path id and query string gets a status under 500 and, for an error, the contract body', async () => {
      await fc.assert(
        fc.asyncProperty(urlLike, async (url) => {
          const res = await get(serve.url + url);
          assert.ok(res.status < 500, `${res.status} for ${url}: ${res.text.slice(0, 300)}`);
          assert.doesNotMatch(res.text, INTERNAL_TEXT, url);
          if (res.status === 200) JSON.parse(res.text);
          else assertApiError(res.text, `${res.status} for ${url}`);
        }),
        runs(400),
      );
    });

    test('GraphQL: broken documents and variables, by GET and POST, get a status under 500 and errors in the body', async () => {
      await fc.assert(
        fc.asyncProperty(documentLike, variablesLike, fc.boolean(), async (query, variables, post) => {
          const res = post
            ? await get(`${serve.url}/graphql`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ query, variables }),
              })
            : await get(
                `${serve.url}/graphql?query=${encodeURIComponent(query)}${variables === undefined ? '' : `&variables=${encodeURIComponent(JSON.stringify(variables))}`}`,
              );
          const body = res.text;
          const what = `${res.status} for ${post ? 'POST' : 'GET'} ${query} ${JSON.stringify(variables)}: ${body.slice(0, 300)}`;
          assert.ok(res.status < 500, what);
          assert.doesNotMatch(body, INTERNAL_TEXT, what);
          const parsed = JSON.parse(body) as { data?: unknown; errors?: unknown };
          assert.ok(parsed.data !== undefined || Array.isArray(parsed.errors), what);
        }),
        runs(200),
      );
    });

    test('gRPC: made and broken messages of every method get OK or a status of the contract, never an internal one', async () => {
      const client = rawClient(grpcAddress(serve));
      try {
        await fc.assert(
          fc.asyncProperty(grpcCall, async ({ method, request }) => {
            const call = await rawCall(client, `/${SERVICE}/${method.name}`, request, 20_000);
            const what = `${method.name} ${request.toString('hex').slice(0, 200)}: ${call.error?.code} ${call.error?.details}`;
            if (call.error) {
              assert.ok(
                [status.INVALID_ARGUMENT, status.NOT_FOUND, status.OUT_OF_RANGE, status.FAILED_PRECONDITION].includes(call.error.code),
                what,
              );
              assert.doesNotMatch(call.error.details, INTERNAL_TEXT, what);
            } else messageType(method.response).decode(call.response!);
          }),
          runs(300),
        );
      } finally {
        client.close();
      }
    });

    test('after all of it the process still serves', async () => {
      assert.equal(serve.child.exitCode, null, serve.stderr());
      assert.equal((await get(`${serve.url}/readyz`)).status, 200);
    });
  });
}

describe('random broken event bytes', () => {
  const ndjson = readFileSync(`${FIXTURES}teams.ndjson`);
  const evts = Buffer.concat([...eventFileChunks([ndjson.toString()])]);
  const inputs = (format: EventFormat, bytes: Buffer) =>
    fc.tuple(broken(bytes), fc.integer({ min: 1, max: 4096 })).map(([b, chunk]) => ({ format, bytes: b, chunk }));

  test('the decoders refuse them with an InputError, whatever the chunks, or read them', () => {
    fc.assert(
      fc.property(fc.oneof(inputs('evts', evts), inputs('ndjson', ndjson)), ({ format, bytes, chunk }) => {
        const decoder = createDecoder(format, 'fuzz');
        try {
          for (let at = 0; at < bytes.length; at += chunk) for (const _ of decoder.push(bytes.subarray(at, at + chunk)));
          for (const _ of decoder.end());
        } catch (err) {
          if (!(err instanceof InputError)) throw err;
        }
      }),
      runs(300),
    );
  });
});

/** Values a chain could carry where our events expect others: numbers past 64 bits, odd text, other JSON types. */
const chainValue = fc.oneof(
  fc.constantFrom(
    ...ODD,
    ...NUMBERS,
    '340282366920938463463374607431768211456',
    '-9223372036854775809',
    'a'.repeat(100_000),
    'ab'.repeat(32),
  ),
  fc.jsonValue({ maxDepth: 2 }),
  fc.constant(undefined),
);

/** Edits of a fixture chain: which of its events of our kinds, which of their values, and what instead (undefined: left out). */
const oddChain = fc.record({
  dataset: fc.constantFrom(...DATASETS),
  edits: fc.array(fc.tuple(fc.nat(), fc.nat(), chainValue), { minLength: 1, maxLength: 4 }),
});

/** The chain of `dataset` with `edits` made to its events of our kinds, as NDJSON (the JSON stays valid). */
function chainWith(dataset: string, edits: [number, number, unknown][]): string {
  const events = readFileSync(`${FIXTURES}${dataset}.ndjson`, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const ours = events.filter((e) => !/BEGIN_BLOCK|END_BLOCK/.test(String(e.type)));
  for (const [which, where, value] of edits) {
    const event = ours[which % ours.length]!;
    const leaves = leavesOf(event, ['id', 'block', 'type', 'version', 'chainId']);
    // An event whose only value an earlier edit left out has none left to edit.
    if (leaves.length === 0) continue;
    const [parent, key] = leaves[where % leaves.length]!;
    if (value === undefined) delete parent[key];
    else parent[key] = value;
  }
  return `${events.map((e) => JSON.stringify(e)).join('\n')}\n`;
}

/** The places of an object's leaf values, as (the object holding one, its key), but for the top-level `except` keys. */
function leavesOf(o: Record<string, unknown>, except: string[] = []): [Record<string, unknown>, string][] {
  const out: [Record<string, unknown>, string][] = [];
  for (const [k, v] of Object.entries(o)) {
    if (except.includes(k)) continue;
    if (v !== null && typeof v === 'object') out.push(...leavesOf(v as Record<string, unknown>));
    else out.push([o, k]);
  }
  return out;
}

/** Every route that needs no path parameter, and a GraphQL document of the teams' fields. */
const PAGES = [
  ...PATHS.filter((path) => !path.includes(':')),
  `/graphql?query=${encodeURIComponent('{ teams { edges { node { teamId name teamUrl avatarUrl } } } teamsStatistics { edges { node { teamId } } } }')}`,
];

for (const kind of STORE_KINDS) {
  describe(`random odd values in a chain's events on ${kind}`, () => {
    test('ingest applies them or stops at the event with a clear message, and every page of what it applied answers', async () => {
      await fc.assert(
        fc.asyncProperty(oddChain, async ({ dataset, edits }) => {
          const ts = await createTestStore(kind);
          try {
            const res = await runCli(['ingest', '-', ...ts.args], { stdin: chainWith(dataset, edits) });
            assert.ok(res.code === 0 || res.code === 1, `exit ${res.code}: ${res.stderr}`);
            assert.doesNotMatch(res.stderr, INTERNAL_TEXT);
            if (res.code === 1) assert.match(res.stderr, /^error: .*line \d+/m);
            const store = await ts.open();
            const server = await startServer(store);
            try {
              for (const page of PAGES) {
                const answer = await get(server.url + page);
                // The answers hold the chain's own text, so only their status and form are checked.
                assert.ok(answer.status < 500, `${answer.status} for ${page}: ${answer.text.slice(0, 300)}`);
                JSON.parse(answer.text);
              }
            } finally {
              await server.close();
              await store.close();
            }
          } finally {
            await ts.drop();
          }
        }),
        runs(4),
      );
    });
  });
}
