/**
 * Instructions per answer: builds compared by what they execute, not by how fast a shared machine
 * lets them run. req/s and even CPU time per answer move by a third from one minute to the next
 * on a busy 2-core machine (the same build measured twice in a row: 57 and 107 µs an answer);
 * an instruction count hardly does, unless the machine is overloaded (see bench/README.md).
 * `npm run build && npx tsx bench/instructions.ts --help`.
 *
 * Each build ingests the demo chain into a PostgreSQL database of its own (reused with --reuse,
 * as bench/ab.ts does), then serves it under valgrind's callgrind, which counts the instructions
 * every thread of the process executes (the store's are PostgreSQL's, not counted). Per scenario
 * (bench/scenarios.ts's URLs, drawn from the first build's data), every URL is asked in turn
 * over one keep-alive connection, --warm times so that the JIT has compiled what it will, then
 * --passes times counted, each pass on its own: their mean, divided by the URLs, is the answer's
 * instructions (the mean, not the median: a full garbage collection falls in one pass of several,
 * and is the answers' cost all the same). V8 runs single-threaded with fixed seeds
 * (DETERMINISTIC), so that a count is the build's, not the moment's. What this leaves out: concurrency (one request at a time, so
 * no batched statements), and what costs time without instructions (cache misses, page faults,
 * the kernel).
 * Use it beside bench/ab.ts, not instead.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, get } from 'node:http';
import { resolveBuild, type Build } from './builds.js';
import { isDemoScale } from '../src/demo/scales.js';
import { benchArgs, cacheSettingsOption, COMMON_OPTIONS, list, progressLog, scenarioIdsOption, serverUrl } from './cli-args.js';
import { describeMachine, loadAverage, today, writeResults } from './describe.js';
import { demoFile, ingestOrReuse } from './ingest.js';
import { random, readCursors, readKeys } from './sample.js';
import { buildScenarios, SCENARIO_IDS } from './scenarios.js';
import { startService, type RunningServer } from './servers.js';
import { benchStore, type BenchStore } from './stores.js';

const HELP = `usage: npm run build && npx tsx bench/instructions.ts [options]

  --build a,b               builds (default .): . (this checkout, as built by npm run build), a
                            built checkout's folder, or a git revision (as bench/ab.ts takes them)
  --scale s                 demo chain (default medium)
  --scenarios a,b           scenario ids, resources or names (default referral-sets/first50):
                            ${SCENARIO_IDS.join(', ')}
  --urls n                  distinct URLs per scenario (default 1000)
  --response-cache off,on   the response cache, each setting in turn (default off; on: every
                            counted request is a hit)
  --warm n                  passes over the URLs before counting (default 12: fewer leave the JIT
                            compiling during the counted passes)
  --passes n                passes counted; their mean is reported (default 3)
  --node-flags a;b          node's options, each set counted with every build ('' none; default
                            ''): --node-flags ';--max-semi-space-size=64' counts each build as
                            is and with that option
  --name name               results name (default instructions)
  --reuse                   keep the ingested stores and reuse them next time
  --keep-dumps dir          keep each counted pass's callgrind dump in dir, named
                            <scenario>-<cache>-<build>-<pass>, for callgrind_annotate
  --database-url URL        server of the stores (default DATABASE_URL)
  --seed n, --cache dir, --out dir   as bench/ab.ts`;

const { values, fail } = benchArgs(HELP, {
  ...COMMON_OPTIONS,
  build: { type: 'string', default: '.' },
  scale: { type: 'string', default: 'medium' },
  scenarios: { type: 'string', default: 'referral-sets/first50' },
  urls: { type: 'string', default: '1000' },
  'response-cache': { type: 'string', default: 'off' },
  warm: { type: 'string', default: '12' },
  passes: { type: 'string', default: '3' },
  name: { type: 'string', default: 'instructions' },
  reuse: { type: 'boolean', default: false },
  'keep-dumps': { type: 'string' },
  'node-flags': { type: 'string', default: '' },
});

const whole = (option: 'urls' | 'warm' | 'passes' | 'seed', min: number) => {
  const n = Number(values[option]);
  if (!Number.isInteger(n) || n < min) fail(`--${option} must be a whole number of at least ${min}`);
  return n;
};
const perScenario = whole('urls', 1);
const warm = whole('warm', 0);
const passes = whole('passes', 1);
const seed = whole('seed', 0);
const caches = cacheSettingsOption(values['response-cache'], fail);
const scenarioIds = scenarioIdsOption(values.scenarios, fail);
if (!isDemoScale(values.scale)) fail(`unknown scale ${values.scale}`);
const cacheDir = resolve(values.cache);
const keepDumps = values['keep-dumps'] === undefined ? undefined : resolve(values['keep-dumps']);
if (keepDumps !== undefined) mkdirSync(keepDumps, { recursive: true });
const databaseUrl = serverUrl(values['database-url']);
const log = progressLog('instructions');
for (const tool of ['valgrind', 'callgrind_control']) {
  if (spawnSync(tool, ['--version']).error) fail(`${tool} is not installed (Debian: apt-get install valgrind)`);
}

/**
 * V8 made repeatable: without these, what the JIT compiles depends on when its background
 * threads ran and the hash tables on a random seed, and the same build counted 8% apart from one
 * process to the next (with them, two processes of one build 0.2% apart).
 */
const DETERMINISTIC = ['--single-threaded', '--hash-seed=1', '--random-seed=1'];

/** The callgrind dumps of a server, in a folder of their own. */
interface Counted {
  server: RunningServer;
  dumps: string;
}

/** serve under callgrind, counting nothing until told (callgrind_control -i on). */
async function startCounted(build: Build, nodeFlags: readonly string[], store: BenchStore, cache: string): Promise<Counted> {
  const dumps = mkdtempSync(join(tmpdir(), 'epochview-callgrind-'));
  // JIT code is written and rewritten in place: valgrind must look for changed code everywhere.
  const valgrind = [
    'valgrind',
    '--tool=callgrind',
    '--smc-check=all-non-file',
    '--instr-atstart=no',
    `--callgrind-out-file=${dumps}/out.%p`,
  ];
  const cacheArgs = ['--response-cache-mb', cache === 'on' ? '256' : '0'];
  return {
    server: await startService([...store.args, ...cacheArgs], 'warn', build.cli, [
      ...valgrind,
      process.execPath,
      ...DETERMINISTIC,
      ...nodeFlags,
    ]),
    dumps,
  };
}

/** Asks every URL once, in turn, over one connection; every answer must be a 200. */
async function pass(base: string, urls: readonly string[], agent: Agent): Promise<void> {
  for (const url of urls) {
    const status = await new Promise<number | undefined>((done, failed) =>
      get(base + url, { agent }, (res) => res.resume().on('end', () => done(res.statusCode))).on('error', failed),
    );
    if (status !== 200) throw new Error(`${url}: ${status}`);
  }
}

/** The instructions of one counted pass (callgrind's totals of the dump it writes, kept as keepAs when given). */
async function countedPass(c: Counted, urls: readonly string[], agent: Agent, keepAs?: string): Promise<number> {
  const control = (...args: string[]) => execFileSync('callgrind_control', [...args, String(c.server.pid)], { stdio: 'ignore' });
  control('-z');
  control('-i', 'on');
  await pass(c.server.url, urls, agent);
  control('-i', 'off');
  const before = new Set(readdirSync(c.dumps));
  control('-d');
  const dump = readdirSync(c.dumps).find((f) => !before.has(f));
  if (dump === undefined) throw new Error('callgrind wrote no dump');
  const totals = /^totals:\s+(\d+)/m.exec(readFileSync(join(c.dumps, dump), 'utf8'));
  if (!totals) throw new Error(`no totals in ${dump}`);
  if (keepAs !== undefined) copyFileSync(join(c.dumps, dump), keepAs);
  return Number(totals[1]);
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const int = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const loadBefore = loadAverage();
  const builds = list(values.build).map((spec) => resolveBuild(spec, join(cacheDir, 'builds'), log));
  const file = await demoFile(cacheDir, values.scale, seed, log);
  const stores: BenchStore[] = [];
  for (const build of builds) {
    const reuse = values.reuse && build.exact;
    const name = `ab_${values.scale}_s${seed}_${build.id}${reuse ? '' : `_${process.pid}`}`.replace(/\W/g, '_');
    const store = benchStore('postgres', name, { databaseUrl, cacheDir });
    const marker = join(cacheDir, `ingested-postgres-${name}.json`);
    await ingestOrReuse(store, file, { reuse, marker, cli: build.cli, what: build.id, log });
    stores.push(store);
  }
  const db = await stores[0]!.open();
  const keys = await readKeys((sql, params) => db.query(sql, params)).finally(() => db.close());
  const first = await startService(stores[0]!.args, 'warn', builds[0]!.cli);
  const population = { keys, cursors: await readCursors(first.url, keys) };
  await first.stop();
  const scenarios = buildScenarios(scenarioIds, population, perScenario, random(seed));
  // Every build with every set of node's options; a side's store is its build's.
  const flagSets = values['node-flags'].split(';').map((set) => set.split(' ').filter((f) => f !== ''));
  const sides = builds.flatMap((build, b) =>
    flagSets.map((flags) => ({ build, flags, store: stores[b]!, id: [build.id, ...flags].join(' ') })),
  );

  const rows: string[] = [];
  for (const scenario of scenarios) {
    for (const cache of caches) {
      const counts: number[] = [];
      for (const side of sides) {
        const c = await startCounted(side.build, side.flags, side.store, cache);
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        try {
          for (let w = 0; w < warm; w++) await pass(c.server.url, scenario.urls, agent);
          const each: number[] = [];
          for (let p = 0; p < passes; p++) {
            const keepAs =
              keepDumps && join(keepDumps, `${scenario.id.replace('/', '-')}-${cache}-${side.id.replace(/\W+/g, '_')}-${p + 1}`);
            each.push((await countedPass(c, scenario.urls, agent, keepAs)) / scenario.urls.length);
          }
          counts.push(mean(each));
          log(`${scenario.id} cache ${cache} ${side.id}: ${each.map(int).join(', ')} instructions an answer`);
        } finally {
          agent.destroy();
          await c.server.stop();
          rmSync(c.dumps, { recursive: true, force: true });
        }
      }
      const ratios = counts.slice(1).map((n) => `×${(n / counts[0]!).toFixed(3)}`);
      rows.push(`| ${scenario.id} | ${scenario.urls.length} | ${cache} | ${counts.map(int).join(' | ')} | ${ratios.join(' | ')} |`);
    }
  }
  for (const [i, store] of stores.entries()) if (!(values.reuse && builds[i]!.exact)) await store.drop();

  const letters = sides.map((_, i) => String.fromCharCode(65 + i));
  const text = [
    `# Instructions per answer, ${values.scale} chain, ${today()}: ${sides.map((side, i) => `${letters[i]} ${side.id}`).join('; ')}`,
    '',
    `\`npx tsx bench/instructions.ts ${process.argv.slice(2).join(' ')}\``,
    '',
    `Each build serves its own ingest of the ${values.scale} demo chain (seed ${seed}) on the PostgreSQL server under valgrind's callgrind; ` +
      `every URL asked in turn over one connection, ${warm} passes before counting, then ${passes} counted passes: ` +
      `their mean divided by the URLs; node ${DETERMINISTIC.join(' ')}. Instructions of the serve process only, not of PostgreSQL. ` +
      `${describeMachine()}; load average ${loadBefore} at the start, ${loadAverage()} at the end (an overloaded machine moves the counts too).`,
    '',
    `| scenario | URLs | cache | ${letters.join(' | ')} | ${letters
      .slice(1)
      .map((l) => `${l} ÷ A`)
      .join(' | ')} |`,
    `|---|--:|---|${letters.map(() => '--:').join('|')}|${letters
      .slice(1)
      .map(() => '--:')
      .join('|')}|`,
    ...rows,
    '',
  ].join('\n');
  const commits = builds.map((b) => b.id).join('-');
  log(`written to ${writeResults(resolve(values.out), `${today()}-${values.name}-${commits}.md`, text)}`);
}

await main();
