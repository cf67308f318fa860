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
 * machine's drifting load weighs on the builds alike; the live blocks go to every build's serve in
 * turn, block by block. The chain head is heard as serve hears it (LISTEN on the store's
 * notices); once a notice names the block, the API is asked until it answers at that height.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
import { describeMachine, loadAverage, today } from './describe.js';
import { demoFile, ingestFile } from './ingest.js';
import { startService } from './servers.js';
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
/** Blocks of this many events or more are epoch ends (the medium chain's: about 6,000; others 760 at most). */
const EPOCH_END_FRAMES = 2000;
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
  live: LiveBlock[];
  liveTransactions: number;
  load: string;
}

/**
 * A live block: ms from its EndBlock frame handed to nanomsg to the chain head's notice, to the
 * request of the first API answer at its height, and to that answer.
 */
interface LiveBlock {
  height: number;
  frames: number;
  noticeMs: number;
  visibleMs: number;
  answeredMs: number;
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

/**
 * When the API first answered at `height` or later, asked again as soon as each answer is in: the
 * monotonic ms that answer's request was sent (the block was readable then) and received.
 */
async function visible(url: string, height: number): Promise<{ asked: number; answered: number }> {
  const deadline = monotonicMs() + LIVE_TIMEOUT_MS;
  for (;;) {
    const asked = monotonicMs();
    const res = await fetch(url + PROBE);
    await res.arrayBuffer();
    const answered = monotonicMs();
    if (Number(res.headers.get('x-block-height')) >= height) return { asked, answered };
    if (answered > deadline) throw new Error(`the API did not answer at block ${height} within ${LIVE_TIMEOUT_MS} ms`);
  }
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
}

/** Seconds from the sender's first frame until a listener that only buffers (serve's socket and buffer files) has every frame. */
async function sendAlone(head: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'epochview-bench-sink-'));
  const buffer = new BufferFiles(dir, { chainId: undefined });
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

/** A serve of one build with an empty store of its own, listening for the core, and the core connected to it. */
interface Running {
  build: Build;
  url: string;
  core: NanomsgCore;
  heads: HeadListener;
  /** What went wrong with it, as far as it tells: its /readyz and the end of its log. */
  diagnose(): Promise<string>;
  stop(): Promise<void>;
}

async function startRunning(build: Build): Promise<Running> {
  const s = benchStore('postgres', `broker_${build.id}_${process.pid}`, { databaseUrl, cacheDir });
  await s.reset();
  const bufferDir = mkdtempSync(join(tmpdir(), 'epochview-bench-buffer-'));
  const cleanups: (() => Promise<void>)[] = [async () => rmSync(bufferDir, { recursive: true, force: true }), () => s.drop()];
  const stop = async () => {
    for (const c of cleanups.reverse()) await c().catch((e: unknown) => log(`cleanup: ${(e as Error).message}`));
  };
  try {
    const server = await startService([...s.args, '--broker-listen', '127.0.0.1:0', '--broker-buffer-dir', bufferDir], 'warn', build.cli);
    cleanups.push(() => server.stop());
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { source: { listen: string } };
    const heads = await HeadListener.open(s.databaseUrl!);
    cleanups.push(() => heads.close());
    const core = new NanomsgCore(Number(ready.source.listen.split(':').pop()));
    cleanups.push(() => core.close());
    const diagnose = async () => {
      const readyz = await fetch(`${server.url}/readyz`).then(
        (r) => r.text(),
        (e: Error) => e.message,
      );
      return `${build.id}: /readyz ${readyz}; log: ${server.stderr().slice(-3000)}`;
    };
    return { build, url: server.url, core, heads, diagnose, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The head file sent at once; the sender's first frame to the API answering at its last height. */
async function catchUp(
  r: Running,
  head: string,
  lastHeadHeight: number,
): Promise<Pick<Side, 'catchUpSeconds' | 'sendSeconds' | 'catchUpTransactions'>> {
  const tx0 = await metric(r.url, 'epochview_ingest_transactions_total');
  const sent = await r.core.send(head);
  await r.heads.reached(lastHeadHeight, CATCH_UP_TIMEOUT_MS).catch(async (err: Error) => {
    throw new Error(`${err.message}; ${await r.diagnose()}`);
  });
  const caughtUp = await visible(r.url, lastHeadHeight);
  return {
    catchUpSeconds: (caughtUp.answered - sent.firstMs) / 1000,
    sendSeconds: (sent.lastMs - sent.firstMs) / 1000,
    catchUpTransactions: (await metric(r.url, 'epochview_ingest_transactions_total')) - tx0,
  };
}

/** One live block sent to a caught-up serve: its EndBlock frame handed to nanomsg to the notice and to the API's answer. */
async function liveBlock(r: Running, file: string, block: BlockRange): Promise<LiveBlock> {
  const sent = await r.core.send(file, block);
  const noticed = await r.heads.reached(block.height, LIVE_TIMEOUT_MS).catch(async (err: Error) => {
    throw new Error(`${err.message}; ${await r.diagnose()}`);
  });
  const shown = await visible(r.url, block.height);
  return {
    height: block.height,
    frames: sent.frames,
    noticeMs: noticed - sent.lastMs,
    visibleMs: shown.asked - sent.lastMs,
    answeredMs: shown.answered - sent.lastMs,
  };
}

/** The q-quantile (nearest rank) of samples. */
function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** The median (of an even count, the mean of the middle two). */
function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function ratio(s: Side): number {
  return s.catchUpSeconds / Math.max(s.sendAloneSeconds, s.ingestSeconds);
}

function f1(n: number): string {
  return n.toFixed(1);
}
/** Live blocks by size: the epoch's last block carries its rewards and statistics (thousands of events; others have hundreds at most). */
const isEpochEnd = (b: LiveBlock) => b.frames >= EPOCH_END_FRAMES;
const liveSummary = (blocks: readonly LiveBlock[]) => {
  const all = blocks.map((b) => b.visibleMs);
  const ordinary = blocks.filter((b) => !isEpochEnd(b)).map((b) => b.visibleMs);
  const ends = blocks.filter(isEpochEnd).map((b) => b.visibleMs);
  const notices = blocks.map((b) => b.noticeMs);
  const answers = blocks.map((b) => b.answeredMs);
  return (
    `${f1(median(all))} / ${f1(quantile(all, 0.99))} / ${f1(Math.max(...all))} | ${f1(quantile(ordinary, 0.99))} | ` +
    `${ends.length > 0 ? `${ends.length}: ${f1(median(ends))} / ${f1(Math.max(...ends))}` : '-'} | ` +
    `${f1(quantile(notices, 0.99))} / ${f1(quantile(answers, 0.99))}`
  );
};
const file = await demoFile(cacheDir, values.scale!, seed, log, 'evts');
log(`splitting ${file}: its last ${liveBlocks} blocks sent one at a time…`);
const { head, headBlocks, tail } = await splitChain(file, liveBlocks);
const lastHeadHeight = tail[0]!.height - 1;
log(`${headBlocks} blocks (to height ${lastHeadHeight}) sent at once from ${head}; then ${tail.length} one at a time`);

const serverVersion = await storeVersion('postgres', databaseUrl);
const sides: Side[] = [];
for (let round = 0; round < rounds; round++) {
  const sendAloneSeconds = await sendAlone(head);
  log(`round ${round + 1}: sent to a listener that only buffers in ${sendAloneSeconds.toFixed(1)} s (load ${loadAverage()})`);
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  const ingests = new Map<Build, { seconds: number; wall: number }>();
  for (const build of order) {
    const i = await ingest(build, head);
    ingests.set(build, i);
    log(`round ${round + 1}, ${build.id}: ingest ${i.seconds.toFixed(1)} s (process ${i.wall.toFixed(1)} s)`);
  }
  const running: Running[] = [];
  try {
    const caughtUp = new Map<Build, Awaited<ReturnType<typeof catchUp>> & { tx: number }>();
    for (const build of order) {
      const r = await startRunning(build);
      running.push(r);
      const c = await catchUp(r, head, lastHeadHeight);
      caughtUp.set(build, { ...c, tx: await metric(r.url, 'epochview_ingest_transactions_total') });
      log(
        `round ${round + 1}, ${build.id}: caught up in ${c.catchUpSeconds.toFixed(1)} s (sent in ${c.sendSeconds.toFixed(1)} s, ${c.catchUpTransactions} transactions)`,
      );
    }
    // The live blocks go to every serve in turn, the order reversed every block: a drifting load weighs on them alike.
    const live = new Map<Build, LiveBlock[]>(running.map((r) => [r.build, []]));
    for (const [i, block] of tail.entries()) {
      const started = monotonicMs();
      for (const r of i % 2 === 0 ? running : [...running].reverse()) live.get(r.build)!.push(await liveBlock(r, file, block));
      await sleep(Math.max(0, started + blockMs - monotonicMs()));
    }
    for (const r of running) {
      const build = r.build;
      const side: Side = {
        round: round + 1,
        build: build.id,
        ingestSeconds: ingests.get(build)!.seconds,
        ingestWallSeconds: ingests.get(build)!.wall,
        sendAloneSeconds,
        ...caughtUp.get(build)!,
        live: live.get(build)!,
        liveTransactions: (await metric(r.url, 'epochview_ingest_transactions_total')) - caughtUp.get(build)!.tx,
        load: loadAverage(),
      };
      sides.push(side);
      const ms = side.live.map((b) => b.visibleMs);
      log(
        `round ${round + 1}, ${build.id}: catch-up ×${ratio(side).toFixed(2)}; live p50 ${median(ms).toFixed(1)} ms, p99 ${quantile(ms, 0.99).toFixed(1)} ms, ` +
          `${side.liveTransactions} transactions for ${side.live.length} blocks; load ${side.load}`,
      );
    }
  } finally {
    for (const r of running) await r.stop();
  }
  writeReport();
}
process.stdout.write(readFileSync(join(values.out!, `${today()}-${values.name}.md`), 'utf8'));

/** The results of the rounds measured so far (written after each round: a failed round leaves the earlier ones). */
function writeReport(): void {
  const lines = [
    `# epochview broker socket: catch-up and live blocks, ${today()}`,
    '',
    `- machine: ${describeMachine()}; node ${process.version}, ${serverVersion}`,
    `- chain: the ${values.scale} demo chain (seed ${seed}) as an event file; blocks 1 to ${lastHeadHeight} sent at once by libnanomsg (Perl NanoMsg::Raw, a process of its own) to \`serve --broker-listen\` with an empty store, then blocks ${tail[0]!.height} to ${tail[tail.length - 1]!.height} one at a time, one every ${blockMs} ms to each build's serve in turn (the order reversed every block)`,
    `- catch-up: the sender's first frame to the API answering at block ${lastHeadHeight}; against the longer of \`ingest\` of the same file (its own seconds) and the same file sent to a listener that only buffers it (serve's socket and buffer files, this checkout's); target ≤ 1.25×`,
    `- live: a block's EndBlock frame handed to nanomsg to the request of the first API answer at its height (asked again as soon as an answer is in, from the chain head notice on: LISTEN, as serve hears it), also to the notice and to that answer; target p99 ≤ 50 ms. Every demo block carries events of ours; epoch ends (≥ ${EPOCH_END_FRAMES.toLocaleString('en-US')} events: the epoch's rewards and statistics) are counted apart too`,
    `- ${rounds} round(s), the builds' order reversed every other round: ${builds.map((b) => b.id).join(', ')}`,
    '',
    '| round | build | send alone s | ingest s (process) | catch-up s | × max(send, ingest) | sender in the run s | transactions | live p50 / p99 / max ms | p99 but epoch ends | epoch ends: n: p50 / max | p99 of the notice / the answer | live transactions / blocks | load |',
    '|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
    ...sides.map(
      (s) =>
        `| ${s.round} | ${s.build} | ${f1(s.sendAloneSeconds)} | ${f1(s.ingestSeconds)} (${f1(s.ingestWallSeconds)}) | ${f1(s.catchUpSeconds)} | ×${ratio(s).toFixed(2)} | ${f1(s.sendSeconds)} | ${s.catchUpTransactions} | ` +
        `${liveSummary(s.live)} | ${s.liveTransactions} / ${s.live.length} | ${s.load} |`,
    ),
    '',
    ...builds.map((b) => {
      const mine = sides.filter((s) => s.build === b.id);
      return (
        `- ${b.id}: catch-up ×${median(mine.map(ratio)).toFixed(2)} (median of ${mine.length}: ${mine.map((s) => `×${ratio(s).toFixed(2)}`).join(', ')}); ` +
        `live, all rounds: p50 / p99 / max ms | p99 but epoch ends | epoch ends | p99 of the notice / the answer: ${liveSummary(mine.flatMap((s) => s.live))}`
      );
    }),
  ];
  const name = `${today()}-${values.name}`;
  mkdirSync(values.out!, { recursive: true });
  writeFileSync(join(values.out!, `${name}.md`), `${lines.join('\n')}\n`);
  writeFileSync(
    join(values.out!, `${name}.json`),
    `${JSON.stringify({ scale: values.scale, seed, liveBlocks, blockMs, sides }, null, 2)}\n`,
  );
}
