/**
 * `npm run build && npx tsx bench/broker.ts`: `serve --broker-listen` fed by a core over the
 * socket, played by libnanomsg in a Perl process of its own (as the socket tests play it), on a
 * PostgreSQL server. Two targets (#30 item 3):
 *
 * - catch-up: the demo chain but its last --live-blocks blocks, sent at once to a serve with an
 *   empty store, is applied in full (the API answers at its last height) within 1.25× of the
 *   longer of the time the sender needs (the same file sent to a listener that only buffers it:
 *   the socket and the buffer files of serve, nothing applied) and the time `epochview ingest`
 *   needs for the same file (its own count of seconds);
 * - live: once caught up, the last blocks are sent one at a time (one every --block-ms), and each
 *   is visible through the API (an answer's x-block-height) within 50 ms (p99) of the moment its
 *   EndBlock frame was handed to nanomsg.
 *
 * Every --build is measured in every round, the order reversed every other round, so that the
 * machine's drifting load weighs on the builds alike. The chain head is heard as serve hears it
 * (LISTEN on the store's notices); once a notice names the block, the API is asked until it
 * answers at that height.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { CHAIN_HEAD_CHANNEL } from '../src/db/chain-head-watch.js';
import { BufferFiles } from '../src/sources/broker/buffer-files.js';
import { PairListener } from '../src/sources/broker/pair-listener.js';
import { type Build, resolveBuild } from './builds.js';
import { type BlockRange, monotonicMs, NanomsgCore, splitChain } from './broker-chain.js';
import { benchArgs, COMMON_OPTIONS, numberOption, progressLog, serverUrl } from './cli-args.js';
import { describeMachine, loadAverage, today, writeResults } from './describe.js';
import { demoFile, ingestFile } from './ingest.js';
import { startService, type RunningServer } from './servers.js';
import { benchStore, storeVersion } from './stores.js';

const HELP = `usage: npm run build && npx tsx bench/broker.ts [options]

  --build a,b               builds (default .): . (this checkout), a built checkout's folder, or
                            a git revision (exported into <cache>/builds/<commit> and built once)
  --scale s                 demo chain (default medium; small for a quick look)
  --live-blocks n           the chain's last blocks, sent one at a time once caught up (default 200)
  --block-ms ms             one live block sent every ms (default 250)
  --rounds n                rounds, the order of the builds reversed every other one (default 2)
  --database-url URL        server the databases are made on (default DATABASE_URL)
  --seed n                  demo chain seed (default 1)
  --cache dir               demo files and builds (default bench/.cache)
  --out dir                 results folder (default bench/results)
  --name name               results name (default broker): <out>/<date>-<name>.md`;

const { values, fail } = benchArgs(HELP, {
  ...COMMON_OPTIONS,
  build: { type: 'string', default: '.' },
  scale: { type: 'string', default: 'medium' },
  'live-blocks': { type: 'string', default: '200' },
  'block-ms': { type: 'string', default: '250' },
  rounds: { type: 'string', default: '2' },
  name: { type: 'string', default: 'broker' },
});
const num = numberOption(values, fail);
const liveBlocks = num('live-blocks', 1);
const blockMs = num('block-ms', 0);
const rounds = num('rounds', 1);
const seed = num('seed', 0);
const databaseUrl = serverUrl(values['database-url']);
const log = progressLog('broker');
const cacheDir = values.cache!;
const builds = values.build!.split(',').map((spec) => resolveBuild(spec, join(cacheDir, 'builds'), log));

/** How long a catch-up may take before the run is abandoned. */
const CATCH_UP_TIMEOUT_MS = 30 * 60_000;
/** A live block not visible by then fails the run. */
const LIVE_TIMEOUT_MS = 60_000;
/** A cheap answer that carries x-block-height. */
const PROBE = '/api/v2/referral-sets?pagination.first=1';

interface Side {
  round: number;
  build: string;
  /** `epochview ingest` of the head file: its own seconds, and the process's. */
  ingestSeconds: number;
  ingestWallSeconds: number;
  /** The head file sent to a listener that only buffers it (the round's one measurement). */
  sendAloneSeconds: number;
  /** The sender's first frame to the API answering at the last height. */
  catchUpSeconds: number;
  /** The sender's first to last frame, in this run. */
  sendSeconds: number;
  catchUpTransactions: number;
  /** Each live block: its EndBlock handed to nanomsg to the chain head's notice, and to the API's answer, in ms. */
  noticeMs: number[];
  visibleMs: number[];
  liveBlocks: number;
  liveTransactions: number;
  load: string;
}

/** The chain head as serve hears it: LISTEN on the store's notices. */
class HeadListener {
  private height = -1;
  private waiters: { height: number; resolve: (atMs: number) => void }[] = [];

  private constructor(private readonly client: pg.Client) {
    client.on('notification', (n) => {
      if (n.channel !== CHAIN_HEAD_CHANNEL || !n.payload) return;
      const at = monotonicMs();
      this.height = Number((JSON.parse(n.payload) as { height: string }).height);
      const due = this.waiters.filter((w) => w.height <= this.height);
      this.waiters = this.waiters.filter((w) => w.height > this.height);
      for (const w of due) w.resolve(at);
    });
  }

  static async open(url: string): Promise<HeadListener> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`LISTEN ${CHAIN_HEAD_CHANNEL}`);
    return new HeadListener(client);
  }

  /** Resolves with the monotonic ms of the notice naming `height` or a later one. */
  reached(height: number, timeoutMs: number): Promise<number> {
    if (this.height >= height) return Promise.resolve(monotonicMs());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no chain head notice of block ${height} within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({
        height,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      });
    });
  }

  close(): Promise<void> {
    return this.client.end();
  }
}

/** The monotonic ms of the first API answer at `height` or later, asked as soon as each answer is in. */
async function visible(url: string, height: number): Promise<number> {
  const deadline = monotonicMs() + LIVE_TIMEOUT_MS;
  for (;;) {
    const res = await fetch(url + PROBE);
    await res.arrayBuffer();
    const at = monotonicMs();
    if (Number(res.headers.get('x-block-height')) >= height) return at;
    if (at > deadline) throw new Error(`the API did not answer at block ${height} within ${LIVE_TIMEOUT_MS} ms`);
  }
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
}

/** Seconds from the sender's first frame until a listener that only buffers (serve's socket and buffer files) has every frame. */
async function sendAlone(head: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'epochview-bench-sink-'));
  const buffer = new BufferFiles(dir);
  let frames = 0;
  let lastFrameMs = 0;
  const listener = new PairListener({
    connected: () => {
      buffer.connectionBegan();
      return {
        frames: (bodies) => {
          buffer.append(bodies);
          frames += bodies.length;
          lastFrameMs = monotonicMs();
        },
        closed: () => buffer.connectionEnded(),
      };
    },
    refused: (peer, reason) => log(`sink: ${peer} refused: ${reason}`),
  });
  const address = await listener.listen('127.0.0.1', 0);
  const core = new NanomsgCore(Number(address.split(':').pop()));
  try {
    const sent = await core.send(head);
    while (frames < sent.frames) await sleep(1);
    return (lastFrameMs - sent.firstMs) / 1000;
  } finally {
    await core.close();
    await listener.close();
    buffer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function ingest(build: Build, head: string): Promise<{ seconds: number; wall: number }> {
  const s = benchStore('postgres', `broker_ingest_${process.pid}`, { databaseUrl, cacheDir });
  await s.reset();
  try {
    const started = monotonicMs();
    const r = await ingestFile(head, s.args, build.cli);
    return { seconds: r.seconds, wall: (monotonicMs() - started) / 1000 };
  } finally {
    await s.drop();
  }
}

/** The head file sent at once to a serve of `build` with an empty store, then the tail one block at a time. */
async function catchUpAndLive(
  build: Build,
  head: string,
  lastHeadHeight: number,
  file: string,
  tail: readonly BlockRange[],
): Promise<Omit<Side, 'round' | 'build' | 'ingestSeconds' | 'ingestWallSeconds' | 'sendAloneSeconds' | 'load'>> {
  const s = benchStore('postgres', `broker_serve_${process.pid}`, { databaseUrl, cacheDir });
  await s.reset();
  const bufferDir = mkdtempSync(join(tmpdir(), 'epochview-bench-buffer-'));
  let server: RunningServer | undefined;
  let core: NanomsgCore | undefined;
  let heads: HeadListener | undefined;
  try {
    server = await startService([...s.args, '--broker-listen', '127.0.0.1:0', '--broker-buffer-dir', bufferDir], 'warn', build.cli);
    const url = server.url;
    const ready = (await (await fetch(`${url}/readyz`)).json()) as { source: { listen: string } };
    heads = await HeadListener.open(s.databaseUrl!);
    core = new NanomsgCore(Number(ready.source.listen.split(':').pop()));

    const tx0 = await metric(url, 'epochview_ingest_transactions_total');
    const sent = await core.send(head);
    await heads.reached(lastHeadHeight, CATCH_UP_TIMEOUT_MS);
    const caughtUp = await visible(url, lastHeadHeight);
    const tx1 = await metric(url, 'epochview_ingest_transactions_total');
    log(
      `${build.id}: caught up in ${((caughtUp - sent.firstMs) / 1000).toFixed(1)} s (sent in ${((sent.lastMs - sent.firstMs) / 1000).toFixed(1)} s, ${tx1 - tx0} transactions); ${tail.length} live blocks…`,
    );

    const noticeMs: number[] = [];
    const visibleMs: number[] = [];
    for (const block of tail) {
      const started = monotonicMs();
      const b = await core.send(file, block);
      const noticed = await heads.reached(block.height, LIVE_TIMEOUT_MS);
      const shown = await visible(url, block.height);
      noticeMs.push(noticed - b.lastMs);
      visibleMs.push(shown - b.lastMs);
      await sleep(Math.max(0, started + blockMs - monotonicMs()));
    }
    const tx2 = await metric(url, 'epochview_ingest_transactions_total');
    return {
      catchUpSeconds: (caughtUp - sent.firstMs) / 1000,
      sendSeconds: (sent.lastMs - sent.firstMs) / 1000,
      catchUpTransactions: tx1 - tx0,
      noticeMs,
      visibleMs,
      liveBlocks: tail.length,
      liveTransactions: tx2 - tx1,
    };
  } finally {
    await core?.close();
    await heads?.close();
    await server?.stop();
    await s.drop();
    rmSync(bufferDir, { recursive: true, force: true });
  }
}

/** The q-quantile (nearest rank) of samples. */
function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

const median = (xs: readonly number[]) => quantile(xs, 0.5);

const file = await demoFile(cacheDir, values.scale!, seed, log, 'evts');
log(`splitting ${file}: its last ${liveBlocks} blocks sent one at a time…`);
const { head, headBlocks, tail } = await splitChain(file, liveBlocks);
const lastHeadHeight = tail[0]!.height - 1;
log(`${headBlocks} blocks (to height ${lastHeadHeight}) sent at once from ${head}; then ${tail.length} one at a time`);

const sides: Side[] = [];
for (let round = 0; round < rounds; round++) {
  const sendAloneSeconds = await sendAlone(head);
  log(`round ${round + 1}: sent to a listener that only buffers in ${sendAloneSeconds.toFixed(1)} s (load ${loadAverage()})`);
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  for (const build of order) {
    const i = await ingest(build, head);
    log(`round ${round + 1}, ${build.id}: ingest ${i.seconds.toFixed(1)} s (process ${i.wall.toFixed(1)} s)`);
    const run = await catchUpAndLive(build, head, lastHeadHeight, file, tail);
    const side: Side = {
      round: round + 1,
      build: build.id,
      ingestSeconds: i.seconds,
      ingestWallSeconds: i.wall,
      sendAloneSeconds,
      ...run,
      load: loadAverage(),
    };
    sides.push(side);
    log(
      `round ${round + 1}, ${build.id}: catch-up ${side.catchUpSeconds.toFixed(1)} s = ×${ratio(side).toFixed(2)} of max(send ${sendAloneSeconds.toFixed(1)}, ingest ${i.seconds.toFixed(1)}); ` +
        `live p50 ${median(side.visibleMs).toFixed(1)} ms, p99 ${quantile(side.visibleMs, 0.99).toFixed(1)} ms, ${side.liveTransactions} transactions for ${side.liveBlocks} blocks; load ${side.load}`,
    );
  }
}

function ratio(s: Side): number {
  return s.catchUpSeconds / Math.max(s.sendAloneSeconds, s.ingestSeconds);
}

const f1 = (n: number) => n.toFixed(1);
const lines = [
  `# epochview broker socket: catch-up and live blocks, ${today()}`,
  '',
  `- machine: ${describeMachine()}; node ${process.version}, ${await storeVersion('postgres', databaseUrl)}`,
  `- chain: the ${values.scale} demo chain (seed ${seed}) as an event file; blocks 1 to ${lastHeadHeight} sent at once by libnanomsg (Perl NanoMsg::Raw, a process of its own) to \`serve --broker-listen\` with an empty store, then blocks ${tail[0]!.height} to ${tail[tail.length - 1]!.height} one every ${blockMs} ms`,
  `- catch-up: the sender's first frame to the API answering at block ${lastHeadHeight}; against the longer of \`ingest\` of the same file (its own seconds) and the same file sent to a listener that only buffers it (serve's socket and buffer files); target ≤ 1.25×`,
  "- live: a block's EndBlock frame handed to nanomsg to the chain head notice (LISTEN, as serve hears it) and to the API answering at its height; target p99 ≤ 50 ms",
  `- ${rounds} round(s), the builds' order reversed every other round: ${builds.map((b) => b.id).join(', ')}`,
  '',
  '| round | build | send alone s | ingest s (process) | catch-up s | × max(send, ingest) | sender in the run s | transactions | live p50 / p99 / max ms (notice p99) | live transactions / blocks | load |',
  '|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|---|',
  ...sides.map(
    (s) =>
      `| ${s.round} | ${s.build} | ${f1(s.sendAloneSeconds)} | ${f1(s.ingestSeconds)} (${f1(s.ingestWallSeconds)}) | ${f1(s.catchUpSeconds)} | ×${ratio(s).toFixed(2)} | ${f1(s.sendSeconds)} | ${s.catchUpTransactions} | ` +
      `${f1(median(s.visibleMs))} / ${f1(quantile(s.visibleMs, 0.99))} / ${f1(Math.max(...s.visibleMs))} (${f1(quantile(s.noticeMs, 0.99))}) | ${s.liveTransactions} / ${s.liveBlocks} | ${s.load} |`,
  ),
  '',
  ...builds.map((b) => {
    const mine = sides.filter((s) => s.build === b.id);
    const live = mine.flatMap((s) => s.visibleMs);
    return (
      `- ${b.id}: catch-up ×${median(mine.map(ratio)).toFixed(2)} (median of ${mine.length}; ${mine.map((s) => `×${ratio(s).toFixed(2)}`).join(', ')}); ` +
      `live blocks over all rounds (${live.length}): p50 ${f1(median(live))} ms, p99 ${f1(quantile(live, 0.99))} ms, max ${f1(Math.max(...live))} ms`
    );
  }),
];
const name = `${today()}-${values.name}`;
writeResults(values.out!, `${name}.md`, `${lines.join('\n')}\n`);
writeFileSync(join(values.out!, `${name}.json`), `${JSON.stringify({ scale: values.scale, seed, liveBlocks, blockMs, sides }, null, 2)}\n`);
