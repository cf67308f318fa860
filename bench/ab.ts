/**
 * The A/B benchmark: two or more ways of serving the same chain, measured in one run on one
 * machine, interleaved. `npm run build && npx tsx bench/ab.ts --help` for the options; the
 * sides are every combination of --build, --store, --workers and --node (builds: this checkout, a
 * built checkout, or git commits each built in a folder of its own).
 *
 * Each side ingests the demo chain into a store of its own with its own CLI (sides of one build
 * on a PostgreSQL server share it; a hot standby serves its primary's). Every URL's answer
 * (status and body) is compared across the sides. Then per scenario (bench/scenarios.ts: up to
 * --urls distinct URLs drawn from the data) and response cache setting, every side is served
 * afresh, all at once, and per concurrency each side is measured with wrk over the same URLs, in
 * rounds that alternate the order (A B, then B A): on a shared machine whose load drifts, the
 * drift weighs on every side alike. With --together every side is loaded at the same time, each
 * by its own wrk: the sides then share whatever else the machine runs, second by second. Each
 * measurement also gives the serve process's CPU time per answer (one worker), which depends far
 * less on the machine's load than req/s does.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { SETTINGS } from '../src/config.js';
import { isDemoScale } from '../src/demo/scales.js';
import { createPgCluster, createStandby, type PgCluster } from '../scripts/pg-cluster.js';
import { type Build, resolveBuild } from './builds.js';
import { benchArgs, cacheSettingsOption, COMMON_OPTIONS, list, progressLog, scenarioIdsOption, serverUrl } from './cli-args.js';
import { describeMachine, loadAverage, today, writeResults } from './describe.js';
import { demoFile, ingestOrReuse } from './ingest.js';
import { runLoad, wrkInstalled, type LoadResult } from './load.js';
import { cpuSeconds } from './cpu.js';
import { cacheOutcomes, outcomesSince, totalOutcomes } from './metrics.js';
import { ROOT } from './paths.js';
import { hitRatio, type CacheOutcomes } from './report.js';
import { random, readCursors, readKeys } from './sample.js';
import { buildScenarios, SCENARIO_IDS, type Scenario } from './scenarios.js';
import { startService, type RunningServer } from './servers.js';
import { standbyPollCost, waitForStandby } from './standby.js';
import { type BenchStore, benchStore, DEFAULT_DATABASE_URL, storeVersion } from './stores.js';

const STORES = ['postgres', 'pglite', 'primary', 'standby'] as const;
type SideStore = (typeof STORES)[number];

const HELP = `usage: npm run build && npx tsx bench/ab.ts [options]

The sides measured: every combination of these (two or more; the first is A, the one the others
are divided by):
  --build a,b               builds (default .): . (this checkout, as built by npm run build), a
                            built checkout's folder, or a git revision (exported into
                            <cache>/builds/<commit> and built there once)
  --store a,b               postgres (the server of --database-url, default DATABASE_URL or
                            ${DEFAULT_DATABASE_URL}), pglite, primary or standby (a private
                            PostgreSQL primary and its streaming hot standby, made for the run);
                            default postgres
  --workers a,b             serve --workers (default 1)
  --node a,b                the Node.js binaries that run serve (default: the one running this;
                            the stores are ingested by that one)

What is measured:
  --scale s                 demo chain (default medium; small for a quick look)
  --scenarios a,b           scenario ids, resources or names (default all): ${SCENARIO_IDS.join(', ')}
  --urls n                  distinct URLs per scenario, drawn from A's data (default 1000)
  --response-cache off,on   the response cache, each setting in turn (default off,on)
  --response-cache-mb n     the response cache when on (default ${SETTINGS.responseCacheMb.default})
  --concurrency a,b         connections (default 32; wrk runs 2 threads, 1 at c=1)
  --duration s              whole seconds per measurement (default 5)
  --warmup s                whole seconds of warm-up before each measurement (default 2)
  --rounds n                rounds, the order of the sides reversed every other one (default 3)
  --together                each round loads every side at the same time, each by its own wrk
                            with --concurrency connections, instead of one side after another
  --check-urls n            URLs per scenario whose answers must be the same from every side
                            before measuring (default all; 0: none, for builds that answer
                            differently on purpose)
  --log-level level         the servers' log level (default info: a line per request)
  --seed n                  demo chain seed and URL sample (default 1)

Where:
  --name name               results name (default: what varies: builds, stores, workers); written to
                            <out>/<date>-<name>-<commits>.md
  --database-url URL        server of --store postgres (default DATABASE_URL)
  --cache dir               demo files, builds and reused stores (default bench/.cache)
  --out dir                 results folder (default bench/results)
  --reuse                   keep the ingested stores, and reuse them next time (by scale, seed
                            and commit; not a private primary's)`;

const { values, fail } = benchArgs(HELP, {
  ...COMMON_OPTIONS,
  build: { type: 'string', default: '.' },
  store: { type: 'string', default: 'postgres' },
  workers: { type: 'string', default: '1' },
  node: { type: 'string', default: process.execPath },
  scale: { type: 'string', default: 'medium' },
  scenarios: { type: 'string', default: '' },
  urls: { type: 'string', default: '1000' },
  'response-cache': { type: 'string', default: 'off,on' },
  'response-cache-mb': { type: 'string', default: String(SETTINGS.responseCacheMb.default) },
  concurrency: { type: 'string', default: '32' },
  duration: { type: 'string', default: '5' },
  warmup: { type: 'string', default: '2' },
  rounds: { type: 'string', default: '3' },
  together: { type: 'boolean', default: false },
  'check-urls': { type: 'string', default: 'all' },
  'log-level': { type: 'string', default: 'info' },
  name: { type: 'string' },
  reuse: { type: 'boolean', default: false },
});

/** Whole numbers of a comma-separated option, each at least `min`. */
const integers = (option: keyof typeof values, min: number): number[] => {
  const ns = list(String(values[option])).map(Number);
  if (ns.length === 0 || ns.some((n) => !Number.isInteger(n) || n < min)) fail(`--${option} must be whole numbers ≥ ${min}`);
  return ns;
};
const integer = (option: keyof typeof values, min: number) => integers(option, min)[0]!;

const scale = values.scale;
if (!isDemoScale(scale)) fail(`unknown scale ${scale}`);
const stores = list(values.store) as SideStore[];
for (const s of stores) if (!STORES.includes(s)) fail(`--store: ${s} is not one of ${STORES.join(', ')}`);
const workerCounts = integers('workers', 1);
const nodes = list(values.node).map(nodeBinary);
if (list(values.build).length * stores.length * workerCounts.length * nodes.length < 2)
  fail('nothing to compare: give two or more values of --build, --store, --workers or --node');
if (stores.includes('pglite') && workerCounts.some((w) => w > 1))
  fail('PGlite is served by one worker only: --workers 1 with --store pglite');
const caches = cacheSettingsOption(values['response-cache'], fail);
const scenarioIds = scenarioIdsOption(values.scenarios, fail);
const perScenario = integer('urls', 1);
const cacheMb = integer('response-cache-mb', 1);
const concurrencies = integers('concurrency', 1);
const duration = integer('duration', 1);
const warmup = integer('warmup', 0);
const rounds = integer('rounds', 1);
const checkUrls = values['check-urls'] === 'all' ? Number.POSITIVE_INFINITY : integer('check-urls', 0);
const seed = integer('seed', 0);
const databaseUrl = serverUrl(values['database-url']);
const cacheDir = resolve(values.cache);
if (!wrkInstalled()) fail('wrk is not installed (Debian: apt-get install wrk)');

const log = progressLog('ab');

/** A Node.js binary of --node, with the version it says it is. */
interface NodeBinary {
  path: string;
  version: string;
}

/** A path is taken from where the harness runs (serve runs in the repository's root); a bare name from PATH. */
function nodeBinary(given: string): NodeBinary {
  const path = given.includes('/') ? resolve(given) : given;
  const run = spawnSync(path, ['--version'], { encoding: 'utf8' });
  if (run.status !== 0) fail(`--node: ${given} does not run (${run.error?.message ?? run.stderr.trim()})`);
  return { path, version: run.stdout.trim() };
}

/** A way of serving the chain. */
interface Side {
  letter: string;
  build: Build;
  store: SideStore;
  workers: number;
  node: NodeBinary;
  /** The store it ingested into (a standby: its primary's). */
  ingested: BenchStore;
  /** serve's arguments that select its store. */
  storeArgs: string[];
}

/** One side's measurement. */
interface Run {
  load: LoadResult;
  outcomes: CacheOutcomes | undefined;
  /** The serve process's CPU µs per answer during the run (one worker; undefined with more). */
  cpuUs: number | undefined;
}

/** A row of the table: every side's runs, by round. */
interface Row {
  scenario: Scenario;
  cache: string;
  concurrency: number;
  runs: Run[][];
}

const STORE_NAMES: Record<SideStore, string> = {
  postgres: 'PostgreSQL server',
  pglite: 'PGlite',
  primary: 'private PostgreSQL primary',
  standby: 'its hot standby',
};

const cleanups: (() => Promise<void>)[] = [];

/** The private primary, and its standby, once a side needs them. */
let clusters: { primary: PgCluster; standby?: PgCluster } | undefined;
async function privateClusters(withStandby: boolean): Promise<{ primary: PgCluster; standby?: PgCluster }> {
  if (!clusters) {
    const primary = await createPgCluster();
    cleanups.push(() => primary.destroy());
    clusters = { primary };
    log(`private primary on port ${primary.port} (${primary.binaries.source} ${primary.binaries.dir})`);
  }
  if (withStandby && !clusters.standby) {
    const standby = await createStandby(clusters.primary);
    // Destroyed before its primary (the cleanups run last first).
    cleanups.push(() => standby.destroy());
    clusters.standby = standby;
    log(`its hot standby on port ${standby.port}`);
  }
  return clusters;
}

/** With a standby side: what its chain head poll costs, measured once it caught up. */
let standbyPoll: string | undefined;

/** The sides, each with its store ingested (stores shared by sides of one build are ingested once). */
async function prepareSides(builds: Build[], file: string): Promise<Side[]> {
  const combos = builds.flatMap((build) =>
    stores.flatMap((store) => workerCounts.flatMap((workers) => nodes.map((node) => ({ build, store, workers, node })))),
  );
  const ingested = new Map<string, BenchStore>();
  const sides: Side[] = [];
  for (const [i, { build, store, workers, node }] of combos.entries()) {
    const letter = String.fromCharCode(65 + i);
    const onServer = store !== 'pglite';
    const cluster = store === 'primary' || store === 'standby' ? await privateClusters(store === 'standby') : undefined;
    // A PGlite folder is one process's: a side of its own each.
    const key = `${cluster ? 'primary' : store}/${build.id}${onServer ? '' : `/${letter}`}`;
    let target = ingested.get(key);
    if (!target) {
      const reuse = values.reuse && build.exact && !cluster;
      const name = `ab_${scale}_s${seed}_${build.id}${onServer ? '' : `_${letter}`}${reuse ? '' : `_${process.pid}`}`.replace(/\W/g, '_');
      target = benchStore(onServer ? 'postgres' : 'pglite', name, { databaseUrl: cluster?.primary.url ?? databaseUrl, cacheDir });
      if (!reuse) cleanups.push(target.drop);
      const marker = join(cacheDir, `ingested-${onServer ? 'postgres' : 'pglite'}-${name}.json`);
      await ingestOrReuse(target, file, { reuse, marker, cli: build.cli, what: `${build.id} into ${store}`, log });
      ingested.set(key, target);
    }
    let storeArgs = target.args;
    if (store === 'standby') {
      // The same database, on the standby.
      const url = new URL(target.databaseUrl!);
      url.port = String(cluster!.standby!.port);
      await waitForStandby(target.databaseUrl!, url.toString());
      storeArgs = ['--database-url', url.toString()];
      standbyPoll ??= await standbyPollCost(url.toString());
    }
    sides.push({ letter, build, store, workers, node, ingested: target, storeArgs });
  }
  return sides;
}

/** Runs `fn` over the items, `width` at a time. */
async function inParallel<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: width }, worker));
}

/** Every side answers the first --check-urls URLs of each scenario as A does, and A with 200; returns how many URLs were compared. */
async function checkAnswers(scenarios: Scenario[], sides: Side[], servers: RunningServer[]): Promise<number> {
  let checked = 0;
  for (const sc of scenarios) {
    const urls = sc.urls.slice(0, checkUrls);
    await inParallel(urls, 8, async (url) => {
      const answers = await Promise.all(
        servers.map(async (s) => fetch(s.url + url).then(async (r) => ({ status: r.status, body: await r.text() }))),
      );
      const a = answers[0]!;
      if (a.status !== 200) throw new Error(`${sc.id}: A answered ${url} with ${a.status}: ${a.body.slice(0, 300)}`);
      for (const [i, x] of answers.entries()) {
        if (x.status !== a.status || x.body !== a.body) {
          throw new Error(
            `${sc.id}: ${sides[i]!.letter} answers ${url} otherwise than A (--check-urls 0 to measure anyway):\n` +
              `A: ${a.status} ${a.body.slice(0, 300)}\n${sides[i]!.letter}: ${x.status} ${x.body.slice(0, 300)}`,
          );
        }
      }
    });
    checked += urls.length;
  }
  return checked;
}

/** Runs `fn` with every side served at once, the response cache off or on (a PGlite folder is one process's: one server each at a time). */
async function withServers<T>(sides: Side[], cache: string, fn: (servers: RunningServer[]) => Promise<T>): Promise<T> {
  const servers: RunningServer[] = [];
  try {
    for (const s of sides) {
      const args = [...s.storeArgs, '--workers', String(s.workers), '--response-cache-mb', String(cache === 'on' ? cacheMb : 0)];
      servers.push(await startService(args, values['log-level'], s.build.cli, [s.node.path]));
    }
    return await fn(servers);
  } finally {
    for (const s of servers) await s.stop();
  }
}

/**
 * One side's measurement: a warm-up, then the run over the scenario's URLs, with the cache's
 * outcomes and the process's CPU time meanwhile (its workers' are not counted: none then).
 */
async function measure(side: Side, server: RunningServer, urls: readonly string[], connections: number, cache: string): Promise<Run> {
  if (warmup > 0) await runLoad({ baseUrl: server.url, urls, connections, duration: warmup });
  const before = cache === 'on' ? await cacheOutcomes(server.url) : undefined;
  const cpuBefore = cpuSeconds(server.pid);
  const load = await runLoad({ baseUrl: server.url, urls, connections, duration });
  const cpuUs = side.workers === 1 ? ((cpuSeconds(server.pid) - cpuBefore) * 1e6) / Math.max(1, load.requests) : undefined;
  return { load, outcomes: before && outcomesSince(before, await cacheOutcomes(server.url)), cpuUs };
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => n.toFixed(n < 10 ? 2 : 1);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const rps = (runs: Run[]) => runs.map((r) => r.load.reqPerSec);

function renderRow(row: Row): string {
  const [a, ...others] = row.runs;
  const reqs = row.runs.map((runs) => `${int(mean(rps(runs)))}${runs.length > 1 ? ` (${rps(runs).map(int).join('; ')})` : ''}`);
  const ratios = others.map((runs) => {
    const byRound = runs.map((r, i) => r.load.reqPerSec / a![i]!.load.reqPerSec);
    const spread = runs.length > 1 ? ` (${Math.min(...byRound).toFixed(2)}–${Math.max(...byRound).toFixed(2)})` : '';
    return `×${(mean(rps(runs)) / mean(rps(a!))).toFixed(2)}${spread}`;
  });
  const latencies = row.runs.map((runs) => `${ms(mean(runs.map((r) => r.load.p50)))} / ${ms(mean(runs.map((r) => r.load.p99)))}`);
  const cpu = row.runs.map((runs) => (runs.some((r) => r.cpuUs === undefined) ? '-' : int(mean(runs.map((r) => r.cpuUs!)))));
  const hits = row.runs.map((runs) => {
    const all = totalOutcomes(runs.flatMap((r) => (r.outcomes ? [r.outcomes] : [])));
    return all.hit + all.shared + all.miss + all.bypass === 0 ? '-' : `${Math.round(100 * hitRatio(all))}%`;
  });
  const errors = row.runs.map((runs) => String(runs.reduce((n, r) => n + r.load.errors, 0))).join(' / ');
  const cells = [
    row.scenario.id,
    int(row.scenario.urls.length),
    row.cache,
    String(row.concurrency),
    ...reqs,
    ...ratios,
    ...latencies,
    ...cpu,
  ];
  return `| ${[...cells, hits.join(' / '), errors].join(' | ')} |`;
}

function tableHead(sides: Side[]): string[] {
  const [a, ...others] = sides.map((s) => s.letter);
  const columns = [
    'scenario',
    'URLs',
    'cache',
    'c',
    ...sides.map((s) => `${s.letter} req/s`),
    ...others.map((x) => `${x} ÷ ${a}`),
    ...sides.map((s) => `${s.letter} p50 / p99 ms`),
    ...sides.map((s) => `${s.letter} CPU µs`),
    `hits ${sides.map((s) => s.letter).join(' / ')}`,
    `errors ${sides.map((s) => s.letter).join(' / ')}`,
  ];
  const align = columns.map((_, i) => (i < 4 ? '---' : '--:'));
  return [`| ${columns.join(' | ')} |`, `|${align.join('|')}|`];
}

const workersText = (n: number) => `${n} worker${n > 1 ? 's' : ''}`;

function describeSide(side: Side): string {
  const where = side.build.dir === ROOT ? 'this checkout' : relative(ROOT, side.build.dir) || side.build.dir;
  return (
    `- **${side.letter}**: build \`${side.build.id}\` (${where}), ${STORE_NAMES[side.store]}, ${workersText(side.workers)}, ` +
    `Node.js ${side.node.version} (\`${side.node.path}\`): ` +
    `\`serve ${[...side.storeArgs, '--workers', side.workers].join(' ')}\``
  );
}

/** What sets the sides apart: the options given more than one value, with a side's value of each. */
const VARYING = [
  { option: 'builds', varies: list(values.build).length > 1, of: (s: Side) => s.build.id },
  { option: 'stores', varies: stores.length > 1, of: (s: Side) => STORE_NAMES[s.store] },
  { option: 'workers', varies: workerCounts.length > 1, of: (s: Side) => workersText(s.workers) },
  { option: 'node', varies: nodes.length > 1, of: (s: Side) => `Node.js ${s.node.version}` },
].filter((v) => v.varies);

/** A results file name not yet taken: <date>-<name>-<commits>.md, then -2, -3… */
function resultsFile(sides: Side[]): string {
  const name = values.name ?? VARYING.map((v) => v.option).join('-');
  const commits = [...new Set(sides.map((s) => s.build.id.replace('+', '-')))].join('-');
  const base = `${today()}-${name}-${commits}`;
  for (let n = 1; ; n++) {
    const file = `${base}${n > 1 ? `-${n}` : ''}.md`;
    if (!existsSync(join(values.out, file))) return file;
  }
}

async function main(): Promise<void> {
  const loadBefore = loadAverage();
  const builds = list(values.build).map((spec) => resolveBuild(spec, join(cacheDir, 'builds'), log));
  const file = await demoFile(cacheDir, scale, seed, log);
  const sides = await prepareSides(builds, file);
  for (const s of sides) log(`${s.letter}: ${s.build.id}, ${STORE_NAMES[s.store]}, ${workersText(s.workers)}, Node.js ${s.node.version}`);

  const db = await sides[0]!.ingested.open();
  const keys = await readKeys((sql, params) => db.query(sql, params)).finally(() => db.close());
  // The URLs, drawn from A's data, and every side's answers to them.
  const { scenarios, checked } = await withServers(sides, 'off', async (servers) => {
    const population = { keys, cursors: await readCursors(servers[0]!.url, keys) };
    const scenarios = buildScenarios(scenarioIds, population, perScenario, random(seed));
    return { scenarios, checked: await checkAnswers(scenarios, sides, servers) };
  });
  log(`${checked} URLs answered alike by every side`);
  const rows: Row[] = [];
  for (const sc of scenarios) {
    for (const cache of caches) {
      // Servers of their own for each scenario: what one scenario left in the caches does not weigh on the next.
      await withServers(sides, cache, async (servers) => {
        for (const c of concurrencies) {
          const runs: Run[][] = sides.map(() => []);
          for (let round = 0; round < rounds; round++) {
            const order = round % 2 === 0 ? sides.map((_, i) => i) : sides.map((_, i) => sides.length - 1 - i);
            const measured = (i: number) => measure(sides[i]!, servers[i]!, sc.urls, c, cache);
            const results = values.together ? await Promise.all(order.map(measured)) : [];
            for (const [k, i] of order.entries()) {
              const run = values.together ? results[k]! : await measured(i);
              runs[i]!.push(run);
              log(
                `${sc.id} cache ${cache} c=${c} round ${round + 1} ${sides[i]!.letter}: ${int(run.load.reqPerSec)} req/s, ` +
                  `p50 ${ms(run.load.p50)} ms, p99 ${ms(run.load.p99)} ms, ${run.load.errors} errors` +
                  (run.cpuUs === undefined ? '' : `, ${int(run.cpuUs)} µs of CPU an answer`),
              );
            }
          }
          rows.push({ scenario: sc, cache, concurrency: c, runs });
        }
      });
    }
  }

  const versions = [
    ...new Set(
      await Promise.all(
        sides.map((s) =>
          storeVersion(s.store === 'pglite' ? 'pglite' : 'postgres', s.store === 'postgres' ? databaseUrl : (clusters?.primary.url ?? '')),
        ),
      ),
    ),
  ];
  const command = ['npx tsx bench/ab.ts', ...process.argv.slice(2).map((a) => (/^[\w./,:=@+-]+$/.test(a) ? a : `'${a}'`))].join(' ');
  const lines = [
    `# A/B on the ${scale} chain, ${today()}: ${sides.map((s) => `${s.letter} ${VARYING.map((v) => v.of(s)).join(', ')}`).join('; ')}`,
    '',
    `\`${command}\``,
    '',
    ...sides.map(describeSide),
    '',
    `The ${scale} demo chain (seed ${seed}) ingested by each side's build; ${versions.join(', ')}; node ${process.version}; ${describeMachine()}. ` +
      `serve at log level ${values['log-level']}, started afresh for each scenario and response cache setting: off (\`--response-cache-mb 0\`) or on (${cacheMb} MiB; the chain does not move, so an answer kept is kept for good). ` +
      `Load: wrk (2 threads, 1 at c=1) over each scenario's distinct URLs, drawn from A's data (seed ${seed}) and sent in turn by a Lua script; ` +
      `${duration} s per measurement after ${warmup} s of warm-up; ${rounds} round${rounds > 1 ? 's' : ''}, ` +
      (values.together
        ? `each loading every side at the same time (a wrk of ${concurrencies.join(' or ')} connections each). `
        : 'the sides in turn, in reverse order every other round. ') +
      `Before measuring, ${int(checked)} URLs answered alike (status and body) by every side. Load average (1, 5, 15 min): ${loadBefore} at the start, ${loadAverage()} at the end.`,
    '',
    ...tableHead(sides),
    ...rows.map(renderRow),
    '',
    "req/s: the mean of the rounds (each round's). ÷ A: the ratio of the means (the lowest and highest of the rounds' own ratios). " +
      "p50 / p99: the means of the rounds. CPU: the serve process's CPU time per answer (user and system, all its threads), the mean of the rounds. " +
      'hits: the response cache hits among the requests it saw during the measurements.',
    '',
    ...scenarios.map((s) => `- ${s.id}: ${s.description}`),
    ...(standbyPoll ? ['', standbyPoll] : []),
  ];
  const path = writeResults(values.out, resultsFile(sides), `${lines.join('\n')}\n`);
  log(`written to ${path}`);
}

try {
  await main();
} catch (err) {
  process.stderr.write(`ab failed: ${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
} finally {
  for (const c of cleanups.reverse()) await c().catch((e: unknown) => log(`cleanup: ${(e as Error).message}`));
}
