/**
 * `npm run build && npx tsx bench/http-cache.ts`: what an HTTP cache in front of the service
 * saves it on a moving chain. `serve --follow F` (response cache on, as by default) answers Zipf
 * traffic over distinct URLs drawn from the data, straight and through Debian's nginx with the
 * README's proxy_cache configuration (test/helpers/nginx.ts starts it, as the test does), in
 * turns, while the chain grows one block per --block-ms with a real chain's share of blocks
 * carrying events of ours (bench/live-chain.ts). Each run reports the client's req/s and
 * latency, and the origin's side from its /metrics: the API requests that reached it (full
 * answers and 304s) as a share of the client's (straight: about 100%, wrk leaving out the
 * requests in flight when it stops), and the CPU milliseconds the origin (and nginx) spent per
 * client request.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNginx, type NginxProcess } from '../test/helpers/nginx.js';
import { benchArgs, COMMON_OPTIONS, LIVE_OPTIONS, numberOption, progressLog, serverUrl } from './cli-args.js';
import { describeCommit, describeMachine, loadAverage, today, writeResults } from './describe.js';
import { demoFile } from './ingest.js';
import { appendEvery, ingestAllButLive, realShare } from './live-chain.js';
import { runLoad, type LoadResult } from './load.js';
import { ROOT } from './paths.js';
import { random, readCursors, readKeys, shuffled, zipfSequence } from './sample.js';
import { mixedUrls } from './scenarios.js';
import { startService, type RunningServer } from './servers.js';
import { benchStore, DEFAULT_DATABASE_URL, storeVersion, type StoreKind } from './stores.js';

const HELP = `usage: npm run build && npx tsx bench/http-cache.ts [options]

  --store postgres|pglite   store (default postgres: a database of its own on DATABASE_URL,
                            default ${DEFAULT_DATABASE_URL})
  --database-url URL        server to create the database on (default DATABASE_URL)
  --scale s                 demo chain (default medium; small for a quick look)
  --urls n                  distinct URLs of the Zipf traffic (default 2000)
  --our-share x             share of appended blocks carrying events of our kinds (default: the
                            real fixture's, 295 of 5,002 blocks)
  --concurrency c           connections (default 32; wrk runs 2 threads)
  --duration s              seconds per run (default 20)
  --warmup s                seconds of warm-up before each (default 5)
  --rounds n                rounds of the two runs, straight then through nginx, then the other
                            way round (default 2)
  --block-ms ms             one block appended every ms (default 1000)
  --seed n                  demo chain seed and URL sample (default 1)
  --cache dir               demo files (default bench/.cache)
  --out dir                 results folder (default bench/results)`;

const { values, fail } = benchArgs(HELP, {
  ...COMMON_OPTIONS,
  ...LIVE_OPTIONS,
  rounds: { type: 'string', default: '2' },
});
const num = numberOption(values, fail);
const store = values.store as StoreKind;
if (store !== 'postgres' && store !== 'pglite') fail('--store must be postgres or pglite');
const databaseUrl = serverUrl(values['database-url']);
const scale = values.scale!;
const wanted = num('urls', 1);
const ourShare = values['our-share'] === undefined ? await realShare() : { share: num('our-share', 0), source: 'as given' };
const connections = num('concurrency', 1);
const duration = num('duration', 1);
const warmup = num('warmup', 0);
const rounds = num('rounds', 1);
const blockMs = num('block-ms', 10);
const seed = num('seed', 0);
const log = progressLog('http-cache');

/** CPU seconds of a process so far (Linux: utime + stime of /proc/<pid>/stat, in clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The API requests the origin answered so far, by status (probes and scrapes left out), from its /metrics. */
async function originRequests(url: string): Promise<{ full: number; notModified: number; other: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const counts = { full: 0, notModified: 0, other: 0 };
  for (const m of text.matchAll(/^epochview_http_requests_total\{operation="([^"]+)",status="(\d+)"\} (\d+)/gm)) {
    if (['healthz', 'readyz', 'metrics'].includes(m[1]!)) continue;
    const n = Number(m[3]);
    if (m[2] === '200') counts.full += n;
    else if (m[2] === '304') counts.notModified += n;
    else counts.other += n;
  }
  return counts;
}

interface Run {
  path: 'straight' | 'nginx';
  load: LoadResult;
  full: number;
  notModified: number;
  other: number;
  originCpu: number;
  nginxCpu: number;
  blocks: number;
  blocksWithOurEvents: number;
  loadavg: string;
}

const cleanups: (() => Promise<void>)[] = [];
try {
  const file = await demoFile(values.cache!, scale, seed, log);
  // Blocks enough for every run and warm-up, and a margin.
  const keep = Math.ceil((((rounds * 2 * (warmup + duration) + 120) * 1000) / blockMs) * 1.2);
  const s = benchStore(store, `httpcache_${scale}_${process.pid}`, { databaseUrl, cacheDir: values.cache! });
  await s.reset();
  cleanups.push(() => s.drop());
  log(`${scale}: ingesting the chain but its last blocks into ${store}…`);
  const { cut, held } = await ingestAllButLive(file, s.args, { count: keep, share: ourShare.share, seed });
  const db = await s.open();
  const keys = await readKeys((sql, params) => db.query(sql, params)).finally(() => db.close());

  const work = mkdtempSync(join(tmpdir(), 'epochview-http-cache-'));
  cleanups.push(async () => rmSync(work, { recursive: true, force: true }));
  const follow = join(work, 'chain.ndjson');
  writeFileSync(follow, '');
  const server: RunningServer = await startService([...s.args, '--follow', follow], 'warn');
  cleanups.push(() => server.stop());
  const nginx: NginxProcess = await startNginx(join(work, 'nginx'), server.url);
  cleanups.push(() => nginx.stop());

  const rand = random(seed);
  const cursors = await readCursors(server.url, keys);
  const urls = shuffled(rand, mixedUrls({ keys, cursors }, wanted, rand));
  const zipf = zipfSequence(rand, urls.length, 200_000);
  log(
    `${urls.length} distinct URLs; Zipf (s = 1): the most asked is ${Math.round((100 * zipf.filter((i) => i === 0).length) / zipf.length)}% of requests`,
  );

  const appender = appendEvery(follow, held, blockMs);
  cleanups.push(async () => appender.stop());

  const runs: Run[] = [];
  const measure = async (path: Run['path']): Promise<Run> => {
    const baseUrl = path === 'nginx' ? nginx.url : server.url;
    if (warmup > 0) await runLoad({ baseUrl, urls, order: zipf, connections, duration: warmup });
    const before = await originRequests(server.url);
    const cpu = [cpuSeconds(server.pid), cpuSeconds(nginx.pid)] as const;
    const from = appender.appended();
    const load = await runLoad({ baseUrl, urls, order: zipf, connections, duration });
    const after = await originRequests(server.url);
    const blocks = held.slice(from, appender.appended());
    const run: Run = {
      path,
      load,
      full: after.full - before.full,
      notModified: after.notModified - before.notModified,
      other: after.other - before.other,
      originCpu: cpuSeconds(server.pid) - cpu[0],
      nginxCpu: cpuSeconds(nginx.pid) - cpu[1],
      blocks: blocks.length,
      blocksWithOurEvents: blocks.filter((b) => b.ours).length,
      loadavg: loadAverage(),
    };
    log(
      `${path}: ${Math.round(load.reqPerSec)} req/s, p50 ${load.p50.toFixed(2)} ms, p99 ${load.p99.toFixed(2)} ms, ${load.errors} errors; ` +
        `origin: ${run.full} full, ${run.notModified} 304, ${run.originCpu.toFixed(1)} CPU-s; nginx ${run.nginxCpu.toFixed(1)} CPU-s; ${run.blocks} blocks (${run.blocksWithOurEvents} ours)`,
    );
    return run;
  };
  for (let round = 0; round < rounds; round++) {
    for (const path of round % 2 === 0 ? (['straight', 'nginx'] as const) : (['nginx', 'straight'] as const))
      runs.push(await measure(path));
  }

  const int = (n: number) => Math.round(n).toLocaleString('en-US');
  const pct = (n: number) => `${(100 * n).toFixed(1)}%`;
  const row = (r: Run) => {
    const reached = r.full + r.notModified + r.other;
    return (
      `| ${r.path} | ${int(r.load.reqPerSec)} | ${r.load.p50.toFixed(2)} | ${r.load.p99.toFixed(2)} | ${r.load.errors} | ${int(r.load.requests)} | ` +
      `${int(r.full)} / ${int(r.notModified)} | ${pct(reached / r.load.requests)} | ${((1000 * r.originCpu) / r.load.requests).toFixed(3)} | ` +
      `${r.path === 'nginx' ? ((1000 * r.nginxCpu) / r.load.requests).toFixed(3) : '-'} | ${r.blocks} (${r.blocksWithOurEvents}) | ${r.loadavg} |`
    );
  };
  const sum = (path: Run['path'], f: (r: Run) => number) => runs.filter((r) => r.path === path).reduce((n, r) => n + f(r), 0);
  const originCpuPerRequest = (path: Run['path']) => sum(path, (r) => r.originCpu) / sum(path, (r) => r.load.requests);
  const date = today();
  const lines = [
    `# epochview behind nginx's proxy_cache: ${store === 'postgres' ? 'PostgreSQL server' : 'PGlite (embedded)'}, ${date}`,
    '',
    `- machine: ${describeMachine()}; versions: node ${process.version}, ${await storeVersion(store, databaseUrl)}, epochview ${describeCommit(ROOT)}, nginx with the README's configuration`,
    `- chain: the ${scale} demo chain (seed ${seed}), blocks 1 to ${cut - 1} ingested first, then one block every ${blockMs} ms appended to the followed file, ${(100 * ourShare.share).toFixed(1)}% of them with events of our kinds (${ourShare.source}); response cache on (default)`,
    `- load: wrk, 2 threads, c=${connections}, Zipf (s = 1) over ${urls.length} distinct URLs drawn from the data (every scenario in turn), identity (no Accept-Encoding); ${duration} s per run after ${warmup} s of warm-up, ${rounds} round(s) of straight then through nginx, the next the other way round`,
    '',
    '| path | req/s | p50 ms | p99 ms | errors | requests | origin: full / 304 | reached the origin | origin CPU-ms per request | nginx CPU-ms per request | blocks (with our events) | load average |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
    ...runs.map(row),
    '',
    `Through nginx the origin spent ×${(originCpuPerRequest('nginx') / originCpuPerRequest('straight')).toFixed(3)} the CPU per client request of straight traffic; ` +
      `${pct(1 - sum('nginx', (r) => r.full + r.notModified + r.other) / sum('nginx', (r) => r.load.requests))} of the requests never reached it, ` +
      `and of those that did, ${pct(sum('nginx', (r) => r.notModified) / sum('nginx', (r) => r.full + r.notModified))} were 304s.`,
  ];
  const base = `${date}-http-cache-${store}`;
  log(`written to ${writeResults(values.out!, `${base}.md`, `${lines.join('\n')}\n`)}`);
} finally {
  for (const c of cleanups.reverse()) await c().catch((e: unknown) => log(`cleanup: ${(e as Error).message}`));
}
