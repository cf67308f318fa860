/**
 * `npm run build && tsx bench/replica.ts`: the same load of distinct URLs against `serve` on a
 * PostgreSQL primary and on its streaming hot standby, in one run, interleaved, with the response
 * cache off and on; and the cost of the standby's chain head poll. Both servers are private
 * clusters of this run (scripts/pg-cluster.ts), configured alike, with the demo chain
 * ingested into the primary and replayed by the standby.
 *
 * The URLs: --urls distinct valid requests sampled from the data by bench/sample.ts, every
 * scenario of bench/scenarios.ts in turn (random cursors from a full walk of each ordering,
 * random referees, referrers, teams, parties and assets, epoch ranges), in a shuffled order that
 * wrk walks round-robin (bench/load.ts), c=32.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createPgCluster, createStandby, type PgCluster } from '../scripts/pg-cluster.js';
import type { SqlParam } from '../src/db/store.js';
import { demoFile, ingestFile } from './ingest.js';
import { percentile, runLoad, type LoadResult } from './load.js';
import { random, readCursors, readKeys, shuffled } from './sample.js';
import { mixedUrls } from './scenarios.js';
import { ROOT } from './paths.js';
import { startService, type RunningServer } from './servers.js';

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: 'medium' },
    urls: { type: 'string', default: '2000' },
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
  },
});
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const wanted = Number(values.urls);
const log = (s: string) => process.stderr.write(`${s}\n`);

async function rows<T>(url: string, sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params as unknown[])).rows as T[];
  } finally {
    await c.end();
  }
}

async function wrk(baseUrl: string, urls: readonly string[], seconds: number): Promise<LoadResult> {
  return runLoad({ baseUrl, urls, connections, duration: seconds });
}

/** The standby's head poll: round trips from a client, and the server's own execution time. */
async function pollCost(url: string): Promise<{ roundTripMs: number; roundTripP99Ms: number; executionMs: number }> {
  // The watch's statement (src/db/chain-head-watch.ts with ROLE_COLUMNS).
  const { ROLE_COLUMNS } = await import('../src/db/server-role.js');
  const sql = `SELECT chain_head_state() AS state, ${ROLE_COLUMNS}`;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    for (let i = 0; i < 200; i++) await c.query(sql);
    const times: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const t = performance.now();
      await c.query(sql);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    let exec = 0;
    for (let i = 0; i < 500; i++) {
      const plan = (await c.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`)).rows[0]['QUERY PLAN'][0] as {
        'Execution Time': number;
        'Planning Time': number;
      };
      exec += plan['Execution Time'] + plan['Planning Time'];
    }
    return { roundTripMs: percentile(times, 50), roundTripP99Ms: percentile(times, 99), executionMs: exec / 500 };
  } finally {
    await c.end();
  }
}

const clusters: PgCluster[] = [];
const servers: RunningServer[] = [];
try {
  const file = await demoFile(join(ROOT, 'bench', '.cache'), values.scale!, 1, log);
  const primary = await createPgCluster();
  clusters.push(primary);
  await rows(primary.url, 'CREATE DATABASE epochview');
  const standby = await createStandby(primary);
  clusters.push(standby);
  log(`primary :${primary.port}, standby :${standby.port} (${primary.binaries.source} ${primary.binaries.dir})`);
  const ingested = await ingestFile(file, ['--database-url', primary.urlOf('epochview')]);
  log(`ingested ${ingested.events} events at ${Math.round(ingested.eventsPerSec)} events/s`);
  const head = async (url: string) => (await rows<{ h: string }>(url, 'SELECT height::text AS h FROM chain_head'))[0]?.h;
  const top = await head(primary.urlOf('epochview'));
  for (let i = 0; (await head(standby.urlOf('epochview'))) !== top; i++) {
    if (i > 600) throw new Error('the standby did not catch up in 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }

  const target = (cluster: PgCluster, cacheMb: number) =>
    startService(['--database-url', cluster.urlOf('epochview'), '--response-cache-mb', String(cacheMb)], 'warn');
  const services = {
    'primary, cache off': await target(primary, 0),
    'standby, cache off': await target(standby, 0),
    'primary, cache on': await target(primary, 64),
    'standby, cache on': await target(standby, 64),
  };
  servers.push(...Object.values(services));
  const keys = await readKeys((sql, params) => rows(primary.urlOf('epochview'), sql, params));
  const rand = random(1);
  const urls = shuffled(rand, mixedUrls({ keys, cursors: await readCursors(services['primary, cache off'].url, keys) }, wanted, rand));
  // Every URL is valid and the standby answers it as the primary does.
  for (const u of urls) {
    const [a, b] = await Promise.all([fetch(services['primary, cache off'].url + u), fetch(services['standby, cache off'].url + u)]);
    const [ta, tb] = await Promise.all([a.text(), b.text()]);
    if (a.status !== 200 || ta !== tb)
      throw new Error(`${u}: primary ${a.status}, standby ${b.status}${ta !== tb ? ', bodies differ' : ''}`);
  }
  log(`${urls.length} distinct URLs, each answered 200 and alike by both`);

  const poll = await pollCost(standby.urlOf('epochview'));
  log(
    `standby head poll: round trip p50 ${poll.roundTripMs.toFixed(3)} ms (p99 ${poll.roundTripP99Ms.toFixed(3)}), planning + execution ${poll.executionMs.toFixed(3)} ms`,
  );

  const results: Record<string, LoadResult[]> = {};
  for (let round = 0; round < rounds; round++) {
    for (const [name, service] of Object.entries(services)) {
      await wrk(service.url, urls, 2); // warm-up (and, with the cache, a first pass over the URLs)
      const r = await wrk(service.url, urls, duration);
      results[name] = [...(results[name] ?? []), r];
      log(
        `round ${round + 1} ${name}: ${Math.round(r.reqPerSec)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ${r.errors} errors`,
      );
    }
  }
  // How the caches answered: a bypass means the head was unknown (the standby poll failing, say).
  const outcomes: string[] = [];
  for (const name of ['primary, cache on', 'standby, cache on'] as const) {
    const text = await (await fetch(`${services[name].url}/metrics`)).text();
    const count = (o: string) =>
      Number(new RegExp(`^epochview_response_cache_requests_total\\{outcome="${o}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    outcomes.push(`${name}: ${['hit', 'shared', 'miss', 'bypass'].map((o) => `${o} ${count(o).toLocaleString('en-US')}`).join(', ')}`);
  }
  const mean = (name: string) => results[name]!.reduce((n, r) => n + r.reqPerSec, 0) / rounds;
  const lines = [
    `# Primary vs hot standby, ${new Date().toISOString().slice(0, 10)}`,
    '',
    `${values.scale} demo chain, ${urls.length} distinct URLs round-robin (every scenario of bench/scenarios.ts in turn), wrk -t2 -c${connections}, ${duration} s per run after a 2 s warm-up, ${rounds} rounds interleaved; ` +
      `PostgreSQL ${primary.binaries.source} (${primary.binaries.dir}), private clusters alike; ${cpus().length} cores, ${cpus()[0]?.model ?? ''}.`,
    '',
    '| serve on | req/s per round | p50 ms | p99 ms | errors |',
    '|---|--:|--:|--:|--:|',
    ...Object.entries(results).map(
      ([name, rs]) =>
        `| ${name} | ${rs.map((r) => Math.round(r.reqPerSec).toLocaleString('en-US')).join(', ')} | ${rs.map((r) => r.p50.toFixed(2)).join(', ')} | ${rs.map((r) => r.p99.toFixed(2)).join(', ')} | ${rs.reduce((n, r) => n + r.errors, 0)} |`,
    ),
    '',
    `Standby ÷ primary (mean req/s): cache off ${(mean('standby, cache off') / mean('primary, cache off')).toFixed(2)}, cache on ${(mean('standby, cache on') / mean('primary, cache on')).toFixed(2)}.`,
    '',
    `Response cache outcomes over the run: ${outcomes.join('; ')}.`,
    '',
    `The standby's head poll (every 200 ms): round trip p50 ${poll.roundTripMs.toFixed(3)} ms, p99 ${poll.roundTripP99Ms.toFixed(3)} ms; planning + execution in the server ${poll.executionMs.toFixed(3)} ms.`,
  ];
  const out = join(ROOT, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  const path = join(out, `${new Date().toISOString().slice(0, 10)}-replica.md`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  process.stdout.write(`${lines.join('\n')}\n`);
  log(`written to ${path}`);
} finally {
  await Promise.all(servers.map((s) => s.stop()));
  for (const c of clusters.reverse()) await c.destroy();
}
