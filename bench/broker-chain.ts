/**
 * The sending side of bench/broker.ts: the demo chain as an event file split into the part sent
 * at once (the catch-up) and its last blocks (sent one at a time), and a core played by
 * libnanomsg in a Perl process of its own (test/helpers/nanomsg-peer.pl, as the socket tests
 * play it), with the times it handed its first and last frames over.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, createReadStream, createWriteStream, existsSync, fstatSync, openSync, readSync, renameSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { beginBlockHeight } from '../src/sources/broker/buffer-files.js';

const PEER = fileURLToPath(new URL('../test/helpers/nanomsg-peer.pl', import.meta.url));

/** Now on CLOCK_MONOTONIC, in ms: the clock the peer's times are read on. */
export const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** One block of the event file: its height and its bytes (BeginBlock to EndBlock, whole records). */
export interface BlockRange {
  height: number;
  from: number;
  length: number;
}

/**
 * The file's last `count` blocks, found by reading its records (the envelope's type only), and
 * the file of the blocks before them (`<file>-head<count>.evts`, written once next to it).
 */
export async function splitChain(file: string, count: number): Promise<{ head: string; headBlocks: number; tail: BlockRange[] }> {
  const starts: { height: number; at: number }[] = [];
  const fd = openSync(file, 'r');
  const size = fstatSync(fd).size;
  const buf = Buffer.alloc(16 << 20);
  let filled = 0;
  let bufAt = 0; // the file offset of buf[0]
  let at = 0; // the offset of the next record
  try {
    while (at < size) {
      let rel = at - bufAt;
      if (rel + 12 > filled || rel + 4 + buf.readUInt32BE(rel) > filled) {
        buf.copy(buf, 0, rel, filled);
        filled -= rel;
        bufAt = at;
        rel = 0;
        const n = filled < buf.length ? readSync(fd, buf, filled, buf.length - filled, bufAt + filled) : 0;
        if (n === 0) throw new Error(`${file}: a record cut short, or larger than ${buf.length} bytes, at byte ${at}`);
        filled += n;
        continue;
      }
      const recordBytes = 4 + buf.readUInt32BE(rel);
      const height = beginBlockHeight(buf.subarray(rel + 12, rel + recordBytes));
      if (height !== undefined) starts.push({ height: Number(height), at });
      at += recordBytes;
    }
  } finally {
    closeSync(fd);
  }
  if (starts.length <= count) throw new Error(`${file} has ${starts.length} blocks: fewer than --live-blocks ${count} and one more`);
  const tail = starts.slice(-count).map((s, i, all) => ({ height: s.height, from: s.at, length: (all[i + 1]?.at ?? size) - s.at }));
  const head = file.replace(/\.evts$/, `-head${count}.evts`);
  if (!existsSync(head)) {
    await pipeline(createReadStream(file, { start: 0, end: tail[0]!.from - 1 }), createWriteStream(`${head}.tmp`));
    renameSync(`${head}.tmp`, head);
  }
  return { head, headBlocks: starts.length - count, tail };
}

/** What the peer answered to a send: the frames, and when it handed the first and the last over (monotonic ms). */
export interface Sent {
  frames: number;
  firstMs: number;
  lastMs: number;
}

/** A core: dials `port` with libnanomsg and sends event files, or byte ranges of them, when told. */
export class NanomsgCore {
  private readonly child: ChildProcess;
  private readonly replies: string[] = [];
  private waiting: (() => void) | undefined;
  private stderr = '';
  private readonly exited: Promise<number | null>;

  constructor(port: number) {
    this.child = spawn('perl', [PEER, `tcp://127.0.0.1:${port}`], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr!.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-4000)));
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      this.replies.push(line);
      this.waiting?.();
    });
    this.exited = once(this.child, 'exit').then(([code]) => code as number | null);
  }

  /** Sends the file's records (or those of `range`); resolves once nanomsg took them all. */
  async send(file: string, range?: { from: number; length: number }): Promise<Sent> {
    this.child.stdin!.write(`send ${file}${range ? ` ${range.from} ${range.length}` : ''}\n`);
    const exited = this.exited.then((code) => {
      throw new Error(`the nanomsg peer exited (${code}): ${this.stderr}`);
    });
    exited.catch(() => {}); // thrown by the race below, if at all
    while (this.replies.length === 0) await Promise.race([new Promise<void>((resolve) => (this.waiting = resolve)), exited]);
    const reply = this.replies.shift()!;
    const m = /^sent (\d+) ([\d.]+) ([\d.]+)$/.exec(reply);
    if (!m) throw new Error(`the nanomsg peer answered ${JSON.stringify(reply)}`);
    return { frames: Number(m[1]), firstMs: Number(m[2]) * 1000, lastMs: Number(m[3]) * 1000 };
  }

  /** Closes the socket and waits for the process to end. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin!.end('close\n');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
  }
}
