/**
 * `npm run build && npx tsx bench/live.ts`: the service on a moving chain. `epochview serve
 * --follow F` answers while the demo chain's last blocks are appended to F, whole blocks at one
 * per second (as a chain makes them), under two kinds of traffic over distinct URLs drawn from
 * the data (every scenario of bench/scenarios.ts in turn): all-distinct (no URL asked twice by a
 * server: a list longer than a run can send, split between warm-up and run, each wrk thread
 * taking its turn; the results count any repeat) and Zipf-skewed (the k-th most asked of a fixed
 * list asked in proportion to 1/k). Each runs
 * with the response cache off and on, alternately; each reports req/s, p50, p99, errors, the
 * cache's outcomes (from /metrics), the blocks applied meanwhile and the machine's load. Then a
 * soak: Zipf traffic at c=32 with the cache on for --soak seconds, the server's RSS sampled
 * every second (start, peak, end).
 *
 * The chain: the demo chain of --scale but its last blocks is ingested into a fresh store first
 * (`epochview ingest -`); the blocks held back are appended, with quiet blocks between them
 * (bench/live-chain.ts), so that the share of blocks carrying events of our kinds is a real
 * chain's (--our-share; by default measured in the real fixture). The results say how many do.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SETTINGS } from '../src/config.js';
import { demoFile } from './ingest.js';
import { appendEvery, ingestAllButLive } from './live-chain.js';
import { runLoad, type LoadResult } from './load.js';
import { cacheOutcomes, outcomesSince, rssMiB, totalOutcomes } from './metrics.js';
import { benchArgs, COMMON_OPTIONS, LIVE_HELP, LIVE_OPTIONS, liveSettings, progressLog } from './cli-args.js';
import { describeCommit, describeMachine, loadAverage, today, writeResults } from './describe.js';
import { ROOT } from './paths.js';
import { hitRatio, type CacheOutcomes } from './report.js';
import { random, readCursors, readKeys, shuffled, zipfSequence } from './sample.js';
import { mixedUrls } from './scenarios.js';
import { startService, type RunningServer } from './servers.js';
import { benchStore, storeVersion } from './stores.js';

/** serve's response cache when on, unless --response-cache-mb says otherwise. */
const DEFAULT_CACHE_MB = SETTINGS.responseCacheMb.default;

const HELP = `usage: npm run build && npx tsx bench/live.ts [options]

${LIVE_HELP}
  --distinct-urls n         URLs of the all-distinct traffic, split between warm-up and run
                            (default 150000; fewer where the data has fewer; repeats are counted)
  --rounds n                rounds of the four runs, the cache off then on, then on then off
                            (default 1)
  --soak s                  seconds of the soak, Zipf traffic with the cache on (default 600; 0: none)
  --response-cache-mb n     the response cache when on (default ${DEFAULT_CACHE_MB}, as serve's)
  --seed n                  demo chain seed and URL sample (default 1)
  --cache dir               demo files (default bench/.cache)
  --out dir                 results folder (default bench/results)`;

const { values, fail } = benchArgs(HELP, {
  ...COMMON_OPTIONS,
  ...LIVE_OPTIONS,
  'distinct-urls': { type: 'string', default: '150000' },
  rounds: { type: 'string', default: '1' },
  soak: { type: 'string', default: '600' },
  'response-cache-mb': { type: 'string', default: DEFAULT_CACHE_MB },
});
const {
  num,
  store,
  databaseUrl,
  scale,
  urls: wanted,
  ourShare,
  connections,
  duration,
  warmup,
  blockMs,
  seed,
} = await liveSettings(values, fail);
const distinctWanted = num('distinct-urls', 2);
const rounds = num('rounds', 1);
const soak = num('soak', 0);
const cacheMb = num('response-cache-mb', 1);

const log = progressLog('live');
const load = loadAverage;

/** The samples at the end of each tenth of the series. */
function tenths(samples: readonly number[]): number[] {
  return Array.from(
    { length: Math.min(10, samples.length) },
    (_, i) => samples[Math.ceil(((i + 1) * samples.length) / Math.min(10, samples.length)) - 1]!,
  );
}

interface Run {
  traffic: 'all-distinct' | 'Zipf';
  cache: 'off' | 'on';
  load: LoadResult;
  outcomes: CacheOutcomes;
  blocks: number;
  blocksWithOurEvents: number;
  /** All-distinct: requests that asked a URL the server was asked before (warm-up and run). */
  repeated?: number;
  loadavg: string;
}

const cleanups: (() => Promise<void>)[] = [];
try {
  const file = await demoFile(values.cache!, scale, seed, log);
  // Blocks enough for every run, the warm-ups, the restarts and the soak, and a margin.
  const seconds = rounds * 4 * (warmup + duration) + soak + 180;
  const keep = Math.ceil(((seconds * 1000) / blockMs) * 1.2);
  const s = benchStore(store, `live_${scale}_${process.pid}`, { databaseUrl, cacheDir: values.cache! });
  await s.reset();
  cleanups.push(() => s.drop());
  log(`${scale}: ingesting the chain but its last blocks into ${store} (load ${load()})…`);
  const { cut, demo, held } = await ingestAllButLive(file, s.args, { count: keep, share: ourShare.share, seed });
  const oursShare = held.filter((b) => b.ours).length / held.length;
  log(
    `${held.length} blocks to append (${held[0]?.height} to ${held[held.length - 1]?.height}): the demo's last ${demo.length} ` +
      `(${demo.filter((b) => b.ours).length} with events of our kinds) and quiet blocks between them; ` +
      `${(100 * oursShare).toFixed(1)}% with events of our kinds (wanted ${(100 * ourShare.share).toFixed(1)}%: ${ourShare.source})`,
  );
  const db = await s.open();
  const keys = await readKeys((sql, params) => db.query(sql, params)).finally(() => db.close());

  const work = mkdtempSync(join(tmpdir(), 'epochview-live-'));
  cleanups.push(async () => rmSync(work, { recursive: true, force: true }));
  const follow = join(work, 'chain.ndjson');
  writeFileSync(follow, '');
  let server: RunningServer | undefined;
  cleanups.push(async () => server?.stop());
  const serve = async (cache: 'off' | 'on') => {
    await server?.stop();
    server = await startService([...s.args, '--follow', follow, '--response-cache-mb', cache === 'on' ? String(cacheMb) : '0'], 'warn');
    return server;
  };

  // The URLs, drawn while the chain stands still; keyset cursors stay valid as it moves.
  const first = await serve('off');
  const rand = random(seed);
  const cursors = await readCursors(first.url, keys);
  const urls = shuffled(rand, mixedUrls({ keys, cursors }, wanted, rand));
  const zipf = zipfSequence(rand, urls.length, 200_000);
  // All-distinct: each server is asked the warm-up's part, then the run's, each URL once.
  const distinct = shuffled(rand, mixedUrls({ keys, cursors }, distinctWanted, rand));
  const warmupPart = Math.floor((distinct.length * warmup) / (warmup + duration));
  const distinctParts = { warmup: distinct.slice(0, warmupPart), run: distinct.slice(warmupPart) };
  log(`all-distinct: ${distinct.length} URLs, ${distinctParts.warmup.length} for the warm-up and ${distinctParts.run.length} for the run`);
  log(
    `${urls.length} distinct URLs; Zipf: the most asked URL is ${Math.round((100 * zipf.filter((i) => i === 0).length) / zipf.length)}% of requests, the top 100 ${Math.round((100 * zipf.filter((i) => i < 100).length) / zipf.length)}%`,
  );

  // The chain moves: one held-back block appended every blockMs, until the end of the run.
  const appender = appendEvery(follow, held, blockMs);
  cleanups.push(async () => appender.stop());

  const runs: Run[] = [];
  const measure = async (
    service: RunningServer,
    traffic: Run['traffic'],
    cache: Run['cache'],
    secs: number,
    onTick?: () => void,
  ): Promise<Run> => {
    const send = (part: 'warmup' | 'run', duration: number) =>
      traffic === 'Zipf'
        ? runLoad({ baseUrl: service.url, urls, order: zipf, connections, duration })
        : runLoad({ baseUrl: service.url, urls: distinctParts[part], once: true, connections, duration });
    const warm = warmup > 0 ? await send('warmup', warmup) : undefined;
    const before = await cacheOutcomes(service.url);
    const from = appender.appended();
    const ticker = onTick && setInterval(onTick, 1000);
    const result = await send('run', secs).finally(() => clearInterval(ticker));
    const repeated = (warm?.repeated ?? 0) + (result.repeated ?? 0);
    if (repeated > 0)
      log(`all-distinct, cache ${cache}: ${repeated} requests asked a URL again (the list ran out): pass a larger --distinct-urls`);
    const blocks = held.slice(from, appender.appended());
    const run: Run = {
      traffic,
      cache,
      load: result,
      outcomes: outcomesSince(before, await cacheOutcomes(service.url)),
      blocks: blocks.length,
      blocksWithOurEvents: blocks.filter((b) => b.ours).length,
      ...(traffic === 'all-distinct' ? { repeated } : {}),
      loadavg: load(),
    };
    log(
      `${traffic}, cache ${cache}: ${Math.round(result.reqPerSec)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, ${result.errors} errors; ` +
        `hits ${Math.round(100 * hitRatio(run.outcomes))}%; ${run.blocks} blocks (${run.blocksWithOurEvents} with our events); load ${run.loadavg}`,
    );
    return run;
  };
  // Off then on, then on then off: what drifts over a round (the chain grows, the machine's load
  // moves) weighs on both settings alike.
  for (let round = 0; round < rounds; round++) {
    for (const cache of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      const service = await serve(cache);
      for (const traffic of ['all-distinct', 'Zipf'] as const) runs.push(await measure(service, traffic, cache, duration));
    }
  }

  let soakResult: { run: Run; rss: { start: number; peak: number; end: number; samples: number[] } } | undefined;
  if (soak > 0) {
    const service = await serve('on');
    const pid = service.pid;
    const rss = { start: rssMiB(pid), peak: 0, end: 0, samples: [] as number[] };
    rss.peak = rss.start;
    log(`soak: ${soak} s of Zipf traffic at c=${connections}, cache on; RSS ${rss.start.toFixed(0)} MiB at the start`);
    const run = await measure(service, 'Zipf', 'on', soak, () => {
      const now = rssMiB(pid);
      rss.samples.push(now);
      rss.peak = Math.max(rss.peak, now);
    });
    rss.end = rssMiB(pid);
    rss.peak = Math.max(rss.peak, rss.end);
    soakResult = { run, rss };
    log(
      `soak: RSS start ${rss.start.toFixed(0)} MiB, peak ${rss.peak.toFixed(0)}, end ${rss.end.toFixed(0)}; ${run.load.errors} failed requests`,
    );
  }
  if (appender.appended() === held.length)
    log('every held-back block was appended before the end: the last runs saw a chain standing still');

  const mean = (traffic: Run['traffic'], cache: Run['cache']) => {
    const rs = runs.filter((r) => r.traffic === traffic && r.cache === cache);
    return rs.reduce((n, r) => n + r.load.reqPerSec, 0) / rs.length;
  };
  const zipfHits = hitRatio(totalOutcomes(runs.filter((r) => r.traffic === 'Zipf' && r.cache === 'on').map((r) => r.outcomes)));
  const distinctCost = 1 - mean('all-distinct', 'on') / mean('all-distinct', 'off');
  // Each round's own ratio: the rounds interleave, so a drifting machine shows as their spread.
  const roundCosts = Array.from({ length: rounds }, (_, i) => {
    const [off, on] = (['off', 'on'] as const).map(
      (c) => runs.filter((r) => r.traffic === 'all-distinct' && r.cache === c)[i]!.load.reqPerSec,
    );
    return 1 - on! / off!;
  });
  const repeated = runs.reduce((n, r) => n + (r.repeated ?? 0), 0);
  const int = (n: number) => Math.round(n).toLocaleString('en-US');
  const row = (r: Run) =>
    `| ${r.traffic} | ${r.cache} | ${int(r.load.reqPerSec)} | ${r.load.p50.toFixed(2)} | ${r.load.p99.toFixed(2)} | ${r.load.errors} | ` +
    `${r.cache === 'on' ? `${int(r.outcomes.hit)} / ${int(r.outcomes.shared)} / ${int(r.outcomes.miss)} / ${int(r.outcomes.bypass)} (${Math.round(100 * hitRatio(r.outcomes))}%)` : '-'} | ` +
    `${r.cache === 'on' ? int(r.outcomes.notAdmitted ?? 0) : '-'} | ${r.blocks} (${r.blocksWithOurEvents}) | ${r.loadavg} |`;
  const date = today();
  const commit = describeCommit(ROOT);
  const lines = [
    `# epochview live benchmark: ${store === 'postgres' ? 'PostgreSQL server' : 'PGlite (embedded)'}, ${date}`,
    '',
    `- machine: ${describeMachine()}; versions: node ${process.version}, ${await storeVersion(store, databaseUrl)}, epochview ${commit}`,
    `- chain: the ${scale} demo chain (seed ${seed}), blocks 1 to ${cut - 1} ingested first; blocks ${cut} on appended to the followed file, one every ${blockMs} ms: the demo's last ${demo.length} blocks with quiet blocks (a time update and events of other kinds) between them, ${(100 * oursShare).toFixed(1)}% of the ${held.length} carrying events of our kinds (wanted: ${(100 * ourShare.share).toFixed(1)}%, ${ourShare.source})`,
    `- load: wrk, 2 threads, c=${connections}, URLs drawn from the data (every scenario in turn); all-distinct: ${distinct.length} URLs, ${distinctParts.warmup.length} for the warm-ups and ${distinctParts.run.length} for the runs, no URL asked twice of a server (${repeated} requests repeated one); Zipf: s = 1 over ${urls.length} URLs; ${duration} s per run after ${warmup} s of warm-up, ${rounds} round(s), the cache off then on (--response-cache-mb ${cacheMb}), the next round on then off (serve restarted between)`,
    '',
    '| traffic | cache | req/s | p50 ms | p99 ms | errors | hit / shared / miss / bypass | not admitted | blocks (with our events) | load average |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|---|',
    ...runs.map(row),
    '',
    `Zipf, cache on: hit ratio ${Math.round(100 * zipfHits)}% (target ≥ 90%); ×${(mean('Zipf', 'on') / mean('Zipf', 'off')).toFixed(2)} the req/s of no cache.`,
    `All-distinct: the cache costs ${(100 * distinctCost).toFixed(1)}% of the req/s of no cache (target ≤ 5%)${rounds > 1 ? `; by round: ${roundCosts.map((c) => `${(100 * c).toFixed(1)}%`).join(', ')}` : ''}.`,
    ...(soakResult
      ? [
          '',
          `Soak: ${soak} s, Zipf traffic, c=${connections}, cache on: ${int(soakResult.run.load.reqPerSec)} req/s, p50 ${soakResult.run.load.p50.toFixed(2)} ms, p99 ${soakResult.run.load.p99.toFixed(2)} ms, ` +
            `${soakResult.run.load.errors} failed requests, hits ${Math.round(100 * hitRatio(soakResult.run.outcomes))}%, ${soakResult.run.blocks} blocks; ` +
            `server RSS ${soakResult.rss.start.toFixed(0)} MiB at the start, ${soakResult.rss.peak.toFixed(0)} MiB peak, ${soakResult.rss.end.toFixed(0)} MiB at the end; load average ${soakResult.run.loadavg}.`,
          `RSS in MiB at each tenth of the soak: ${tenths(soakResult.rss.samples)
            .map((m) => m.toFixed(0))
            .join(', ')}.`,
        ]
      : []),
  ];
  const base = `${date}-live-${store}`;
  log(`written to ${writeResults(values.out!, `${base}.md`, `${lines.join('\n')}\n`)} (and .json)`);
  writeFileSync(
    join(values.out!, `${base}.json`),
    JSON.stringify(
      {
        store,
        scale,
        seed,
        urls: urls.length,
        distinctUrls: distinct.length,
        ourShare: ourShare.share,
        connections,
        duration,
        warmup,
        blockMs,
        oursShare,
        runs,
        soak: soakResult ?? null,
      },
      null,
      2,
    ),
  );
} finally {
  for (const c of cleanups.reverse()) await c().catch((e: unknown) => log(`cleanup: ${(e as Error).message}`));
}
