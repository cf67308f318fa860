/**
 * gRPC against REST on one `serve --grpc-port` (the response cache off, so that every request
 * reaches the store): per scenario, the same distinct requests (bench/scenarios.ts's URLs, and
 * each as its gRPC request message) asked both ways by load generators that take little CPU:
 * wrk for REST (--concurrency connections, a request in flight on each), bench/grpc-load (Go's
 * gRPC client, built here with Debian's golang-go and golang-google-grpc-dev) for gRPC
 * (--concurrency calls in flight over --grpc-connections HTTP/2 connections). In --rounds
 * rounds, REST then gRPC, the order reversed every other round; each measurement gives the
 * answers per second and the serve process's CPU time per answer (/proc/<pid>/stat, all its
 * threads: PGlite's too).
 *
 * --build a,b measures builds side by side: a serve of each on the same store, their sides in the
 * same rounds, and each build's gRPC and REST against the first build's.
 *
 * --floor measures the transports themselves too, in the same rounds: Node's own HTTP/1.1 and
 * HTTP/2 servers answering every request with the bytes serve gave it (bench/floor-server.ts), by
 * the same load generators. What a gRPC answer costs over a REST one before any work of the
 * service or of a gRPC library.
 *
 *   npm run build && npx tsx bench/grpc-vs-rest.ts [--store postgres|pglite] [--scale medium] [--reuse]
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, credentials } from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { freePort } from '../scripts/pg-cluster.js';
import { SERVICE } from '../src/grpc/methods.js';
import { type Build, resolveBuild } from './builds.js';
import { benchArgs, COMMON_OPTIONS, list, progressLog, serverUrl } from './cli-args.js';
import { describeCommit, describeMachine, loadAverage, today, writeResults } from './describe.js';
import { demoFile, ingestOrReuse } from './ingest.js';
import { runLoad } from './load.js';
import { ROOT } from './paths.js';
import { random, readCursors, readKeys } from './sample.js';
import { buildScenarios, type Scenario, selectScenarioIds } from './scenarios.js';
import { FloorRecording } from './floor-server.js';
import { type RunningServer, startFloor, startService } from './servers.js';
import { benchStore, type StoreKind } from './stores.js';
import { cpuSeconds } from './cpu.js';

const HELP = `npx tsx bench/grpc-vs-rest.ts [options]   (npm run build first)

  --store postgres|pglite   the store (default postgres: the server of --database-url)
  --build a,b               builds (default .), as bench/ab.ts: a serve of each, measured in the same rounds
  --scale s                 demo chain (default medium)
  --scenarios list          scenario ids, names or resources (default epoch-reward-summaries/first50,epoch-reward-summaries/default)
  --urls n                  distinct requests per scenario (default 1000)
  --rounds n                rounds, each REST and gRPC (default 3)
  --warmup s / --duration s seconds of each measurement's warm-up and measuring (default 2 / 5)
  --concurrency n           requests in flight (default 32)
  --grpc-connections n      HTTP/2 connections they share (default 4)
  --floor                   also each transport's floor: node:http and node:http2 answering from memory
  --reuse                   keep the ingested store for the next run
  --name s                  the results file's name (default grpc-vs-rest-<store>)`;

const { values, fail } = benchArgs(HELP, {
  ...COMMON_OPTIONS,
  store: { type: 'string', default: 'postgres' },
  scale: { type: 'string', default: 'medium' },
  scenarios: { type: 'string', default: 'epoch-reward-summaries/first50,epoch-reward-summaries/default' },
  urls: { type: 'string', default: '1000' },
  rounds: { type: 'string', default: '3' },
  warmup: { type: 'string', default: '2' },
  duration: { type: 'string', default: '5' },
  concurrency: { type: 'string', default: '32' },
  'grpc-connections': { type: 'string', default: '4' },
  reuse: { type: 'boolean', default: false },
  floor: { type: 'boolean', default: false },
  build: { type: 'string', default: '.' },
  name: { type: 'string' },
});
const kind = values.store as StoreKind;
if (kind !== 'postgres' && kind !== 'pglite') fail(`unknown store ${kind}`);
const num = (name: keyof typeof values) => Number(values[name]);
const log = progressLog('grpc-vs-rest');

/** The project's request messages, from its shipped .proto files. */
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => join(ROOT, 'proto', target);
root.loadSync('data-node/api/v2/trading_data.proto');

/** A REST URL's gRPC call: the method and the request message (its query keys as the message's fields, the team of the path). */
function grpcCall(url: string): { method: string; bytes: Buffer } {
  const { pathname, searchParams } = new URL(url, 'http://x');
  const team = /^\/api\/v2\/teams\/([0-9a-f]+)\/stats$/.exec(pathname);
  const method =
    pathname === '/api/v2/referral-sets'
      ? 'ListReferralSets'
      : pathname === '/api/v2/rewards/epoch/summaries'
        ? 'ListEpochRewardSummaries'
        : team
          ? 'ListTeamMembersStatistics'
          : fail(`no gRPC method for ${pathname}`);
  const type = root.lookupType(`datanode.api.v2.${method}Request`);
  const message: Record<string, unknown> = team ? { teamId: team[1] } : {};
  for (const [key, value] of searchParams) {
    const [outer, inner] = key.includes('.') ? key.split('.') : [undefined, key];
    if (outer !== undefined && message[outer] === undefined) message[outer] = {};
    const holder = (outer === undefined ? message : message[outer]) as Record<string, unknown>;
    const fieldType = outer === undefined ? type : root.lookupType(type.fields[outer]!.resolve().resolvedType!.fullName);
    const field = fieldType.fields[inner!] ?? fail(`no field ${key} in ${method}Request`);
    const typed = field.type === 'bool' ? value === 'true' : value;
    if (!field.repeated) holder[inner!] = typed;
    else holder[inner!] = [...((holder[inner!] as unknown[] | undefined) ?? []), typed];
  }
  return { method, bytes: Buffer.from(type.encode(type.fromObject(message)).finish()) };
}

/** The Go load generator, built once into the cache folder. */
function grpcLoadBinary(cacheDir: string): string {
  const out = join(cacheDir, 'grpc-load');
  const source = join(ROOT, 'bench', 'grpc-load', 'main.go');
  if (existsSync(out) && existsSync(`${out}.source`) && readFileSync(`${out}.source`, 'utf8') === readFileSync(source, 'utf8')) return out;
  mkdirSync(cacheDir, { recursive: true });
  const res = spawnSync('go', ['build', '-o', out, '.'], {
    cwd: join(ROOT, 'bench', 'grpc-load'),
    env: { ...process.env, GOPATH: '/usr/share/gocode', GO111MODULE: 'off', GOCACHE: join(cacheDir, 'go-build'), GOFLAGS: '' },
    encoding: 'utf8',
  });
  if (res.error || res.status !== 0) {
    fail(`could not build bench/grpc-load (Debian: apt-get install golang-go golang-google-grpc-dev): ${res.stderr ?? res.error}`);
  }
  writeFileSync(`${out}.source`, readFileSync(source, 'utf8'));
  return out;
}

/** A build's REST or gRPC, or a transport's floor. */
type Side = string;

interface Measured {
  reqPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU µs of the serve process per answer. */
  cpuUsPerCall: number;
}

async function measured(pid: number, run: () => Promise<{ calls: number; seconds: number; p50: number; p99: number; errors: number }>) {
  const before = cpuSeconds(pid);
  const r = await run();
  const cpu = cpuSeconds(pid) - before;
  return {
    reqPerSec: r.calls / r.seconds,
    p50: r.p50,
    p99: r.p99,
    errors: r.errors,
    cpuUsPerCall: (cpu * 1e6) / Math.max(1, r.calls),
  } satisfies Measured;
}

function restLoad(baseUrl: string, sc: Scenario, seconds: number) {
  return async () => {
    const r = await runLoad({ baseUrl, urls: sc.urls, connections: num('concurrency'), duration: seconds });
    return { calls: r.reqPerSec * r.seconds, seconds: r.seconds, p50: r.p50, p99: r.p99, errors: r.errors };
  };
}

function grpcLoad(binary: string, address: string, requestsFile: string, seconds: number) {
  return () =>
    new Promise<{ calls: number; seconds: number; p50: number; p99: number; errors: number }>((resolve, reject) => {
      const args = ['-addr', address, '-requests', requestsFile, '-c', String(num('concurrency'))];
      args.push('-conns', String(num('grpc-connections')), '-d', String(seconds));
      const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`grpc-load failed (${code}): ${err}`))));
    });
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const range = (xs: readonly number[], digits = 0) =>
  `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** Table cells of two sides' measurements: each side's req/s, CPU and latency, then the second ÷ the first and the errors. */
function comparison(rest: Measured[], grpc: Measured[]): string {
  const ratios = grpc.map((g, i) => g.reqPerSec / rest[i]!.reqPerSec);
  const cpuRatios = grpc.map((g, i) => g.cpuUsPerCall / rest[i]!.cpuUsPerCall);
  const side = (ms: Measured[]) =>
    `${Math.round(mean(ms.map((m) => m.reqPerSec))).toLocaleString('en')} (${range(ms.map((m) => m.reqPerSec))}) | ${Math.round(mean(ms.map((m) => m.cpuUsPerCall)))} (${range(ms.map((m) => m.cpuUsPerCall))}) | ${mean(ms.map((m) => m.p50)).toFixed(1)} / ${mean(ms.map((m) => m.p99)).toFixed(1)}`;
  const errors = (ms: Measured[]) => ms.reduce((a, m) => a + m.errors, 0);
  return `${side(rest)} | ${side(grpc)} | ${mean(ratios).toFixed(2)} (${range(ratios, 2)}) | ${mean(cpuRatios).toFixed(2)} (${range(cpuRatios, 2)}) | ${errors(rest)} / ${errors(grpc)}`;
}

/**
 * serve's answers to every request of a scenario, REST's bodies and gRPC's reply messages, into
 * the floor server's recording (grpc-js's client, the messages as bytes).
 */
async function recordAnswers(baseUrl: string, address: string, sc: Scenario, into: FloorRecording): Promise<void> {
  const client = new Client(address, credentials.createInsecure(), { 'grpc.max_receive_message_length': -1 });
  const asBytes = (b: Buffer) => b;
  try {
    for (const url of sc.urls) {
      const res = await fetch(baseUrl + url);
      if (res.status !== 200) fail(`${url}: ${res.status}`);
      into.addRest(url, Buffer.from(await res.arrayBuffer()));
      const call = grpcCall(url);
      const path = `/${SERVICE}/${call.method}`;
      const reply = await new Promise<Buffer>((resolve, reject) =>
        client.makeUnaryRequest(path, asBytes, asBytes, call.bytes, (err, r) => (err || !r ? reject(err) : resolve(r))),
      );
      into.addGrpc(path, call.bytes, reply);
    }
  } finally {
    client.close();
  }
}

async function main(): Promise<void> {
  const loadBefore = loadAverage();
  const cacheDir = values.cache;
  const seed = num('seed');
  const binary = grpcLoadBinary(cacheDir);
  const file = await demoFile(cacheDir, values.scale, seed, log);
  const store = benchStore(kind, `grpc_${values.scale}_s${seed}`, { databaseUrl: serverUrl(values['database-url']), cacheDir });
  await ingestOrReuse(store, file, {
    reuse: values.reuse,
    marker: join(cacheDir, `grpc-${kind}-${values.scale}-s${seed}.json`),
    what: kind,
    log,
  });
  const db = await store.open();
  const keys = await readKeys((sql, params) => db.query(sql, params)).finally(() => db.close());
  const builds = list(values.build).map((spec) => resolveBuild(spec, join(cacheDir, 'builds'), log));
  const serves: { build: Build; server: RunningServer; address: string }[] = [];
  for (const build of builds) {
    const grpcPort = await freePort();
    const args = [...store.args, '--grpc-port', String(grpcPort), '--response-cache-mb', '0'];
    serves.push({ build, server: await startService(args, 'warn', build.cli), address: `127.0.0.1:${grpcPort}` });
  }
  const [{ server: serve, address }] = serves as [(typeof serves)[0]];
  const label = (b: Build, transport: string) => (builds.length > 1 ? `${b.id} ${transport}` : transport);
  const work = mkdtempSync(join(tmpdir(), 'epochview-grpc-bench-'));
  const rows: string[] = [];
  const buildRows: string[] = [];
  const floorRows: string[] = [];
  let floor: (RunningServer & { http2Port: number }) | undefined;
  try {
    const population = { keys, cursors: await readCursors(serve.url, keys) };
    const scenarios = buildScenarios(selectScenarioIds(values.scenarios.split(',')), population, num('urls'), random(seed));
    const requestFiles = scenarios.map((sc) => {
      const file = join(work, `${sc.id.replace('/', '-')}.txt`);
      writeFileSync(
        file,
        sc.urls
          .map((u) => grpcCall(u))
          .map((c) => `${c.method} ${c.bytes.toString('base64')}\n`)
          .join(''),
      );
      return file;
    });
    if (values.floor) {
      const recording = new FloorRecording(join(work, 'floor.bin'));
      try {
        for (const sc of scenarios) await recordAnswers(serve.url, address, sc, recording);
      } finally {
        recording.close();
      }
      floor = await startFloor(recording.file);
      log(`recorded every request's answer each way for the floor server`);
    }
    for (const [i, sc] of scenarios.entries()) {
      const requestsFile = requestFiles[i]!;
      const loads = new Map<Side, { pid: number; load: (s: number) => ReturnType<typeof restLoad> }>();
      for (const { build, server, address: at } of serves) {
        loads.set(label(build, 'REST'), { pid: server.pid, load: (s) => restLoad(server.url, sc, s) });
        loads.set(label(build, 'gRPC'), { pid: server.pid, load: (s) => grpcLoad(binary, at, requestsFile, s) });
      }
      if (floor) {
        loads.set('REST floor', { pid: floor.pid, load: (s) => restLoad(floor!.url, sc, s) });
        loads.set('gRPC floor', { pid: floor.pid, load: (s) => grpcLoad(binary, `127.0.0.1:${floor!.http2Port}`, requestsFile, s) });
      }
      const sides = [...loads.keys()];
      const load = (side: Side, s: number) => loads.get(side)!.load(s);
      const pidOf = (side: Side) => loads.get(side)!.pid;
      const results = new Map(sides.map((side) => [side, [] as Measured[]]));
      const of = (side: Side) => results.get(side)!;
      for (let round = 0; round < num('rounds'); round++) {
        const order = round % 2 === 0 ? sides : [...sides].reverse();
        for (const side of order) {
          await load(side, num('warmup'))();
          const m = await measured(pidOf(side), load(side, num('duration')));
          of(side).push(m);
          log(
            `${sc.id} round ${round + 1} ${side}: ${Math.round(m.reqPerSec)} req/s, ${Math.round(m.cpuUsPerCall)} µs CPU/answer, p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms, errors ${m.errors}`,
          );
        }
      }
      const [first] = builds as [Build];
      for (const b of builds) {
        const build = builds.length > 1 ? ` ${b.id} |` : '';
        rows.push(
          `| ${sc.id} |${build} ${sc.urls.length.toLocaleString('en')} | ${comparison(of(label(b, 'REST')), of(label(b, 'gRPC')))} |`,
        );
        if (b === first) continue;
        for (const transport of ['gRPC', 'REST'])
          buildRows.push(
            `| ${sc.id} | ${transport} | ${b.id} ÷ ${first.id} | ${comparison(of(label(first, transport)), of(label(b, transport)))} |`,
          );
      }
      if (floor) floorRows.push(`| ${sc.id} | ${comparison(of('REST floor'), of('gRPC floor'))} |`);
    }
  } finally {
    await floor?.stop();
    for (const s of serves) await s.server.stop();
    rmSync(work, { recursive: true, force: true });
    if (!values.reuse) await store.drop();
  }
  const text = [
    `# gRPC against REST, the ${values.scale} chain, ${kind === 'pglite' ? 'embedded store (PGlite)' : 'PostgreSQL server'}, ${today()}`,
    '',
    `${builds.length > 1 ? `A \`serve --grpc-port --response-cache-mb 0\` of each build (${builds.map((b) => b.id).join(', ')}) on the same store, measured in the same rounds` : `One \`serve --grpc-port --response-cache-mb 0\` of ${describeCommit(ROOT)}`}; node ${process.version}; ${describeMachine()}. ` +
      `c=${num('concurrency')}: REST by wrk over ${num('concurrency')} connections, gRPC by bench/grpc-load (grpc-go) over ${num('grpc-connections')} HTTP/2 connections. ` +
      `${num('rounds')} rounds of ${num('warmup')} + ${num('duration')} s per side, the order reversed every other round. Load average before: ${loadBefore}; after: ${loadAverage()}.`,
    '',
    "req/s and the serve process's CPU µs per answer: the mean of the rounds (their range). gRPC ÷ REST: the mean of the rounds' ratios (their range).",
    '',
    `| scenario |${builds.length > 1 ? ' build |' : ''} requests | REST req/s | REST CPU µs/answer | REST p50 / p99 ms | gRPC req/s | gRPC CPU µs/answer | gRPC p50 / p99 ms | gRPC ÷ REST req/s | gRPC ÷ REST CPU/answer | errors REST / gRPC |`,
    `|---|${builds.length > 1 ? '---|' : ''}--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|`,
    ...rows,
    '',
    ...(buildRows.length === 0
      ? []
      : [
          'Each build against the first, the same transport in the same rounds:',
          '',
          '| scenario | transport | builds | first req/s | first CPU µs/answer | first p50 / p99 ms | other req/s | other CPU µs/answer | other p50 / p99 ms | other ÷ first req/s | other ÷ first CPU/answer | errors |',
          '|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
          ...buildRows,
          '',
        ]),
    ...(floorRows.length === 0
      ? []
      : [
          "The transports' floor (--floor), in the same rounds: node:http and node:http2 answering each request with the bytes serve gave it, from memory (bench/floor-server.ts), by the same load generators; CPU µs per answer of the floor server's process.",
          '',
          '| scenario | HTTP/1.1 req/s | HTTP/1.1 CPU µs/answer | HTTP/1.1 p50 / p99 ms | HTTP/2 gRPC req/s | HTTP/2 gRPC CPU µs/answer | HTTP/2 gRPC p50 / p99 ms | HTTP/2 ÷ HTTP/1.1 req/s | HTTP/2 ÷ HTTP/1.1 CPU/answer | errors |',
          '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
          ...floorRows,
          '',
        ]),
  ].join('\n');
  const name = values.name ?? `grpc-vs-rest-${kind}`;
  log(`written to ${writeResults(values.out, `${today()}-${name}.md`, text)}`);
}

await main();
process.exit(0);
