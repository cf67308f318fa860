/**
 * gRPC against REST on one running `serve --grpc-port` (start it with --response-cache-mb 0 so
 * that every request reaches the store): the same ≥1,000 distinct requests asked both ways, by
 * one load generator of the same shape for both, `--concurrency` calls in flight over
 * `--connections` connections (HTTP/1.1 keep-alive sockets; HTTP/2 channels for gRPC), for
 * `--seconds` after a warm-up of a tenth of that. The requests: every referral set by id, by
 * referrer and by referee, and pages of 10 reward summaries after every summary's cursor, both
 * orders.
 *
 *   npx tsx bench/grpc-vs-rest.ts --rest http://127.0.0.1:3008 --grpc 127.0.0.1:3007 [--seconds 10] [--concurrency 32] [--connections 4]
 */
import { Agent, request as httpRequest } from 'node:http';
import { parseArgs } from 'node:util';
import { credentials, type Client, Metadata, makeGenericClientConstructor } from '@grpc/grpc-js';
import protobuf from 'protobufjs';

const { values } = parseArgs({
  options: {
    rest: { type: 'string' },
    grpc: { type: 'string' },
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '32' },
    connections: { type: 'string', default: '4' },
  },
});
const REST = values.rest!;
const GRPC = values.grpc!;
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);
const CONNECTIONS = Number(values.connections);

const PROTO_DIR = new URL('../proto/', import.meta.url).pathname;
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => `${PROTO_DIR}${target}`;
root.loadSync('data-node/api/v2/trading_data.proto');

/** One request both ways: the REST path and query, the gRPC method and request message. */
interface Ask {
  url: string;
  method: string;
  bytes: Buffer;
}

const encode = (message: string, value: object) => {
  const type = root.lookupType(`datanode.api.v2.${message}`);
  return Buffer.from(type.encode(type.fromObject(value)).finish());
};

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(REST + path);
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

interface Page<N> {
  edges: { node: N; cursor: string }[];
}

/** The requests, read from the data. */
async function asks(): Promise<Ask[]> {
  const out: Ask[] = [];
  const sets = (await getJson<{ referralSets: Page<{ id: string; referrer: string }> }>('/api/v2/referral-sets?pagination.first=5000'))
    .referralSets.edges;
  for (const { node } of sets) {
    out.push({
      url: `/api/v2/referral-sets?referralSetId=${node.id}`,
      method: 'ListReferralSets',
      bytes: encode('ListReferralSetsRequest', { referralSetId: node.id }),
    });
    out.push({
      url: `/api/v2/referral-sets?referrer=${node.referrer}`,
      method: 'ListReferralSets',
      bytes: encode('ListReferralSetsRequest', { referrer: node.referrer }),
    });
  }
  const summaries = (await getJson<{ summaries: Page<unknown> }>('/api/v2/rewards/epoch/summaries?pagination.first=5000')).summaries.edges;
  for (const { cursor } of summaries) {
    for (const newestFirst of [true, false]) {
      out.push({
        url: `/api/v2/rewards/epoch/summaries?pagination.first=10&pagination.newestFirst=${newestFirst}&pagination.after=${encodeURIComponent(cursor)}`,
        method: 'ListEpochRewardSummaries',
        bytes: encode('ListEpochRewardSummariesRequest', { pagination: { first: 10, newestFirst, after: cursor } }),
      });
    }
  }
  return out;
}

/** Runs `one(i)` with CONCURRENCY in flight for `seconds`; the answers per second and latency percentiles. */
async function load(
  one: (i: number) => Promise<void>,
  seconds: number,
): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const until = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const worker = async () => {
    while (performance.now() < until) {
      const started = performance.now();
      try {
        await one(next++);
        latencies.push(performance.now() - started);
      } catch {
        errors++;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round((latencies[Math.floor(q * (latencies.length - 1))] ?? 0) * 100) / 100;
  return { rps: Math.round(latencies.length / elapsed), p50: at(0.5), p99: at(0.99), errors };
}

function restAsker(list: Ask[]): (i: number) => Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const { hostname, port } = new URL(REST);
  return (i) =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ hostname, port, path: list[i % list.length]!.url, agent }, (res) => {
        res.on('data', () => {});
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(String(res.statusCode)))));
      });
      req.on('error', reject);
      req.end();
    });
}

function grpcAsker(list: Ask[]): (i: number) => Promise<void> {
  const Raw = makeGenericClientConstructor({}, 'Raw');
  const clients: Client[] = Array.from(
    { length: CONNECTIONS },
    () => new Raw(GRPC, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1, 'grpc.max_receive_message_length': -1 }),
  );
  const bytes = (b: Buffer) => b;
  return (i) =>
    new Promise((resolve, reject) => {
      const ask = list[i % list.length]!;
      clients[i % CONNECTIONS]!.makeUnaryRequest(
        `/datanode.api.v2.TradingDataService/${ask.method}`,
        bytes,
        bytes,
        ask.bytes,
        new Metadata(),
        {},
        (err) => (err ? reject(err) : resolve()),
      );
    });
}

const list = await asks();
process.stdout.write(`${list.length} distinct requests, c=${CONCURRENCY} over ${CONNECTIONS} connections, ${SECONDS} s each\n`);
for (const [name, asker] of [
  ['REST', restAsker(list)],
  ['gRPC', grpcAsker(list)],
] as const) {
  await load(asker, SECONDS / 10);
  const r = await load(asker, SECONDS);
  process.stdout.write(`${name}: ${r.rps} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors}\n`);
}
process.exit(0);
