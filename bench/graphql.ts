/**
 * GraphQL beside REST (issue 28 §6): per scenario, the same distinct requests asked of one
 * `serve` (response cache off) as REST URLs and as GraphQL documents (GET /graphql, the document
 * selecting every field of the REST answer, its arguments as variables), measured with wrk in
 * turns (REST, GraphQL, then GraphQL, REST…). Before measuring, every GraphQL answer is checked
 * against its REST answer converted by graphql.md §3. `--selection console` selects what the
 * console's own documents do where they select less (the leaderboard, a team's members).
 * `--build a,b` serves each build on the same store and measures them in the same turns.
 * `npm run build && npx tsx bench/graphql.ts --help`.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isDemoScale } from '../src/demo/scales.js';
import { benchArgs, COMMON_OPTIONS, progressLog, serverUrl } from './cli-args.js';
import { describeMachine, loadAverage, today, writeResults } from './describe.js';
import { graphqlAnswerOf, graphqlUrl, type Selection } from './graphql-urls.js';
import { demoFile, ingestOrReuse } from './ingest.js';
import { type LoadResult, runLoad, wrkInstalled } from './load.js';
import { random, readCursors, readKeys } from './sample.js';
import { buildScenarios, selectScenarioIds } from './scenarios.js';
import { type Build, resolveBuild } from './builds.js';
import { type RunningServer, startService } from './servers.js';
import { benchStore, storeVersion } from './stores.js';
import { cpuSeconds } from './cpu.js';

const HELP = `usage: npm run build && npx tsx bench/graphql.ts [options]
  --store s          postgres (the server of --database-url) or pglite (default postgres)
  --scale s          demo chain (default medium)
  --scenarios a,b    scenario ids, resources or names (default first50,default: 50 and 1,000 rows of each resource)
  --urls n           distinct requests per scenario (default 1000)
  --concurrency n    connections (default 32)
  --duration s       seconds per measurement (default 5)
  --warmup s         seconds of warm-up before each (default 2)
  --rounds n         rounds, REST and GraphQL in turn, the order reversed every other round (default 2)
  --build a,b        builds, each served on the same store and measured in the same turns (default .:
                     this checkout; a built checkout's folder or a git revision, as bench/ab.ts takes)
  --row-cache-mb n   serve's row cache (default: serve's own); 0 makes every page from the store, as the
                     first requests after a block that changed its rows are
  --selection s      all (every field of the REST answer, default) or console (what the console's
                     documents select: TeamsStatistics.graphql's leaderboard, Team.graphql's members)
  --reuse            keep the ingested store for the next run`;

const { values, fail } = benchArgs(HELP, {
  ...COMMON_OPTIONS,
  store: { type: 'string', default: 'postgres' },
  scale: { type: 'string', default: 'medium' },
  scenarios: { type: 'string', default: 'first50,default' },
  urls: { type: 'string', default: '1000' },
  concurrency: { type: 'string', default: '32' },
  duration: { type: 'string', default: '5' },
  warmup: { type: 'string', default: '2' },
  rounds: { type: 'string', default: '2' },
  build: { type: 'string', default: '.' },
  'row-cache-mb': { type: 'string' },
  selection: { type: 'string', default: 'all' },
  reuse: { type: 'boolean', default: false },
});
const int = (option: keyof typeof values) => {
  const n = Number(values[option]);
  if (!Number.isInteger(n) || n < 0) fail(`--${option} must be a whole number`);
  return n;
};
const store = values.store;
if (store !== 'postgres' && store !== 'pglite') fail('--store must be postgres or pglite');
if (!isDemoScale(values.scale)) fail(`unknown scale ${values.scale}`);
if (values.selection !== 'all' && values.selection !== 'console') fail('--selection must be all or console');
const selection = values.selection as Selection;
if (!wrkInstalled()) fail('wrk is not installed (Debian: apt-get install wrk)');
const [perScenario, connections, duration, warmup, rounds, seed] = [
  int('urls'),
  int('concurrency'),
  int('duration'),
  int('warmup'),
  int('rounds'),
  int('seed'),
];
const cacheDir = resolve(values.cache);
const rowCache = values['row-cache-mb'];
if (rowCache !== undefined && !/^\d+$/.test(rowCache)) fail('--row-cache-mb must be a whole number');
const serveArgs = ['--response-cache-mb', '0', ...(rowCache === undefined ? [] : ['--row-cache-mb', rowCache])];
const log = progressLog('graphql');

/** A measurement and the serve process's CPU µs per answer during it. */
type Measured = LoadResult & { cpuUs: number };

const n0 = (n: number) => Math.round(n).toLocaleString('en-US');
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function main(): Promise<void> {
  const loadBefore = loadAverage();
  const file = await demoFile(cacheDir, values.scale, seed, log);
  const name = `graphql_${values.scale}_s${seed}${values.reuse ? '' : `_${process.pid}`}`;
  const target = benchStore(store as 'postgres' | 'pglite', name, { databaseUrl: serverUrl(values['database-url']), cacheDir });
  await ingestOrReuse(target, file, {
    reuse: values.reuse,
    marker: join(cacheDir, `ingested-${store}-${name}.json`),
    what: 'this build',
    log,
  });
  const builds = values.build.split(',').map((spec) => resolveBuild(spec, join(cacheDir, 'builds'), log));
  const serves: { build: Build; server: RunningServer }[] = [];
  try {
    const db = await target.open();
    const keys = await readKeys((sql, params) => db.query(sql, params)).finally(() => db.close());
    const rows: string[] = [];
    try {
      for (const build of builds) serves.push({ build, server: await startService([...target.args, ...serveArgs], 'warn', build.cli) });
      // Every build walks the cursors: what that leaves in its row cache is alike.
      const cursors = await Promise.all(serves.map(({ server }) => readCursors(server.url, keys)));
      const population = { keys, cursors: cursors[0]! };
      const scenarios = buildScenarios(selectScenarioIds(values.scenarios.split(',')), population, perScenario, random(seed));
      const label = (b: Build, door: string) => (builds.length > 1 ? `${b.id} ${door}` : door);
      for (const sc of scenarios) {
        const gql = sc.urls.map((url) => graphqlUrl(url, selection));
        // Every request of every build: the GraphQL answer is the REST answer in GraphQL's encodings.
        for (const { build, server } of serves) {
          for (const [i, url] of sc.urls.entries()) {
            const [rest, answer] = await Promise.all([
              fetch(server.url + url).then((r) => r.text()),
              fetch(server.url + gql[i]!).then((r) => r.text()),
            ]);
            const expected = graphqlAnswerOf(url, rest, selection);
            if (answer !== expected)
              throw new Error(
                `${build.id} ${sc.id}: ${url} answered otherwise by GraphQL:\n${answer.slice(0, 300)}\n${expected.slice(0, 300)}`,
              );
          }
        }
        const sides = serves.flatMap(({ build, server }) => [
          { name: label(build, 'REST'), server, urls: sc.urls },
          { name: label(build, 'GraphQL'), server, urls: gql },
        ]);
        const runs = new Map(sides.map((side) => [side.name, [] as Measured[]]));
        for (let round = 0; round < rounds; round++) {
          for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
            const { server, urls } = side;
            if (warmup > 0) await runLoad({ baseUrl: server.url, urls, connections, duration: warmup });
            const cpuBefore = cpuSeconds(server.pid);
            const load = await runLoad({ baseUrl: server.url, urls, connections, duration });
            const cpuUs = ((cpuSeconds(server.pid) - cpuBefore) * 1e6) / Math.max(1, load.requests);
            runs.get(side.name)!.push({ ...load, cpuUs });
            log(
              `${sc.id} round ${round + 1} ${side.name}: ${n0(load.reqPerSec)} req/s, ${n0(cpuUs)} µs CPU an answer, p50 ${load.p50.toFixed(1)} ms, ${load.errors} errors`,
            );
          }
        }
        const rps = (xs: LoadResult[]) => mean(xs.map((x) => x.reqPerSec));
        const range = (xs: number[]) => `${n0(Math.min(...xs))}–${n0(Math.max(...xs))}`;
        const cpu = (xs: Measured[]) => range(xs.map((x) => x.cpuUs));
        const ms = (xs: LoadResult[]) => `${mean(xs.map((x) => x.p50)).toFixed(1)} / ${mean(xs.map((x) => x.p99)).toFixed(1)}`;
        const errors = (xs: LoadResult[]) => xs.reduce((s, x) => s + x.errors, 0);
        for (const { build } of serves) {
          const rest = runs.get(label(build, 'REST'))!;
          const graphql = runs.get(label(build, 'GraphQL'))!;
          const ratios = graphql.map((g, i) => g.reqPerSec / rest[i]!.reqPerSec);
          rows.push(
            `| ${sc.id} |${builds.length > 1 ? ` ${build.id} |` : ''} ${n0(sc.urls.length)} | ${n0(rps(rest))} (${range(rest.map((x) => x.reqPerSec))}) | ${n0(rps(graphql))} (${range(graphql.map((x) => x.reqPerSec))}) | ${(rps(graphql) / rps(rest)).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) | ${cpu(rest)} / ${cpu(graphql)} | ${ms(rest)} | ${ms(graphql)} | ${errors(rest)} / ${errors(graphql)} |`,
          );
        }
      }
    } finally {
      for (const { server } of serves) await server.stop();
    }
    const version = await storeVersion(store as 'postgres' | 'pglite', serverUrl(values['database-url']));
    const lines = [
      `# GraphQL beside REST on the ${values.scale} chain, ${today()}, ${store}`,
      '',
      `\`npx tsx bench/graphql.ts ${process.argv.slice(2).join(' ')}\``,
      '',
      `${builds.length > 1 ? `A \`serve ${serveArgs.join(' ')}\` of each build (${builds.map((b) => b.id).join(', ')}) on the same store, measured in the same turns` : `One \`serve ${serveArgs.join(' ')}\``} (${version}; node ${process.version}; ${describeMachine()}). Per scenario, its distinct REST URLs and the same requests as GraphQL (GET /graphql, ${selection === 'all' ? 'every field of the REST answer selected' : "the console's selections where they are smaller, else every field of the REST answer"}, the arguments as variables), each GraphQL answer checked against its REST answer first. wrk, c=${connections}, ${duration} s after ${warmup} s of warm-up, ${rounds} rounds in turn. Load average (1, 5, 15 min): ${loadBefore} at the start, ${loadAverage()} at the end.`,
      '',
      "req/s: the mean of the rounds (their range); GraphQL ÷ REST: of the means (the range of the rounds' ratios); CPU: the serve process's µs per answer (/proc/<pid>/stat), the rounds' range.",
      '',
      `| scenario |${builds.length > 1 ? ' build |' : ''} requests | REST req/s | GraphQL req/s | GraphQL ÷ REST | CPU µs/answer REST / GraphQL | REST p50 / p99 ms | GraphQL p50 / p99 ms | errors |`,
      `|---|${builds.length > 1 ? '---|' : ''}--:|--:|--:|--:|--:|--:|--:|--:|`,
      ...rows,
    ];
    let out = `${today()}-graphql-${store}.md`;
    for (let n = 2; existsSync(join(values.out, out)); n++) out = `${today()}-graphql-${store}-${n}.md`;
    log(`written to ${writeResults(values.out, out, `${lines.join('\n')}\n`)}`);
  } finally {
    if (!values.reuse) await target.drop();
  }
}

try {
  await main();
} catch (err) {
  process.stderr.write(`graphql bench failed: ${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
}
