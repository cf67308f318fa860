/**
 * The benchmark: ingest rate and memory, and page latency and throughput against a ceiling, on
 * the demo chains, on one store. `npm run bench -- --help` for the options; bench/live.ts
 * measures a moving chain.
 *
 * For each scale: generate the demo chain once into the cache folder; ingest it into a fresh
 * store with the CLI (events/s, peak RSS); read the keys of the data from the store. Then for
 * each cache setting (off: the store path; on): start `epochview serve` on every scale; the
 * first time, walk every ordering for cursors, draw each scenario's distinct URLs, record the
 * answers of a sample of them and start the ceiling server that answers those bytes from memory
 * through the same HTTP stack. Then per scenario, concurrency and scale: warm up and measure the
 * service over the scenario's URLs (wrk and a Lua script), then the ceiling over its sample.
 */
import { tmpdir } from 'node:os';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isDemoScale } from '../src/demo/scales.js';
import { SETTINGS } from '../src/config.js';
import type { RecordedResponse } from './ceiling-server.js';
import { demoFile, ingestFile, ingestOrReuse, type IngestResult, type Mix } from './ingest.js';
import { realShare } from './live-chain.js';
import { runLoad, wrkInstalled, type LoadResult } from './load.js';
import { benchArgs, COMMON_OPTIONS, progressLog, serverUrl } from './cli-args.js';
import { resolveBuild } from './builds.js';
import { describeCommit, describeMachine, loadAverage, today, writeResults } from './describe.js';
import { CLI, ROOT } from './paths.js';
import {
  hitRatio,
  renderMarkdown,
  type CacheOutcomes,
  type MixResult,
  type PageMeasurement,
  type RunResult,
  type ScaleResult,
} from './report.js';
import { cacheOutcomes, outcomesSince } from './metrics.js';
import { random, readCursors, readKeys, type Keys } from './sample.js';
import { buildScenarios, SCENARIO_IDS, selectScenarioIds, type Scenario } from './scenarios.js';
import { startCeiling, startService, type RunningServer } from './servers.js';
import { benchStore, DEFAULT_DATABASE_URL, storeVersion, type StoreKind } from './stores.js';

/**
 * Other kinds per block of the mix: a busy network's blocks carry hundreds (market data of every
 * market, orders, trades, positions); the real fixture, a test network, 3.25. With the real
 * share of blocks with events of ours, 100 make our events 5% of the medium chain's.
 */
const DEFAULT_MIX_OTHER_EVENTS = 100;

/** serve's response cache when on, unless --response-cache-mb says otherwise. */
const DEFAULT_CACHE_MB = SETTINGS.responseCacheMb.default;

const HELP = `usage: npm run bench -- [options]

  --store postgres|pglite   store to measure (default postgres: the server of DATABASE_URL,
                            default ${DEFAULT_DATABASE_URL}; the harness creates its own database)
  --database-url URL        server to create the benchmark databases on (default DATABASE_URL)
  --scales a,b              demo chains, in order (default medium,mainnet; small for a quick look)
  --scenarios a,b           scenario ids, operations or names (default all): ${SCENARIO_IDS.join(', ')}
  --concurrency a,b         connections (default 1,32; wrk runs 2 threads, 1 for c=1)
  --urls n                  distinct URLs per scenario, sampled from the data (default 1000;
                            fewer where the data has fewer)
  --response-cache off,on   the service's response cache in turn (default off,on: the store
                            path, then the cache on a chain that does not move)
  --duration s              seconds per measurement (default 20)
  --warmup s                seconds of warm-up before each measurement (default 3)
  --requests n              instead: n requests per measurement with plain fetch (checks the
                            harness quickly; not a benchmark)
  --skip-ceiling            do not measure the ceiling
  --gzip                    send Accept-Encoding: gzip (default: no compression)
  --response-cache-mb n     the response cache when on (default ${DEFAULT_CACHE_MB}, as serve's)
  --log-level level         the servers' log level (default info: one log line per request)
  --seed n                  demo chain seed (default 1)
  --cache dir               demo files and reused stores (default bench/.cache)
  --out dir                 results folder (default bench/results)
  --reuse                   keep the ingested stores, and reuse them (skipping ingest) next time
  --render file.json        only print the table of an earlier run's .json again
  --ingest-formats          only measure ingest: each scale's demo chain as NDJSON and as an event
                            file, each into a fresh store; events/s of the events applied and of
                            all events (skipped kinds and block markers too); written to
                            <date>-<store>-ingest-formats.md
  --baseline build          with --ingest-formats: also ingest with another build, interleaved
                            with this one, and give the ratios: a git revision (exported into
                            <cache>/builds/<commit> and built there) or a built checkout's folder
  --mix-scale s             also ingest a real chain's mix as an event file into a store of its
                            own: the s demo chain with quiet blocks (demo --our-share) and other
                            kinds (--other-events); all events/s and our events/s (default
                            medium; none: not measured)
  --mix-share x             its share of blocks with events of ours (default the real fixture's,
                            295 of 5,002 blocks)
  --mix-other-events n      its mean of other kinds per block (default ${DEFAULT_MIX_OTHER_EVENTS})`;

const { values, fail } = benchArgs(HELP, {
  ...COMMON_OPTIONS,
  store: { type: 'string', default: 'postgres' },
  scales: { type: 'string', default: 'medium,mainnet' },
  scenarios: { type: 'string', default: '' },
  concurrency: { type: 'string', default: '1,32' },
  duration: { type: 'string', default: '20' },
  warmup: { type: 'string', default: '3' },
  requests: { type: 'string' },
  'skip-ceiling': { type: 'boolean', default: false },
  gzip: { type: 'boolean', default: false },
  'response-cache-mb': { type: 'string', default: DEFAULT_CACHE_MB },
  urls: { type: 'string', default: '1000' },
  'response-cache': { type: 'string', default: 'off,on' },
  'log-level': { type: 'string', default: 'info' },
  reuse: { type: 'boolean', default: false },
  render: { type: 'string' },
  'ingest-formats': { type: 'boolean', default: false },
  baseline: { type: 'string' },
  'mix-scale': { type: 'string', default: 'medium' },
  'mix-share': { type: 'string' },
  'mix-other-events': { type: 'string', default: String(DEFAULT_MIX_OTHER_EVENTS) },
});
if (values.render) {
  process.stdout.write(`${renderMarkdown(JSON.parse(readFileSync(values.render, 'utf8')) as RunResult)}\n`);
  process.exit(0);
}

const store = values.store as StoreKind;
if (store !== 'postgres' && store !== 'pglite') fail('--store must be postgres or pglite');
const databaseUrl = serverUrl(values['database-url']);
const scales = values.scales.split(',').filter(Boolean);
for (const s of scales) if (!isDemoScale(s)) fail(`unknown scale ${s}`);
const numbers = (text: string, what: string) =>
  text.split(',').map((t) => {
    const n = Number(t);
    if (!Number.isFinite(n) || n <= 0) fail(`${what} must be positive numbers`);
    return n;
  });
const concurrencies = numbers(values.concurrency, '--concurrency').map(Math.round);
const [duration] = numbers(values.duration, '--duration');
const warmup = values.warmup === '0' ? 0 : numbers(values.warmup, '--warmup')[0]!;
const requests = values.requests === undefined ? undefined : Math.round(numbers(values.requests, '--requests')[0]!);
let scenarioIds: string[];
try {
  scenarioIds = selectScenarioIds(values.scenarios.split(',').filter(Boolean));
} catch (err) {
  fail((err as Error).message);
}
const seed = Number(values.seed);
const cacheDir = resolve(values.cache);
const outDir = resolve(values.out);
const logLevel = values['log-level'];
const responseCacheMb = Number(values['response-cache-mb']);
if (!Number.isInteger(responseCacheMb) || responseCacheMb <= 0) fail('--response-cache-mb must be a positive integer');
const perScenario = Math.round(numbers(values.urls, '--urls')[0]!);
const caches = values['response-cache'].split(',').filter(Boolean) as ('off' | 'on')[];
if (caches.length === 0 || caches.some((c) => c !== 'off' && c !== 'on')) fail('--response-cache must be off, on or both');
const mixScale = values['mix-scale'] === 'none' ? undefined : values['mix-scale'];
if (mixScale !== undefined && !isDemoScale(mixScale)) fail(`unknown --mix-scale ${mixScale}`);
const mixShare = values['mix-share'] === undefined ? await realShare() : { share: Number(values['mix-share']), source: 'as given' };
if (!(mixShare.share > 0 && mixShare.share <= 1)) fail('--mix-share must be in (0, 1]');
const mixOtherEvents = Number(values['mix-other-events']);
if (!(mixOtherEvents >= 0 && mixOtherEvents <= 10_000)) fail('--mix-other-events must be a number from 0 to 10000');
// Four decimals (the real share, 295 / 5,002, is 0.059): the demo file is named by them.
const mix: Mix = { ourShare: Number(mixShare.share.toFixed(4)), otherEvents: mixOtherEvents };
const headers: Record<string, string> = values.gzip ? { 'accept-encoding': 'gzip' } : {};
if (requests === undefined && !wrkInstalled()) fail('wrk is not installed (Debian: apt-get install wrk)');

const log = progressLog('bench');

if (!existsSync(CLI)) fail(`${CLI} is missing: run npm run build (npm run bench does)`);

/** A warmed-up load run, and how the service's response cache answered it (when `cache`). */
async function measure(
  baseUrl: string,
  urls: readonly string[],
  connections: number,
  cache = false,
): Promise<{ load: LoadResult; outcomes: CacheOutcomes | null }> {
  if (warmup > 0 && requests === undefined) await runLoad({ baseUrl, urls, connections, duration: warmup, headers });
  const before = cache ? await cacheOutcomes(baseUrl) : null;
  const load = await runLoad({ baseUrl, urls, connections, duration: duration!, requests, headers });
  return { load, outcomes: before && outcomesSince(before, await cacheOutcomes(baseUrl)) };
}

/** Ingest marker of a reused store: the numbers of the run that ingested it. */
const markerFile = (name: string) => join(cacheDir, `ingested-${store}-${name}.json`);

/** A scale's store, ingested, and the keys its URLs are drawn from. */
interface IngestedScale {
  scale: string;
  ingest: (IngestResult & { reused: boolean }) | null;
  args: string[];
  keys: Keys;
}

/** A scale being measured: its URLs, the shape of their answers, the ceiling serving a sample of them. */
interface SampledScale extends IngestedScale {
  population: Record<string, number>;
  scenarios: Scenario[];
  shape: Map<string, { rows: number; bytes: number }>;
  ceiling: RunningServer | undefined;
}

/** URLs per scenario whose answers the ceiling serves (from memory: big pages add up). */
const CEILING_URLS = 10;

const cleanups: (() => Promise<void>)[] = [];

async function ingestScale(scale: string): Promise<IngestedScale> {
  const file = await demoFile(cacheDir, scale, seed, log);
  const name = values.reuse ? `${scale}_s${seed}` : `${scale}_s${seed}_${process.pid}`;
  const s = benchStore(store, name, { databaseUrl, cacheDir });
  if (!values.reuse) cleanups.push(() => s.drop());
  const ingest = await ingestOrReuse(s, file, { reuse: values.reuse, marker: markerFile(name), what: scale, log });
  const db = await s.open();
  try {
    return { scale, ingest, args: s.args, keys: await readKeys((sql, params) => db.query(sql, params)) };
  } finally {
    await db.close();
  }
}

/**
 * Ingests the real chain's mix of --mix-scale, an event file, into a fresh store of its own
 * (dropped after) with `cli`: what `epochview ingest` of a real chain's event file costs.
 */
async function ingestMix(cli = CLI): Promise<IngestResult> {
  const file = await demoFile(cacheDir, mixScale!, seed, log, 'evts', mix);
  const s = benchStore(store, `mix_${mixScale}_s${seed}_${process.pid}`, { databaseUrl, cacheDir });
  await s.reset();
  try {
    log(`${mixScale} mix: ingesting ${file} into ${store}… (load average ${loadAverage()})`);
    const r = await ingestFile(file, s.args, cli);
    log(
      `${mixScale} mix: ${r.allEvents} events (${r.events} of ours) in ${r.seconds.toFixed(1)} s: ${Math.round(r.allEventsPerSec!)} events/s, ${Math.round(r.eventsPerSec)} of ours/s`,
    );
    return r;
  } finally {
    await s.drop();
  }
}

/** What the results say of the mix besides its ingest. */
function mixResult(ingest: IngestResult, loadBefore: string): MixResult {
  return { scale: mixScale!, ourShare: mix.ourShare, shareSource: mixShare.source, otherEvents: mix.otherEvents, load: loadBefore, ingest };
}

/**
 * Draws each scenario's URLs (cursors walked on the service), records the answers of a sample of
 * them, and starts the ceiling server answering those from memory.
 */
async function sampleScale(scale: IngestedScale, service: RunningServer): Promise<SampledScale> {
  log(`${scale.scale}: walking every ordering for cursors`);
  const population = { keys: scale.keys, cursors: await readCursors(service.url, scale.keys) };
  const scenarios = buildScenarios(scenarioIds, population, perScenario, random(seed));
  for (const sc of scenarios) log(`${scale.scale} ${sc.id}: ${sc.urls.length} distinct URLs`);
  const tmp = mkdtempSync(join(tmpdir(), 'epochview-bench-'));
  cleanups.push(async () => rmSync(tmp, { recursive: true, force: true }));
  const recorded: Record<string, RecordedResponse> = {};
  const shape = new Map<string, { rows: number; bytes: number }>();
  for (const sc of scenarios) {
    let rows = 0;
    let bytes = 0;
    const sample = sc.urls.slice(0, CEILING_URLS);
    for (const url of sample) {
      const res = await fetch(service.url + url, { headers });
      const body = Buffer.from(await res.arrayBuffer());
      if (res.status !== 200) throw new Error(`${sc.id}: GET ${url} answered ${res.status}: ${body.toString().slice(0, 500)}`);
      // fetch decodes a gzip answer: the ceiling gets the uncompressed bytes and compresses them as the service does.
      rows += Object.values(JSON.parse(body.toString()) as Record<string, { edges: unknown[] }>)[0]!.edges.length;
      bytes += body.length;
      const kept: Record<string, string> = {};
      for (const h of ['content-type', 'x-block-height', 'x-block-timestamp']) {
        const v = res.headers.get(h);
        if (v !== null) kept[h] = v;
      }
      recorded[url] = { status: res.status, headers: kept, body: body.toString('base64') };
    }
    shape.set(sc.id, { rows: rows / sample.length, bytes: bytes / sample.length });
  }
  let ceiling: RunningServer | undefined;
  if (!values['skip-ceiling']) {
    const recordedFile = join(tmp, 'recorded.json');
    writeFileSync(recordedFile, JSON.stringify(recorded));
    ceiling = await startCeiling(recordedFile, logLevel);
    cleanups.push(() => ceiling!.stop());
    for (const [url, r] of Object.entries(recorded)) {
      const body = Buffer.from(await (await fetch(ceiling.url + url, { headers })).arrayBuffer());
      if (!body.equals(Buffer.from(r.body, 'base64'))) throw new Error(`${url}: the ceiling server's answer differs from the service's`);
    }
  }
  const counts: Record<string, number> = {
    referees: scale.keys.referees.length,
    referrers: scale.keys.referrers.length,
    assets: scale.keys.assets.length,
    epochs: scale.keys.maxEpoch,
    'teams (N=10)': scale.keys.teams10.length,
    'teams (N=30)': scale.keys.teams30.length,
    'team members': scale.keys.parties.length,
    'referral set cursors': population.cursors.referralSets.length,
    'summary cursors': population.cursors.summaries.length,
    'team statistics cursors': population.cursors.teamStats.length,
  };
  return { ...scale, population: counts, scenarios, shape, ceiling };
}

/**
 * Measures every scenario and concurrency on every scale, interleaved: for one scenario and
 * concurrency, each scale's service then its ceiling, before the next. On a shared machine
 * the load of others drifts over minutes; interleaving keeps it the same for the measurements
 * that are compared (our req/s to the ceiling's, medium's p50 to mainnet's).
 */
async function measureAll(
  sampled: SampledScale[],
  services: RunningServer[],
  cache: 'off' | 'on',
  pages: Map<string, PageMeasurement[]>,
): Promise<void> {
  for (const id of scenarioIds) {
    for (const c of concurrencies) {
      for (const [i, p] of sampled.entries()) {
        const sc = p.scenarios.find((x) => x.id === id);
        if (!sc) continue;
        const service = services[i]!;
        const { load: real, outcomes } = await measure(service.url, sc.urls, c, cache === 'on');
        const ceil = p.ceiling ? (await measure(p.ceiling.url, sc.urls.slice(0, CEILING_URLS), c)).load : null;
        const { rows, bytes } = p.shape.get(sc.id)!;
        const { urls, ...scenario } = sc;
        pages.get(p.scale)!.push({ scenario, urls: urls.length, concurrency: c, cache, rows, bytes, real, ceiling: ceil, outcomes });
        log(
          `${p.scale} ${sc.id} c=${c} cache ${cache}: ${Math.round(real.reqPerSec)} req/s, p50 ${real.p50.toFixed(2)} ms, p99 ${real.p99.toFixed(2)} ms, ${real.errors} errors` +
            (outcomes ? `, hits ${Math.round(100 * hitRatio(outcomes))}%` : '') +
            (ceil ? `; ceiling ${Math.round(ceil.reqPerSec)} req/s (${Math.round((100 * real.reqPerSec) / ceil.reqPerSec)}%)` : ''),
        );
      }
    }
  }
}

/** A build whose CLI ingests: this checkout's, or --baseline's. */
interface NamedBuild {
  name: string;
  cli: string;
}

/** --baseline's build, named by its commit. */
function baselineBuild(spec: string): NamedBuild {
  try {
    const build = resolveBuild(spec, join(cacheDir, 'builds'), log);
    return { name: `baseline ${build.id}`, cli: build.cli };
  } catch (err) {
    return fail((err as Error).message);
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * --ingest-formats: the same chain as NDJSON and as an event file, ingested into fresh stores.
 * With --baseline, each format is ingested by both builds in the order baseline, this, this,
 * baseline, so that a machine whose load drifts weighs on both alike; the ratios are of means.
 */
async function ingestFormats(machine: string, versions: string, commit: string): Promise<void> {
  const current: NamedBuild = { name: `this build (${commit})`, cli: CLI };
  const baseline = values.baseline === undefined ? undefined : baselineBuild(values.baseline);
  const order = baseline ? [baseline, current, current, baseline] : [current];
  const rows: string[] = [];
  const summary: string[] = [];
  for (const scale of scales) {
    const rates = new Map<string, number[]>();
    for (const format of ['ndjson', 'evts'] as const) {
      const file = await demoFile(cacheDir, scale, seed, log, format);
      for (const build of order) {
        const s = benchStore(store, `binary_${scale}_${format}_${process.pid}`, { databaseUrl, cacheDir });
        await s.reset();
        try {
          const loadBefore = loadAverage();
          log(`${scale}: ${build.name} ingesting ${file} into ${store}… (load average ${loadBefore})`);
          const r = await ingestFile(file, s.args, build.cli);
          log(
            `${scale} ${format} ${build.name}: ${r.allEvents} events (${r.events} applied) in ${r.seconds.toFixed(1)} s: ${Math.round(r.allEventsPerSec!)} events/s`,
          );
          const key = `${format} ${build.name}`;
          rates.set(key, [...(rates.get(key) ?? []), r.allEventsPerSec!]);
          rows.push(ingestRow(scale, format === 'ndjson' ? 'NDJSON' : 'event file', build, r, loadBefore));
        } finally {
          await s.drop();
        }
      }
    }
    const rate = (format: string, build: NamedBuild) => mean(rates.get(`${format} ${build.name}`)!);
    summary.push(
      `| ${scale} | event file ÷ NDJSON, ${current.name} | **${(rate('evts', current) / rate('ndjson', current)).toFixed(2)}×** |`,
    );
    if (baseline) {
      summary.push(
        `| ${scale} | event file ÷ NDJSON, ${baseline.name} | ${(rate('evts', baseline) / rate('ndjson', baseline)).toFixed(2)}× |`,
      );
      for (const [format, label] of [
        ['ndjson', 'NDJSON'],
        ['evts', 'event file'],
      ] as const) {
        summary.push(
          `| ${scale} | ${label}: ${current.name} ÷ ${baseline.name} | **${(rate(format, current) / rate(format, baseline)).toFixed(2)}×** (${int(rate(format, current))} ÷ ${int(rate(format, baseline))} events/s) |`,
        );
      }
    }
  }
  if (mixScale !== undefined) {
    // The real chain's mix, an event file, by each build in the same order.
    const rates = new Map<string, number[]>();
    for (const build of order) {
      const loadBefore = loadAverage();
      const r = await ingestMix(build.cli);
      rates.set(build.name, [...(rates.get(build.name) ?? []), r.allEventsPerSec!]);
      rows.push(ingestRow(`${mixScale} mix`, 'event file', build, r, loadBefore));
    }
    const rate = (build: NamedBuild) => mean(rates.get(build.name)!);
    if (baseline)
      summary.push(
        `| ${mixScale} mix | event file: ${current.name} ÷ ${baseline.name} | **${(rate(current) / rate(baseline)).toFixed(2)}×** (${int(rate(current))} ÷ ${int(rate(baseline))} events/s) |`,
      );
  }
  const date = today();
  const md = [
    `# Ingest of NDJSON and of event files, ${store}, ${date}`,
    '',
    `${machine}; ${versions}; demo seed ${seed}. The two formats of a scale hold the same chain`,
    `(\`epochview demo --format ndjson|evts\`), ingested one after the other into fresh stores; events/s`,
    'from the summary of `epochview ingest` (its time excludes startup). "Not applied" events are the',
    'kinds epochview skips and the block markers. CPU s: user and system time of the ingest process',
    "(the store's own is not counted). Load: the load average (1, 5, 15 min) as the run started.",
    ...(baseline
      ? [`Each format ingested by ${baseline.name} (\`${baseline.cli}\`) and by this build, in the order baseline, this, this, baseline.`]
      : []),
    ...(mixScale !== undefined ? ['', mixText()] : []),
    '',
    '| scale | format | build | MiB | events | not applied | s | events/s (all) | applied events/s | CPU s | peak RSS MiB | load |',
    '|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|',
    ...rows,
    '',
    '| scale | ratio of mean events/s (all) | |',
    '|---|---|--:|',
    ...summary,
    '',
  ].join('\n');
  log(`results written to ${writeResults(outDir, `${date}-${store}-ingest-formats.md`, md)}`);
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** A row of the --ingest-formats table. */
function ingestRow(scale: string, format: string, build: NamedBuild, r: IngestResult, load: string): string {
  const notApplied = ((r.allEvents! - r.events) / r.allEvents!) * 100;
  return (
    `| ${scale} | ${format} | ${build.name} | ${r.fileMiB.toFixed(0)} | ${int(r.allEvents!)} | ${notApplied.toFixed(0)} % | ` +
    `${r.seconds.toFixed(1)} | ${int(r.allEventsPerSec!)} | ${int(r.eventsPerSec)} | ${r.cpuSeconds?.toFixed(1) ?? ''} | ${Math.round(r.peakRssMiB)} | ${load} |`
  );
}

/** What the mix is, for the results. */
function mixText(): string {
  return (
    `The ${mixScale} mix: the ${mixScale} demo chain with quiet blocks between its blocks, so that ${(100 * mix.ourShare).toFixed(1)}% of the ` +
    `blocks carry events of ours (${mixShare.source}), and ${mix.otherEvents} events of other kinds a block on average ` +
    `(\`epochview demo --scale ${mixScale} --our-share ${mix.ourShare} --other-events ${mix.otherEvents} --format evts\`).`
  );
}

async function main(): Promise<void> {
  const commit = describeCommit(ROOT);
  const machine = describeMachine();
  const versions = `node ${process.version}, ${await storeVersion(store, databaseUrl)}, epochview ${commit}`;
  const settings =
    (requests !== undefined
      ? `${requests} requests per measurement with fetch`
      : `wrk, ${duration} s per measurement after ${warmup} s of warm-up`) +
    `, concurrency ${concurrencies.join(' and ')}, ${values.gzip ? 'gzip' : 'no compression (no Accept-Encoding)'}, server log level ${logLevel}, demo seed ${seed}, ` +
    `${perScenario} distinct URLs per scenario at most, response cache ${caches.map((c) => (c === 'on' ? `on (${responseCacheMb} MiB; the chain does not move, so repeated URLs hit)` : 'off (every request reaches the store)')).join(', then ')}`;
  log(`${store}: ${machine}; ${versions}`);
  if (values['ingest-formats']) return ingestFormats(machine, versions, commit);

  // Ingest every scale first (one at a time); then, for each cache setting, serve them all and
  // measure (the embedded store is one process's: one service per store at a time).
  const ingested: IngestedScale[] = [];
  let mixed: MixResult | undefined;
  let sampled: SampledScale[] = [];
  const pages = new Map<string, PageMeasurement[]>(scales.map((s) => [s, []]));
  try {
    for (const scale of scales) ingested.push(await ingestScale(scale));
    if (mixScale !== undefined) {
      const load = loadAverage();
      mixed = mixResult(await ingestMix(), load);
    }
    for (const cache of caches) {
      const services: RunningServer[] = [];
      try {
        for (const scale of ingested) {
          services.push(await startService([...scale.args, '--response-cache-mb', String(cache === 'on' ? responseCacheMb : 0)], logLevel));
          log(`${scale.scale}: service with the cache ${cache} on ${services[services.length - 1]!.url}`);
        }
        if (sampled.length === 0) sampled = await Promise.all(ingested.map((scale, i) => sampleScale(scale, services[i]!)));
        await measureAll(sampled, services, cache, pages);
      } finally {
        for (const s of services) await s.stop();
      }
    }
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((e: unknown) => log(`cleanup: ${(e as Error).message}`));
  }
  const results: ScaleResult[] = sampled.map((p) => ({
    scale: p.scale,
    ingest: p.ingest,
    population: p.population,
    pages: pages.get(p.scale)!,
  }));

  const date = today();
  const run: RunResult = { store, date, machine, versions, settings, scales: results, ...(mixed ? { mix: mixed } : {}) };
  const base = `${date}-${store}${caches.includes('on') ? '' : '-uncached'}`;
  log(`results written to ${writeResults(outDir, `${base}.md`, `${renderMarkdown(run)}\n`)} (and .json)`);
  writeFileSync(join(outDir, `${base}.json`), JSON.stringify(run, null, 2));
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
