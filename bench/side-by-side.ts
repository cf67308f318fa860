/**
 * `npm run build && npx tsx bench/side-by-side.ts --compare workers|stores`: two ways of serving
 * the same chain, measured in one run, interleaved, on the Node-bound scenarios (50-row and
 * 1,000-row pages), each over up to --urls distinct URLs drawn from the data as `npm run bench`
 * draws them (bench/sample.ts), wrk at c=32:
 * - `workers`: `serve --workers 1` against `--workers 2` on the PostgreSQL server, with the
 *   response cache off and on;
 * - `stores`: the PostgreSQL server against PGlite (its own thread), the response cache off.
 * Per scenario and setting: A then B, B then A in the next round, and so on. On a machine shared
 * with other work the load drifts: the rounds and the alternating order spread the drift over
 * both; the table gives each round.
 *
 * The stores: the chain in the database and the PGlite folder that `npm run bench -- --reuse`
 * keeps (ingested here when missing).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { demoFile, ingestFile } from './ingest.js';
import { runLoad, type LoadResult } from './load.js';
import { CLI, ROOT } from './paths.js';
import { random, readCursors, readKeys } from './sample.js';
import { buildScenarios, selectScenarioIds } from './scenarios.js';
import { startService, type RunningServer } from './servers.js';
import { benchStore, DEFAULT_DATABASE_URL, storeVersion } from './stores.js';

const { values } = parseArgs({
  options: {
    compare: { type: 'string', default: 'workers' },
    scale: { type: 'string', default: 'medium' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    scenarios: { type: 'string', default: 'referral-sets/first50,summaries/first50,referral-sets/default,summaries/default' },
    urls: { type: 'string', default: '1000' },
  },
});
const duration = Number(values.duration);
const warmup = Number(values.warmup);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const log = (s: string) => process.stderr.write(`[side-by-side] ${s}\n`);
if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`);

const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const cacheDir = join(ROOT, 'bench', '.cache');
const postgres = benchStore('postgres', `${values.scale}_s1`, { databaseUrl, cacheDir });
const pglite = benchStore('pglite', `${values.scale}_s1`, { databaseUrl, cacheDir });

/** A way of serving: its name and serve's arguments. */
interface Side {
  name: string;
  args: string[];
}
const COMPARISONS: Record<string, { title: string; a: Side; b: Side; cacheMb: number[] }> = {
  workers: {
    title: 'serve --workers 1 vs 2 on the PostgreSQL server',
    a: { name: '1 worker', args: [...postgres.args, '--workers', '1'] },
    b: { name: '2 workers', args: [...postgres.args, '--workers', '2'] },
    cacheMb: [0, 64],
  },
  stores: {
    title: 'the PostgreSQL server vs PGlite (in its own thread)',
    a: { name: 'PostgreSQL server', args: postgres.args },
    b: { name: 'PGlite', args: pglite.args },
    cacheMb: [0],
  },
};
const comparison = COMPARISONS[values.compare!];
if (!comparison) throw new Error(`--compare must be one of ${Object.keys(COMPARISONS).join(', ')}`);
const stores = values.compare === 'stores' ? [postgres, pglite] : [postgres];
const servers: RunningServer[] = [];
const load = (before: number[]) =>
  loadavg()
    .map((l, i) => `${(before[i] ?? l).toFixed(1)}→${l.toFixed(1)}`)
    .join(', ');
try {
  for (const store of stores) {
    if (await store.exists()) continue;
    await store.reset();
    const r = await ingestFile(await demoFile(cacheDir, values.scale!, 1, log), store.args);
    log(`ingested ${r.events} events into ${store.kind}`);
  }
  const db = await postgres.open();
  const keys = await readKeys((sql, params) => db.query(sql, params)).finally(() => db.close());

  const services = new Map<string, RunningServer>();
  for (const cacheMb of comparison.cacheMb) {
    for (const side of [comparison.a, comparison.b]) {
      // One cache setting only where PGlite serves: its folder is one process's.
      const service = await startService([...side.args, '--response-cache-mb', String(cacheMb)], 'warn');
      servers.push(service);
      services.set(`${cacheMb}/${side.name}`, service);
    }
  }
  // Distinct URLs per scenario drawn from the data, as npm run bench draws them.
  const population = { keys, cursors: await readCursors(servers[0]!.url, keys) };
  const scenarios = buildScenarios(selectScenarioIds(values.scenarios!.split(',')), population, Number(values.urls), random(1));
  for (const sc of scenarios) {
    for (const u of sc.urls.slice(0, 20)) {
      const bodies = await Promise.all(servers.map(async (s) => (await fetch(s.url + u)).text()));
      if (bodies.some((b) => b !== bodies[0])) throw new Error(`${sc.id}: the services answer ${u} differently`);
    }
  }

  const loadBefore = loadavg();
  const rows: string[] = [];
  for (const sc of scenarios) {
    for (const cacheMb of comparison.cacheMb) {
      const r: Record<string, LoadResult[]> = { [comparison.a.name]: [], [comparison.b.name]: [] };
      for (let round = 0; round < rounds; round++) {
        for (const side of round % 2 === 0 ? [comparison.a, comparison.b] : [comparison.b, comparison.a]) {
          const baseUrl = services.get(`${cacheMb}/${side.name}`)!.url;
          await runLoad({ baseUrl, urls: sc.urls, connections, duration: warmup });
          const m = await runLoad({ baseUrl, urls: sc.urls, connections, duration });
          r[side.name]!.push(m);
          log(
            `${sc.id} cache ${cacheMb ? 'on' : 'off'}, ${side.name}, round ${round + 1}: ${Math.round(m.reqPerSec)} req/s, p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms, ${m.errors} errors`,
          );
        }
      }
      const mean = (xs: LoadResult[]) => xs.reduce((n, x) => n + x.reqPerSec, 0) / xs.length;
      const cell = (xs: LoadResult[]) =>
        `${Math.round(mean(xs)).toLocaleString('en-US')} (${xs.map((x) => Math.round(x.reqPerSec).toLocaleString('en-US')).join(', ')}); p99 ${xs.map((x) => x.p99.toFixed(0)).join(', ')}${xs.some((x) => x.errors) ? `; ${xs.reduce((n, x) => n + x.errors, 0)} errors` : ''}`;
      const [a, b] = [r[comparison.a.name]!, r[comparison.b.name]!];
      rows.push(
        `| ${sc.id} (${sc.description}; ${sc.urls.length.toLocaleString('en-US')} URLs) | ${cacheMb ? 'on' : 'off'} | ${cell(a)} | ${cell(b)} | ×${(mean(b) / mean(a)).toFixed(2)} |`,
      );
    }
  }
  let commit = '';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    // Not a checkout.
  }
  const date = new Date().toISOString().slice(0, 10);
  const lines = [
    `# ${comparison.title}, ${date}`,
    '',
    `${values.scale} demo chain on ${(await Promise.all(stores.map((s) => storeVersion(s.kind, databaseUrl)))).join(' and ')}, epochview ${commit}, node ${process.version}; ${cpus().length} cores (${cpus()[0]?.model.trim() ?? ''}) shared by the server, PostgreSQL and wrk; ` +
      `wrk (bench/load.ts) c=${connections} over the distinct URLs of each scenario (a Lua script, round-robin), ${duration} s per measurement after ${warmup} s of warm-up, ${rounds} rounds interleaved. Load average (1, 5, 15 min) over the run: ${load(loadBefore)}.`,
    '',
    `| scenario | response cache | ${comparison.a.name}: mean req/s (per round); p99 ms | ${comparison.b.name}: mean req/s (per round); p99 ms | ÷ ${comparison.a.name} |`,
    '|---|---|--:|--:|--:|',
    ...rows,
  ];
  const out = join(ROOT, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  // Named by the commit too: a run of another build the same day does not overwrite it.
  const path = join(out, `${date}-${values.compare}${commit ? `-${commit}` : ''}.md`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  process.stdout.write(`${lines.join('\n')}\n`);
  log(`written to ${path}`);
} finally {
  await Promise.all(servers.map((s) => s.stop()));
}
