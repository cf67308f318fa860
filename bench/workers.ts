/**
 * `npm run build && npx tsx bench/workers.ts`: `serve --workers 1` against `serve --workers 2`
 * on the Node-bound scenarios (50-row and 1,000-row pages), with the response cache off and on,
 * in one run, interleaved (per scenario and cache setting: 1 worker then 2, 2 then 1 in the next
 * round, and so on), wrk at c=32. On a machine shared with other work the load drifts: the
 * rounds and the alternating order spread the drift over both; the table gives each round.
 *
 * The store: the medium chain on the PostgreSQL server of DATABASE_URL, in the database that
 * `npm run bench -- --reuse` keeps (ingested here when it is not there yet).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { demoFile, ingestFile } from './ingest.js';
import { runLoad, type LoadResult } from './load.js';
import { CLI, ROOT } from './paths.js';
import { buildScenarios, discoverIds } from './scenarios.js';
import { startService, type RunningServer } from './servers.js';
import { benchStore, DEFAULT_DATABASE_URL, storeVersion } from './stores.js';

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: 'medium' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    scenarios: { type: 'string', default: 'referral-sets/first50,summaries/first50,referral-sets/default,summaries/default' },
  },
});
const duration = Number(values.duration);
const warmup = Number(values.warmup);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const log = (s: string) => process.stderr.write(`[workers] ${s}\n`);
if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`);

const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const cacheDir = join(ROOT, 'bench', '.cache');
const store = benchStore('postgres', `${values.scale}_s1`, { databaseUrl, cacheDir });
const servers: RunningServer[] = [];
const load = (before: number[]) => loadavg().map((l, i) => `${(before[i] ?? l).toFixed(1)}→${l.toFixed(1)}`).join(', ');
try {
  if (!(await store.exists())) {
    await store.reset();
    const r = await ingestFile(await demoFile(cacheDir, values.scale!, 1, log), store.args);
    log(`ingested ${r.events} events`);
  }
  const db = await store.open();
  const ids = await discoverIds(db).finally(() => db.close());
  const scenarios = buildScenarios(values.scenarios!.split(','), { ...ids, middle: { referralSets: '', teamStats: '', summaries: '' } });

  const setups = [
    { cacheMb: 0, workers: 1 },
    { cacheMb: 0, workers: 2 },
    { cacheMb: 64, workers: 1 },
    { cacheMb: 64, workers: 2 },
  ];
  const services = new Map<string, RunningServer>();
  for (const s of setups) {
    const service = await startService([...store.args, '--workers', String(s.workers), '--response-cache-mb', String(s.cacheMb)], 'warn');
    servers.push(service);
    services.set(`${s.cacheMb}/${s.workers}`, service);
  }
  for (const sc of scenarios) {
    const bodies = await Promise.all(servers.map(async (s) => (await fetch(s.url + sc.url)).text()));
    if (bodies.some((b) => b !== bodies[0])) throw new Error(`${sc.id}: the services answer differently`);
  }

  const loadBefore = loadavg();
  const rows: string[] = [];
  for (const sc of scenarios) {
    for (const cacheMb of [0, 64]) {
      const r: Record<number, LoadResult[]> = { 1: [], 2: [] };
      for (let round = 0; round < rounds; round++) {
        for (const workers of round % 2 === 0 ? [1, 2] : [2, 1]) {
          const url = services.get(`${cacheMb}/${workers}`)!.url + sc.url;
          await runLoad({ url, connections, duration: warmup, client: 'wrk' });
          const m = await runLoad({ url, connections, duration, client: 'wrk' });
          r[workers]!.push(m);
          log(`${sc.id} cache ${cacheMb ? 'on' : 'off'}, ${workers} worker(s), round ${round + 1}: ${Math.round(m.reqPerSec)} req/s, p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms, ${m.errors} errors`);
        }
      }
      const mean = (xs: LoadResult[]) => xs.reduce((n, x) => n + x.reqPerSec, 0) / xs.length;
      const cell = (xs: LoadResult[]) => `${Math.round(mean(xs)).toLocaleString('en-US')} (${xs.map((x) => Math.round(x.reqPerSec).toLocaleString('en-US')).join(', ')}); p99 ${xs.map((x) => x.p99.toFixed(0)).join(', ')}${xs.some((x) => x.errors) ? `; ${xs.reduce((n, x) => n + x.errors, 0)} errors` : ''}`;
      rows.push(`| ${sc.id} (${sc.description}) | ${cacheMb ? 'on' : 'off'} | ${cell(r[1]!)} | ${cell(r[2]!)} | ×${(mean(r[2]!) / mean(r[1]!)).toFixed(2)} |`);
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
    `# serve --workers 1 vs 2, ${date}`,
    '',
    `${values.scale} demo chain on ${await storeVersion('postgres', databaseUrl)}, epochview ${commit}, node ${process.version}; ${cpus().length} cores (${cpus()[0]?.model.trim() ?? ''}) shared by the server, PostgreSQL and wrk; ` +
      `wrk -t1 c=${connections}, ${duration} s per measurement after ${warmup} s of warm-up, one URL per scenario, ${rounds} rounds interleaved. Load average (1, 5, 15 min) over the run: ${load(loadBefore)}.`,
    '',
    '| scenario | response cache | 1 worker: mean req/s (per round); p99 ms | 2 workers: mean req/s (per round); p99 ms | 2 ÷ 1 |',
    '|---|---|--:|--:|--:|',
    ...rows,
  ];
  const out = join(ROOT, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  const path = join(out, `${date}-workers.md`);
  writeFileSync(path, lines.join('\n') + '\n');
  process.stdout.write(lines.join('\n') + '\n');
  log(`written to ${path}`);
} finally {
  await Promise.all(servers.map((s) => s.stop()));
}
