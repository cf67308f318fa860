/**
 * The gRPC door of a real `serve --grpc-port`, on both stores: reflection (v1 and v1alpha), the
 * health service, the statuses of what is not a call we answer (an unknown method, malformed
 * bytes, an oversized request, a wrong content type), a 5,000-row page sent whole, metrics and
 * the request log. On the PostgreSQL server, with a lock holding a statement: client deadlines
 * and the request timeout, a client that goes away mid-call, graceful shutdown, and every worker
 * of --workers answering.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:http2';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import {
  type Client,
  type ClientDuplexStream,
  type ClientReadableStream,
  credentials,
  makeGenericClientConstructor,
  Metadata,
  type ServiceDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { service as healthService } from 'grpc-health-check';
import pg from 'pg';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import { runCli } from '../helpers/cli.js';
import { blockLines, payout } from '../helpers/events.js';
import {
  decode,
  encode,
  grpcAddress,
  type RawCall,
  rawCall,
  rawClient,
  reflectionStubs,
  runPython,
  SERVICE,
  status,
} from '../helpers/grpc.js';
import { eventually, sample, startServe, type ServeProcess } from '../helpers/serve.js';
import { get } from '../helpers/server.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';
import { createPgCluster } from '../../scripts/pg-cluster.js';

const SETS = `/${SERVICE}/ListReferralSets`;
const REFLECTION_CLIENT = fileURLToPath(new URL('./reflection_client.py', import.meta.url));
const SUMMARIES = `/${SERVICE}/ListEpochRewardSummaries`;

/** Ids of the 5,001 summaries of the big page: one per asset. */
const BIG_PAGE_ROWS = 5001;
const bigPageBlock = () =>
  `${blockLines(
    10_000,
    Array.from({ length: BIG_PAGE_ROWS }, (_, i) => payout('7', i.toString(16).padStart(64, '0'), String(1000 + i))),
  ).join('\n')}\n`;

/** The status code and message of a failed call. */
const failure = (call: RawCall) => ({ code: call.error?.code, details: call.error?.details });

type Callback<T> = (error: ServiceError | null, response: T) => void;
interface HealthStub extends Client {
  check(request: { service: string }, callback: Callback<{ status: string }>): void;
  watch(request: { service: string }): ClientReadableStream<{ status: string }>;
}
const HealthClient = makeGenericClientConstructor(healthService, 'Health');
function healthCheck(address: string, service = ''): Promise<{ status?: string; error?: ServiceError }> {
  const client = new HealthClient(address, credentials.createInsecure()) as unknown as HealthStub;
  return new Promise((resolve) =>
    client.check({ service }, (error, response) => {
      client.close();
      resolve(error ? { error } : { status: response.status });
    }),
  );
}

interface ReflectionAnswer {
  list_services_response?: { service: { name: string }[] };
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
}
interface ReflectionStub extends Client {
  ServerReflectionInfo(): ClientDuplexStream<object, ReflectionAnswer>;
}
interface FileDescriptor {
  service?: { name: string; method: { name: string; inputType: string; outputType: string }[] }[];
}

/** Reflection of one version: the services listed, and the methods of the service with their types. */
async function reflect(address: string, version: 'v1' | 'v1alpha'): Promise<{ services: string[]; methods: string[] }> {
  const dir = new URL('../../node_modules/@grpc/reflection/build/proto/', import.meta.url).pathname;
  const pkg = loadSync(`grpc/reflection/${version}/reflection.proto`, { includeDirs: [dir], keepCase: true });
  const Reflection = makeGenericClientConstructor(pkg[`grpc.reflection.${version}.ServerReflection`] as ServiceDefinition, 'R');
  const client = new Reflection(address, credentials.createInsecure()) as unknown as ReflectionStub;
  const ask = (request: object) =>
    new Promise<ReflectionAnswer>((resolve, reject) => {
      const stream = client.ServerReflectionInfo();
      stream.on('data', (d: ReflectionAnswer) => {
        resolve(d);
        stream.end();
      });
      stream.on('error', reject);
      stream.write(request);
    });
  const listed = await ask({ list_services: '' });
  const described = await ask({ file_containing_symbol: SERVICE });
  client.close();
  const files = described.file_descriptor_response!.file_descriptor_proto.map(
    (b) => descriptor.FileDescriptorProto.decode(b) as FileDescriptor,
  );
  const service = files.flatMap((f) => f.service ?? []).find((s) => s.name === 'TradingDataService')!;
  const methods = service.method.map((m) => `${m.name}(${m.inputType}) ${m.outputType}`);
  return { services: listed.list_services_response!.service.map((s) => s.name).sort(), methods };
}

for (const kind of STORE_KINDS) {
  describe(`gRPC on ${kind}`, () => {
    let ts: TestStore;
    let serve: ServeProcess;
    let address: string;
    before(async () => {
      ts = await createTestStore(kind, { dataset: 'referral-sets' });
      const big = await runCli(['ingest', '-', ...ts.args], { stdin: bigPageBlock() });
      assert.equal(big.code, 0, big.stderr);
      serve = await startServe([...ts.args, '--grpc-port', '0', '--demo-on-empty', 'false']);
      address = grpcAddress(serve);
    });
    after(async () => {
      await serve?.stop();
      await ts?.drop();
    });

    test('reflection (v1 and v1alpha) lists the service and describes its methods', async () => {
      for (const version of ['v1', 'v1alpha'] as const) {
        assert.deepEqual(await reflect(address, version), {
          services: [SERVICE, 'grpc.health.v1.Health'],
          methods: [
            'ListReferralSets(.datanode.api.v2.ListReferralSetsRequest) .datanode.api.v2.ListReferralSetsResponse',
            'ListTeamMembersStatistics(.datanode.api.v2.ListTeamMembersStatisticsRequest) .datanode.api.v2.ListTeamMembersStatisticsResponse',
            'ListEpochRewardSummaries(.datanode.api.v2.ListEpochRewardSummariesRequest) .datanode.api.v2.ListEpochRewardSummariesResponse',
            'ListReferralSetReferees(.datanode.api.v2.ListReferralSetRefereesRequest) .datanode.api.v2.ListReferralSetRefereesResponse',
            'GetReferralSetStats(.datanode.api.v2.GetReferralSetStatsRequest) .datanode.api.v2.GetReferralSetStatsResponse',
            'GetCurrentReferralProgram(.datanode.api.v2.GetCurrentReferralProgramRequest) .datanode.api.v2.GetCurrentReferralProgramResponse',
            'ListTeams(.datanode.api.v2.ListTeamsRequest) .datanode.api.v2.ListTeamsResponse',
            'ListTeamsStatistics(.datanode.api.v2.ListTeamsStatisticsRequest) .datanode.api.v2.ListTeamsStatisticsResponse',
            'ListTeamReferees(.datanode.api.v2.ListTeamRefereesRequest) .datanode.api.v2.ListTeamRefereesResponse',
            'ListTeamRefereeHistory(.datanode.api.v2.ListTeamRefereeHistoryRequest) .datanode.api.v2.ListTeamRefereeHistoryResponse',
          ],
        });
      }
    });

    test("reflection is what protoc makes of the .proto files: a strict client (Python's descriptor pool) loads it and calls", async () => {
      await eventually('SERVING', async () => (await healthCheck(address)).status === 'SERVING');
      const run = await runPython([REFLECTION_CLIENT, reflectionStubs(), address]);
      assert.equal(run.code, 0, run.stderr);
      const optional = (name: string) => [name, name.replace(/_(.)/g, (_, c: string) => c.toUpperCase()), true];
      assert.deepEqual(JSON.parse(run.stdout), {
        services: [SERVICE, 'grpc.health.v1.Health'].sort(),
        // The file of the service first, then what it imports, each under the name it is imported by.
        files: [
          ['data-node/api/v2/trading_data.proto', 'datanode.api.v2', ['vega/vega.proto']],
          ['vega/vega.proto', 'vega', []],
        ],
        byFilename: {
          'data-node/api/v2/trading_data.proto': ['data-node/api/v2/trading_data.proto', 'vega/vega.proto'],
          'vega/vega.proto': ['vega/vega.proto'],
          'grpc/health/v1/health.proto': ['grpc/health/v1/health.proto'],
          'datanode_api_v2.proto': status.NOT_FOUND,
        },
        requestFields: [optional('referral_set_id'), optional('pagination'), optional('referrer'), optional('referee')],
        paginationFields: [optional('first'), optional('after'), optional('last'), optional('before'), optional('newest_first')],
        edges: 2,
        firstPresent: true,
        lastPresent: false,
        health: 'SERVING',
      });
    });

    test('health: SERVING for the server and the service, NOT_FOUND for another', async () => {
      await eventually('SERVING', async () => (await healthCheck(address)).status === 'SERVING');
      assert.deepEqual(await healthCheck(address, SERVICE), { status: 'SERVING' });
      assert.equal((await healthCheck(address, 'nope.Service')).error?.code, status.NOT_FOUND);
    });

    test('health Watch: the status on subscribing, then only its changes (not one update per second)', async () => {
      await eventually('SERVING', async () => (await healthCheck(address)).status === 'SERVING');
      const client = new HealthClient(address, credentials.createInsecure()) as unknown as HealthStub;
      const seen: string[] = [];
      const stream = client.watch({ service: SERVICE });
      stream.on('data', (d: { status: string }) => seen.push(d.status));
      stream.on('error', () => {});
      // The store is probed every second: three probes, no change.
      await new Promise((resolve) => setTimeout(resolve, 3500));
      stream.cancel();
      client.close();
      assert.deepEqual(seen, ['SERVING']);
    });

    test('unknown methods and services: UNIMPLEMENTED', async () => {
      const client = rawClient(address);
      for (const path of [`/${SERVICE}/ListMarkets`, `/${SERVICE}/GetVegaTime`, '/nope.Service/Call']) {
        assert.equal((await rawCall(client, path, Buffer.alloc(0))).error?.code, status.UNIMPLEMENTED, path);
      }
      client.close();
    });

    test('malformed bytes: INVALID_ARGUMENT; unknown fields are skipped', async () => {
      const client = rawClient(address);
      const bad = await rawCall(client, SETS, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]));
      assert.equal(bad.error?.code, status.INVALID_ARGUMENT);
      assert.match(bad.error!.details, /^grpc: error unmarshalling request: /);
      // What Go's proto.Unmarshal refuses (field number 0), and what it skips: a known field of another
      // wire type (GetReferralSetStats' at_epoch as fixed64), whatever follows it read.
      assert.deepEqual(failure(await rawCall(client, SETS, Buffer.from([0x00, 0x01]))), {
        code: status.INVALID_ARGUMENT,
        details: 'grpc: error unmarshalling request: field number 0 at byte 0',
      });
      const stats = Buffer.concat([
        Buffer.from([0x11, 1, 0, 0, 0, 0, 0, 0, 0]),
        encode('GetReferralSetStatsRequest', { referralSetId: 'ab' }),
      ]);
      assert.equal((await rawCall(client, `/${SERVICE}/GetReferralSetStats`, stats)).error, null);
      // Field 99 (a varint) and field 2 as first=2: the first is skipped, as proto3 says.
      const unknown = Buffer.concat([Buffer.from([0x98, 0x06, 0x01]), encode('ListReferralSetsRequest', { pagination: { first: 2 } })]);
      const ok = await rawCall(client, SETS, unknown);
      assert.equal(ok.error, null);
      assert.equal(decode('ListReferralSetsResponse', ok.response).referralSets!.edges.length, 2);
      client.close();
    });

    test('a repeated filter over --max-filter-values (100): INVALID_ARGUMENT as REST says it, before any SQL', async () => {
      const client = rawClient(address);
      const ids = (n: number) => Array.from({ length: n }, (_, i) => i.toString(16).padStart(64, '0'));
      const summaries = (filter: object) => rawCall(client, SUMMARIES, encode('ListEpochRewardSummariesRequest', { filter }));
      assert.equal((await summaries({ assetIds: ids(100), marketIds: ids(100) })).error, null);
      // 2,191 ids overflowed the SQL text (INTERNAL); 3,000 of each held the event loop 8 s writing it.
      for (const [filter, field, count] of [
        [{ assetIds: ids(2191) }, 'filter.assetIds', 2191],
        [{ marketIds: ids(101) }, 'filter.marketIds', 101],
        [{ assetIds: ids(3000), marketIds: ids(3000) }, 'filter.assetIds', 3000],
      ] as const) {
        const started = performance.now();
        const over = await summaries(filter);
        assert.deepEqual(failure(over), {
          code: status.INVALID_ARGUMENT,
          details: `too many values for field "${field}": ${count}, the limit is 100`,
        });
        assert.equal(over.error?.metadata.get('grpc-status-details-bin').length, 0, 'no details, as REST');
        assert.ok(performance.now() - started < 1000, 'answered at once');
      }
      client.close();
    });

    test('a request over 4 MiB: RESOURCE_EXHAUSTED; the server answers on', async () => {
      const client = rawClient(address, { 'grpc.max_send_message_length': -1 });
      const huge = encode('ListReferralSetsRequest', { referrer: 'ab'.repeat(2 * 2 ** 20 + 1) });
      assert.equal((await rawCall(client, SETS, huge)).error?.code, status.RESOURCE_EXHAUSTED);
      assert.equal((await rawCall(client, SETS, Buffer.alloc(0))).error, null);
      client.close();
    });

    test('a wrong content type: HTTP 415, no call; the server answers on', async () => {
      const session = connect(`http://${address}`);
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = session.request({ ':method': 'POST', ':path': SETS, 'content-type': 'application/json' });
        let body = '';
        let code = 0;
        req.on('response', (headers) => (code = Number(headers[':status'])));
        req.on('data', (d: Buffer) => (body += d));
        req.on('end', () => resolve({ status: code, body }));
        req.on('error', reject);
        req.end('{}');
      });
      session.close();
      assert.equal(answer.status, 415);
      assert.equal(answer.body, '');
      assert.equal((await healthCheck(address)).status, 'SERVING');
    });

    test('a 5,000-row page is sent whole, with the block headers', async () => {
      const client = rawClient(address, { 'grpc.max_receive_message_length': 64 * 2 ** 20 });
      const call = await rawCall(client, SUMMARIES, encode('ListEpochRewardSummariesRequest', { pagination: { first: 5000 } }));
      assert.equal(call.error, null);
      const page = decode('ListEpochRewardSummariesResponse', call.response).summaries!;
      assert.equal(page.edges.length, 5000);
      assert.equal(page.pageInfo.hasNextPage, true);
      assert.deepEqual(call.headers?.get('x-block-height'), ['10000']);
      assert.match(String(call.headers?.get('x-block-timestamp')[0]), /^\d{19}$/);
      client.close();
    });

    test("1,000-row pages asked together arrive whole: a message's memory is reused only once gRPC copied it", async () => {
      const client = rawClient(address, { 'grpc.max_receive_message_length': 64 * 2 ** 20 });
      const ask = (request: Buffer) => rawCall(client, SUMMARIES, request);
      const all = decode(
        'ListEpochRewardSummariesResponse',
        (await ask(encode('ListEpochRewardSummariesRequest', { pagination: { first: 5000 } }))).response,
      ).summaries!.edges;
      // Pages that differ from their first byte on, each large enough for the pool of bodies.
      const requests = Array.from({ length: 24 }, (_, i) =>
        encode('ListEpochRewardSummariesRequest', { pagination: { first: 1000, after: all[i * 150]!.cursor } }),
      );
      const alone: Buffer[] = [];
      for (const r of requests) alone.push((await ask(r)).response!);
      assert.ok(alone.every((b) => b.length >= 64 * 1024));
      // Encoded one after another while the earlier answers still wait to be written.
      const together = await Promise.all(requests.map(ask));
      assert.deepEqual(
        together.map((c) => c.error),
        requests.map(() => null),
      );
      assert.deepEqual(
        together.map((c) => c.response),
        alone,
      );
      client.close();
    });

    test('/metrics counts calls by method and code; each call has its request log line', async () => {
      const metrics = async () => (await get(`${serve.url}/metrics`)).text;
      const series = (code: string) => `epochview_grpc_requests_total{method="ListReferralSets",code="${code}"}`;
      const before = await metrics();
      const client = rawClient(address);
      await rawCall(client, SETS, encode('ListReferralSetsRequest', { pagination: { first: 1 } }));
      await rawCall(client, SETS, encode('ListReferralSetsRequest', { pagination: { first: 1 } }));
      const bad = await rawCall(client, SETS, encode('ListReferralSetsRequest', { referrer: 'zz' }));
      client.close();
      assert.deepEqual(failure(bad), { code: status.INVALID_ARGUMENT, details: 'InvalidArgument error' });
      const now = await metrics();
      assert.equal((sample(now, series('OK')) ?? 0) - (sample(before, series('OK')) ?? 0), 2);
      assert.equal((sample(now, series('INVALID_ARGUMENT')) ?? 0) - (sample(before, series('INVALID_ARGUMENT')) ?? 0), 1);
      await eventually(
        'the request lines',
        () => serve.logs().filter((l) => l.method === 'gRPC' && l.status === status.INVALID_ARGUMENT).length >= 1,
      );
      const line = serve.logs().find((l) => l.method === 'gRPC' && l.status === status.INVALID_ARGUMENT)!;
      assert.deepEqual(
        { operation: line.operation, url: line.url, route: line.route, msg: line.msg },
        { operation: 'ListReferralSets', url: SETS, route: SETS, msg: 'request' },
      );
    });
  });
}

describe('gRPC on a PostgreSQL server: deadlines, a vanishing client, shutdown, workers, an outage', {
  skip: !STORE_KINDS.includes('postgres'),
}, () => {
  let ts: TestStore;
  before(async () => {
    ts = await createTestStore('postgres', { dataset: 'referral-sets' });
  });
  after(async () => ts?.drop());

  /** Holds an exclusive lock on referral_sets until released: a page of referral sets waits for it. */
  async function lockSets(): Promise<{ release(): Promise<void> }> {
    const client = new pg.Client({ connectionString: ts.databaseUrl });
    await client.connect();
    await client.query('BEGIN');
    await client.query('LOCK TABLE referral_sets IN ACCESS EXCLUSIVE MODE');
    let released: Promise<void> | undefined;
    return {
      release: () => (released ??= client.query('ROLLBACK').then(() => client.end())),
    };
  }

  test('a client deadline and the request timeout answer DEADLINE_EXCEEDED; a client that goes away is CANCELLED; no crash', async () => {
    const serve = await startServe([...ts.args, '--grpc-port', '0', '--request-timeout-ms', '1500', '--response-cache-mb', '0']);
    const client = rawClient(grpcAddress(serve));
    const lock = await lockSets();
    try {
      const request = encode('ListReferralSetsRequest', { pagination: { first: 1 } });
      // The client's deadline: the status is the client's own (grpc-js writes its timings into the text).
      assert.equal((await rawCall(client, SETS, request, 300)).error?.code, status.DEADLINE_EXCEEDED);
      assert.deepEqual(failure(await rawCall(client, SETS, request)), {
        code: status.DEADLINE_EXCEEDED,
        details: 'Deadline exceeded error: no answer within 1500 ms',
      });
      // A call cancelled by its client while its statement waits.
      const cancelled = await new Promise<ServiceError | null>((resolve) => {
        const call = client.makeUnaryRequest(
          SETS,
          (b: Buffer) => b,
          (b: Buffer) => b,
          request,
          new Metadata(),
          {},
          (err) => resolve(err),
        );
        setTimeout(() => call.cancel(), 100);
      });
      assert.equal(cancelled?.code, status.CANCELLED);
      await eventually(
        'the cancelled call logged',
        () => serve.logs().some((l) => l.method === 'gRPC' && l.status === status.CANCELLED),
        10_000,
      );
      await lock.release();
      assert.equal((await rawCall(client, SETS, encode('ListReferralSetsRequest', {}))).error, null);
    } finally {
      await lock.release();
      client.close();
      assert.equal(await serve.stop(), 0);
    }
  });

  /** Statements of the test's database waiting for a lock on referral_sets. */
  async function waitingForSets(): Promise<number> {
    const c = new pg.Client({ connectionString: ts.databaseUrl });
    await c.connect();
    try {
      const { rows } = await c.query(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'referral_sets'::regclass`);
      return rows[0].n;
    } finally {
      await c.end();
    }
  }

  test("a client's deadline earlier than the request timeout cancels the call's statement", async () => {
    // A request timeout (so statement_timeout) of a minute: only the client's deadline can end the statement early.
    const serve = await startServe([...ts.args, '--grpc-port', '0', '--request-timeout-ms', '60000', '--response-cache-mb', '0']);
    const client = rawClient(grpcAddress(serve));
    const lock = await lockSets();
    try {
      const request = encode('ListReferralSetsRequest', { pagination: { first: 2 } });
      const call = rawCall(client, SETS, request, 2000);
      await eventually('the statement waiting for the lock', async () => (await waitingForSets()) === 1);
      assert.equal((await call).error?.code, status.DEADLINE_EXCEEDED);
      // Cancelled by the server's cancel request once the deadline passed: waited for well within the minute.
      await eventually('the statement cancelled', async () => (await waitingForSets()) === 0, 10_000);
      await eventually('the call logged', () => serve.logs().some((l) => l.method === 'gRPC' && l.status === status.DEADLINE_EXCEEDED));
      await lock.release();
      // The connection of the cancelled statement was dropped: the next calls are answered, in full.
      const answered = await rawCall(client, SETS, request);
      assert.equal(answered.error, null);
      assert.equal(decode('ListReferralSetsResponse', answered.response).referralSets!.edges.length, 2);
    } finally {
      await lock.release();
      client.close();
      assert.equal(await serve.stop(), 0);
    }
  });

  test('SIGTERM: a call in flight finishes, new connections are refused, exit 0', async () => {
    const serve = await startServe([...ts.args, '--grpc-port', '0', '--response-cache-mb', '0']);
    const address = grpcAddress(serve);
    const client = rawClient(address);
    const lock = await lockSets();
    try {
      const inFlight = rawCall(client, SETS, encode('ListReferralSetsRequest', { pagination: { first: 3 } }));
      await eventually('the statement waiting for the lock', async () => (await waitingForSets()) > 0);
      serve.child.kill('SIGTERM');
      await eventually('shutting down', () => serve.logs().some((l) => String(l.msg).startsWith('shutting down')));
      assert.equal((await healthCheck(address)).error?.code, status.UNAVAILABLE, 'no new connection');
      await lock.release();
      const answered = await inFlight;
      assert.equal(answered.error, null);
      assert.equal(decode('ListReferralSetsResponse', answered.response).referralSets!.edges.length, 3);
      assert.equal(await serve.exited, 0);
    } finally {
      await lock.release();
      client.close();
      await serve.stop();
    }
  });

  test('--workers 2: every worker answers gRPC', async () => {
    const serve = await startServe([...ts.args, '--grpc-port', '0', '--workers', '2', '--log-level', 'warn']);
    try {
      const address = grpcAddress(serve);
      const seen = new Set<string>();
      // Each client is a connection of its own, which the cluster hands to the next worker; a
      // worker still starting answers UNAVAILABLE, as its REST answers 503.
      await eventually('both workers answering', async () => {
        const client = rawClient(address, { 'grpc.use_local_subchannel_pool': 1 });
        const call = await rawCall(client, SETS, encode('ListReferralSetsRequest', { pagination: { first: 1 } }));
        client.close();
        if (call.error === null) seen.add(String(call.headers?.get('x-epochview-worker')[0]));
        else assert.deepEqual(failure(call), { code: status.UNAVAILABLE, details: 'Unavailable error' });
        return seen.size === 2;
      });
      assert.deepEqual([...seen].sort(), ['1', '2']);
    } finally {
      assert.equal(await serve.stop(), 0);
    }
  });

  test('the store down: health NOT_SERVING and calls UNAVAILABLE, then SERVING again', { timeout: 180_000 }, async () => {
    const cluster = await createPgCluster();
    const migrated = await runCli(['migrate', '--database-url', cluster.url]);
    assert.equal(migrated.code, 0, migrated.stderr);
    const serve = await startServe(['--database-url', cluster.url, '--grpc-port', '0', '--log-level', 'error']);
    const address = grpcAddress(serve);
    const client = rawClient(address);
    try {
      await eventually('SERVING', async () => (await healthCheck(address)).status === 'SERVING');
      await cluster.stop();
      await eventually('NOT_SERVING', async () => (await healthCheck(address)).status === 'NOT_SERVING');
      const down = await rawCall(client, SETS, encode('ListReferralSetsRequest', {}));
      assert.deepEqual(failure(down), { code: status.UNAVAILABLE, details: 'Unavailable error' });
      await cluster.start();
      await eventually('SERVING again', async () => (await healthCheck(address)).status === 'SERVING');
      assert.equal((await rawCall(client, SETS, encode('ListReferralSetsRequest', {}))).error, null);
    } finally {
      client.close();
      await serve.stop();
      await cluster.destroy();
    }
  });
});
