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
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNginx, type NginxProcess } from '../test/helpers/nginx.js';
import { benchArgs, COMMON_OPTIONS, LIVE_HELP, LIVE_OPTIONS, liveSettings, progressLog } from './cli-args.js';
import { describeCommit, describeMachine, loadAverage, today, writeResults } from './describe.js';
import { demoFile } from './ingest.js';
import { appendEvery, ingestAllButLive } from './live-chain.js';
import { runLoad, type LoadResult } from './load.js';
import { ROOT } from './paths.js';
import { random, readCursors, readKeys, shuffled, zipfSequence } from './sample.js';
import { mixedUrls } from './scenarios.js';
import { startService, type RunningServer } from './servers.js';
import { benchStore, storeVersion } from './stores.js';
import { cpuSeconds } from './cpu.js';

const HELP = `usage: npm run build && npx tsx bench/http-cache.ts [options]

${LIVE_HELP}
  --rounds n                rounds of the two runs, straight then through nginx, then the other
                            way round (default 2)
  --seed n                  demo chain seed and URL sample (default 1)
  --cache dir               demo files (default bench/.cache)
  --out dir                 results folder (default bench/results)`;

const { values, fail } = benchArgs(HELP, { ...COMMON_OPTIONS, ...LIVE_OPTIONS, rounds: { type: 'string', default: '2' } });
const o = await liveSettings(values, fail);
const rounds = o.num('rounds', 1);
const log = progressLog('http-cache');

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
  const file = await demoFile(values.cache!, o.scale, o.seed, log);
  // Blocks enough for every run and warm-up, and a margin.
  const keep = Math.ceil((((rounds * 2 * (o.warmup + o.duration) + 120) * 1000) / o.blockMs) * 1.2);
  const s = benchStore(o.store, `httpcache_${o.scale}_${process.pid}`, { databaseUrl: o.databaseUrl, cacheDir: values.cache! });
  await s.reset();
  cleanups.push(() => s.drop());
  log(`${o.scale}: ingesting the chain but its last blocks into ${o.store}…`);
  const { cut, held } = await ingestAllButLive(file, s.args, { count: keep, share: o.ourShare.share, seed: o.seed });
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

  const rand = random(o.seed);
  const cursors = await readCursors(server.url, keys);
  const urls = shuffled(rand, mixedUrls({ keys, cursors }, o.urls, rand));
  const zipf = zipfSequence(rand, urls.length, 200_000);
  log(
    `${urls.length} distinct URLs; Zipf (s = 1): the most asked is ${Math.round((100 * zipf.filter((i) => i === 0).length) / zipf.length)}% of requests`,
  );

  const appender = appendEvery(follow, held, o.blockMs);
  cleanups.push(async () => appender.stop());

  const runs: Run[] = [];
  const measure = async (path: Run['path']): Promise<Run> => {
    const baseUrl = path === 'nginx' ? nginx.url : server.url;
    if (o.warmup > 0) await runLoad({ baseUrl, urls, order: zipf, connections: o.connections, duration: o.warmup });
    const before = await originRequests(server.url);
    const cpu = [cpuSeconds(server.pid), cpuSeconds(nginx.pid)] as const;
    const from = appender.appended();
    const load = await runLoad({ baseUrl, urls, order: zipf, connections: o.connections, duration: o.duration });
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
    `# epochview behind nginx's proxy_cache: ${o.store === 'postgres' ? 'PostgreSQL server' : 'PGlite (embedded)'}, ${date}`,
    '',
    `- machine: ${describeMachine()}; versions: node ${process.version}, ${await storeVersion(o.store, o.databaseUrl)}, epochview ${describeCommit(ROOT)}, nginx with the README's configuration`,
    `- chain: the ${o.scale} demo chain (seed ${o.seed}), blocks 1 to ${cut - 1} ingested first, then one block every ${o.blockMs} ms appended to the followed file, ${(100 * o.ourShare.share).toFixed(1)}% of them with events of our kinds (${o.ourShare.source}); response cache on (default)`,
    `- load: wrk, 2 threads, c=${o.connections}, Zipf (s = 1) over ${urls.length} distinct URLs drawn from the data (every scenario in turn), identity (no Accept-Encoding); ${o.duration} s per run after ${o.warmup} s of warm-up, ${rounds} round(s) of straight then through nginx, the next the other way round`,
    '',
    '| path | req/s | p50 ms | p99 ms | errors | requests | origin: full / 304 | reached the origin | origin CPU-ms per request | nginx CPU-ms per request | blocks (with our events) | load average |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
    ...runs.map(row),
    '',
    `Through nginx the origin spent ×${(originCpuPerRequest('nginx') / originCpuPerRequest('straight')).toFixed(3)} the CPU per client request of straight traffic; ` +
      `${pct(1 - sum('nginx', (r) => r.full + r.notModified + r.other) / sum('nginx', (r) => r.load.requests))} of the requests never reached it, ` +
      `and of those that did, ${pct(sum('nginx', (r) => r.notModified) / sum('nginx', (r) => r.full + r.notModified))} were 304s.`,
  ];
  const base = `${date}-http-cache-${o.store}`;
  log(`written to ${writeResults(values.out!, `${base}.md`, `${lines.join('\n')}\n`)}`);
} finally {
  for (const c of cleanups.reverse()) await c().catch((e: unknown) => log(`cleanup: ${(e as Error).message}`));
}
