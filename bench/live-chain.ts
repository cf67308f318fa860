/**
 * The chain bench/live.ts appends: the demo chain's last blocks, with quiet blocks between them
 * so that the share of blocks carrying events of our kinds is a real chain's. On a real chain
 * most blocks carry none (a time update, market data, orders…); the demo's every block carries
 * some, and appending only those would make every block change some read model.
 *
 * A quiet block is what src/demo makes of a block without events of ours: beginBlock, a time
 * update, events of other kinds (src/demo/other-kinds.ts), endBlock. The demo's blocks keep their
 * events and are renumbered: heights stay consecutive from the first appended block on, and the
 * quiet blocks' times lie between their neighbours'. The demo files are not changed.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, closeSync, createReadStream, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DEMO_CHAIN_ID } from '../src/demo/chain.js';
import { NdjsonBlockWriter } from '../src/demo/ndjson.js';
import { OtherKinds } from '../src/demo/other-kinds.js';
import { PAYLOAD_TYPES } from '../src/sources/events.js';
import { CLI, ROOT } from './paths.js';

/** Event types of the read models (markers and time updates aside). */
export const OUR_TYPES: ReadonlySet<string> = new Set(
  Object.entries(PAYLOAD_TYPES)
    .filter(([k]) => !['beginBlock', 'endBlock', 'timeUpdate'].includes(k))
    .map(([, t]) => t),
);

/** The real chain the share is measured on, when EPOCHVIEW_VEGA_FIXTURES names the folder of its files (as for test:vega-data). */
const REAL_FIXTURE = process.env.EPOCHVIEW_VEGA_FIXTURES && join(process.env.EPOCHVIEW_VEGA_FIXTURES, 'smoketest_to_block_5000.ndjson');

/** Its share, as measured there (295 of 5,002 blocks), for when the fixture is not at hand. */
export const REAL_SHARE = { blocks: 5002, withOurEvents: 295 };

/** One block of NDJSON lines, as appended. */
export interface Block {
  height: number;
  lines: string[];
  /** Whether it carries an event of our kinds. */
  ours: boolean;
}

/** The height an NDJSON line's id starts with ({"id":"<height>-<seq>",…}), or NaN. */
export function heightOf(line: string): number {
  return Number(/^\{"id":"(\d+)-/.exec(line)?.[1]);
}

/** Whether a line is an event of our kinds. */
export function isOurs(line: string): boolean {
  return OUR_TYPES.has(/"type":"([A-Z0-9_]+)"/.exec(line)?.[1] ?? '');
}

/** A beginBlock line's timestamp (Unix ns), or undefined of another line. */
export function blockTimeOf(line: string): bigint | undefined {
  const t = /"beginBlock":\{"height":"\d+","timestamp":"(\d+)"/.exec(line)?.[1];
  return t === undefined ? undefined : BigInt(t);
}

/** Blocks, and those carrying events of our kinds, in an NDJSON file of blocks. */
export async function shareOfBlocksWithOurEvents(file: string): Promise<{ blocks: number; withOurEvents: number }> {
  const heights = new Set<number>();
  const ours = new Set<number>();
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    const h = heightOf(line);
    heights.add(h);
    if (isOurs(line)) ours.add(h);
  }
  return { blocks: heights.size, withOurEvents: ours.size };
}

/** The real fixture's share, measured when the fixture is there, else as stated above. */
export async function realShare(): Promise<{ share: number; source: string }> {
  const at = REAL_FIXTURE && existsSync(REAL_FIXTURE) ? REAL_FIXTURE : undefined;
  const counted = at ? await shareOfBlocksWithOurEvents(at) : REAL_SHARE;
  const where = at ? 'measured in' : 'as measured in';
  return {
    share: counted.withOurEvents / counted.blocks,
    source: `${counted.withOurEvents} of ${counted.blocks} blocks, ${where} the real fixture smoketest_to_block_5000`,
  };
}

/** The demo block's lines at another height: its events' ids and its markers' heights. */
function renumbered(block: Block, height: number): Block {
  const from = String(block.height);
  const to = String(height);
  const idPrefix = `{"id":"${from}-`;
  const lines = block.lines.map((line) => {
    let out = `{"id":"${to}-${line.slice(idPrefix.length)}`;
    if (out.includes('"beginBlock":{') || out.includes('"endBlock":{')) out = out.replace(`"height":"${from}"`, `"height":"${to}"`);
    return out;
  });
  return { height, lines, ours: block.ours };
}

/**
 * Appended blocks from `first` on: the demo's `active` blocks (in order, renumbered) with quiet
 * blocks between them, the i-th block (from 0) being a demo block when ⌊(i+1)·share⌋ > ⌊i·share⌋,
 * so that any stretch of the chain holds its share of them; `count` blocks in all, or fewer when
 * the demo's blocks run out. `after` is the time of the block before `first`.
 */
export function liveChain(
  active: readonly Block[],
  opts: { first: number; after: bigint; share: number; count: number; seed: number },
): Block[] {
  if (!(opts.share > 0 && opts.share <= 1))
    throw new RangeError(`the share of blocks with our events must be in (0, 1], got ${opts.share}`);
  const others = new OtherKinds(opts.seed + 1);
  const writer = new NdjsonBlockWriter(DEMO_CHAIN_ID, 1 << 20, others);
  const out: Block[] = [];
  let previous = opts.after;
  let next = 0;
  let quiet: number[] = [];
  for (let i = 0; i < opts.count && next < active.length; i++) {
    const height = opts.first + i;
    if (Math.floor((i + 1) * opts.share) === Math.floor(i * opts.share)) {
      quiet.push(height);
      continue;
    }
    const demo = active[next++]!;
    const time = blockTimeOf(demo.lines[0]!);
    if (time === undefined) throw new Error(`block ${demo.height} does not begin with beginBlock`);
    // The quiet blocks before it, at times spread between the previous block's and its own.
    quiet.forEach((h, j) => {
      const t = previous + ((time - previous) * BigInt(j + 1)) / BigInt(quiet.length + 1);
      writer.beginBlock(h, String(t), others.hex().toUpperCase());
      writer.endBlock();
      out.push({ height: h, lines: writer.take().trimEnd().split('\n'), ours: false });
    });
    quiet = [];
    out.push(renumbered(demo, height));
    previous = time;
  }
  return out;
}

/**
 * Ingests the file's blocks below `cut` with `epochview ingest -` and returns the blocks from
 * `cut` on (the file's lines are grouped by the height their id starts with), and the time of
 * the last block ingested.
 */
async function ingestAllBut(file: string, cut: number, storeArgs: string[]): Promise<{ held: Block[]; lastTime: bigint }> {
  const child = spawn(process.execPath, [CLI, 'ingest', '-', ...storeArgs], { cwd: ROOT, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = once(child, 'close');
  const held: Block[] = [];
  let lastTime = 0n;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    const height = heightOf(line);
    if (height < cut) {
      lastTime = blockTimeOf(line) ?? lastTime;
      if (!child.stdin.write(`${line}\n`)) await once(child.stdin, 'drain');
      continue;
    }
    let block = held[held.length - 1];
    if (block?.height !== height) {
      block = { height, lines: [], ours: false };
      held.push(block);
    }
    block.lines.push(line);
    block.ours ||= isOurs(line);
  }
  child.stdin.end();
  const [code] = (await exited) as [number | null];
  if (code !== 0) throw new Error(`ingest failed (exit ${code}): ${stderr}`);
  return { held, lastTime };
}

/** The last height of a file of blocks: the id of its last line (read from its last 1 MiB). */
function lastHeight(file: string): number {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const tail = Buffer.alloc(Math.min(size, 2 ** 20));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    const last = tail.toString().trimEnd().split('\n').pop() ?? '';
    return Number(/^\{"id":"(\d+)-/.exec(last)?.[1]);
  } finally {
    closeSync(fd);
  }
}

/**
 * Fills a store (its CLI arguments) with the demo chain of `file` but its last blocks, and
 * returns those as the live chain to append: `count` blocks, `share` of them the demo's (with
 * events of our kinds, mostly), quiet blocks between them.
 */
export async function ingestAllButLive(
  file: string,
  storeArgs: string[],
  o: { count: number; share: number; seed: number },
): Promise<{ height: number; cut: number; demo: Block[]; held: Block[] }> {
  const height = lastHeight(file);
  const cut = Math.max(2, height - Math.ceil(o.count * o.share) - 1);
  const ingested = await ingestAllBut(file, cut, storeArgs);
  const held = liveChain(ingested.held, { first: cut, after: ingested.lastTime, share: o.share, count: o.count, seed: o.seed });
  return { height, cut, demo: ingested.held, held };
}

/** Appends the blocks to `file`, one every `blockMs`, until they run out; `appended()` counts those appended. */
export function appendEvery(file: string, blocks: readonly Block[], blockMs: number): { appended: () => number; stop: () => void } {
  let appended = 0;
  const timer = setInterval(() => {
    const block = blocks[appended];
    if (!block) return;
    appendFileSync(file, `${block.lines.join('\n')}\n`);
    appended++;
  }, blockMs);
  return { appended: () => appended, stop: () => clearInterval(timer) };
}
