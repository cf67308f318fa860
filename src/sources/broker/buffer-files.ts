import { closeSync, mkdirSync, openSync, readdirSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ENVELOPE, PAYLOADS } from '../binary/schema.js';
import { LEN, VARINT, WireError, WireReader } from '../../lib/wire.js';
import { SkippedFrames } from './skipped-frames.js';

/**
 * A buffer file is closed at the first block that begins once it holds this many bytes, so that
 * files are consumed and removed while a connection lasts (a core stays connected for weeks).
 */
export const SEGMENT_BYTES = 64 * 2 ** 20;

const NAME = /^(\d{12})\.bevt$/;

/** One buffer file: an event file (records of [uint32 size][uint64 seq][BusEvent]). */
export interface Segment {
  number: number;
  path: string;
  /**
   * Nothing more will be appended: its connection ended, it was rotated, or a previous process
   * wrote it. A block it leaves open will never be completed.
   */
  finished: boolean;
}

/**
 * The BeginBlock height of a BusEvent, or undefined when it is another event: the envelope's
 * type and the payload's first field are read, nothing is decoded. A malformed event is left
 * for the applier's decoder to name.
 */
export function beginBlockHeight(event: Buffer): bigint | undefined {
  try {
    const r = new WireReader(event, 0, event.length);
    while (!r.done) {
      const tag = r.tag();
      const field = tag >>> 3;
      if (field === ENVELOPE.type && (tag & 7) === VARINT) {
        if (r.uint32() !== PAYLOADS.beginBlock.type) return undefined;
      } else if (field === PAYLOADS.beginBlock.field && (tag & 7) === LEN) {
        const [start, end] = r.bytes();
        const payload = new WireReader(event, start, end);
        while (!payload.done) {
          const inner = payload.tag();
          if (inner === ((1 << 3) | VARINT)) return payload.uint64();
          payload.skip(inner & 7);
        }
        return 0n; // height 0: absent, as proto3 writes it
      } else r.skip(tag & 7);
    }
  } catch (err) {
    if (!(err instanceof WireError)) throw err;
  }
  return undefined;
}

/**
 * The broker socket's buffer: every frame is written to a file in this folder as it arrives, in
 * the event-file record format, and the store is fed from the files. The socket never waits for
 * the store, and what arrived survives a kill -9 (the files are written through to the kernel at
 * once). Events of the kinds we skip are counted and left out (SkippedFrames): the applier
 * would only count them. Each connection writes new files, so a block left open by a disconnect
 * ends its file. Files are numbered in the order written; consumed files are removed by the reader.
 */
export class BufferFiles {
  private readonly segments = new Map<number, Segment & { bytes: number }>();
  private readonly skipped: SkippedFrames;
  private readonly rotateBytes: number;
  private writing: { segment: Segment & { bytes: number }; fd: number; seq: number } | undefined;
  /** A connection began: its first frame opens a new file. */
  private connectionStarted = false;
  private next = 1;
  private wakers: (() => void)[] = [];
  /** Counts appends and ends of connections: a reader compares it before and after a read. */
  version = 0;
  /** Height of the last BeginBlock received. */
  heightReceived: bigint | null = null;

  /**
   * @param opts.chainId events of another chain are kept for the applier to refuse (any chain when undefined);
   * opts.rotateBytes is SEGMENT_BYTES but in tests.
   */
  constructor(
    readonly dir: string,
    opts: { chainId: string | undefined; rotateBytes?: number },
  ) {
    this.skipped = new SkippedFrames(opts.chainId);
    this.rotateBytes = opts.rotateBytes ?? SEGMENT_BYTES;
    mkdirSync(dir, { recursive: true });
    this.reload();
  }

  /**
   * The files of the folder as they are now, finished: an earlier process's, consumed first. Read
   * at start, and again when this process takes over as the writer (a hot spare sharing the
   * folder: the process before it wrote and removed files since it started). Not while a
   * connection writes.
   */
  reload(): void {
    if (this.writing) throw new Error('buffer files reloaded while a connection writes');
    this.segments.clear();
    for (const name of readdirSync(this.dir).sort()) {
      const m = NAME.exec(name);
      if (!m) continue;
      const number = Number(m[1]);
      const path = join(this.dir, name);
      this.segments.set(number, { number, path, finished: true, bytes: statSync(path).size });
      this.next = Math.max(this.next, number + 1);
    }
  }

  /** A connection began: its frames go to a new file. */
  connectionBegan(): void {
    this.finishWriting();
    this.connectionStarted = true;
    this.skipped.connectionBegan();
  }

  /** The connection ended: its last file is finished. */
  connectionEnded(): void {
    this.finishWriting();
    this.connectionStarted = false;
    this.wake();
  }

  /**
   * Appends frames (raw BusEvents) as records, in one write per file, but those left out. The
   * first frame of a connection kept opens a new file, and so does a BeginBlock once the file is full.
   */
  append(frames: Buffer[]): void {
    let batch: Buffer[] = [];
    let batchBytes = 0;
    let kept = 0;
    for (const frame of frames) {
      if (this.skipped.leavesOut(frame)) continue;
      kept++;
      const height = beginBlockHeight(frame);
      if (height !== undefined) this.heightReceived = height;
      const full = this.writing !== undefined && this.writing.segment.bytes + batchBytes >= this.rotateBytes;
      if (this.connectionStarted || (height !== undefined && full)) {
        this.write(batch);
        batch = [];
        batchBytes = 0;
        this.finishWriting();
        this.connectionStarted = false;
        this.startWriting();
      }
      batch.push(frame);
      batchBytes += 12 + frame.length;
    }
    this.write(batch);
    if (kept > 0) this.wake();
  }

  /** The events left out since the last call, by type name. */
  takeSkipped(): Map<string, number> {
    return this.skipped.take();
  }

  /** The oldest file still here. */
  oldest(): Segment | undefined {
    for (const s of this.segments.values()) return { number: s.number, path: s.path, finished: s.finished };
    return undefined;
  }

  /** Removes a consumed file. */
  remove(number: number): void {
    const segment = this.segments.get(number);
    if (!segment) return;
    unlinkSync(segment.path);
    this.segments.delete(number);
  }

  /** Bytes of the files on disk: received and not yet consumed (the file being read counts whole). */
  get bufferedBytes(): number {
    let total = 0;
    for (const s of this.segments.values()) total += s.bytes;
    return total;
  }

  /** Resolves at the next append or end of a connection (the next change of version). */
  changed(): Promise<void> {
    return new Promise((resolve) => this.wakers.push(resolve));
  }

  /** Ends every wait for a change (at shutdown). */
  interrupt(): void {
    this.wake();
  }

  /** Closes the file being written. */
  close(): void {
    this.finishWriting();
    this.wake();
  }

  private wake(): void {
    this.version++;
    const wakers = this.wakers;
    this.wakers = [];
    for (const w of wakers) w();
  }

  private startWriting(): void {
    const number = this.next++;
    const path = join(this.dir, `${String(number).padStart(12, '0')}.bevt`);
    const segment = { number, path, finished: false, bytes: 0 };
    this.writing = { segment, fd: openSync(path, 'wx'), seq: 0 };
    this.segments.set(number, segment);
  }

  private finishWriting(): void {
    if (!this.writing) return;
    closeSync(this.writing.fd);
    this.writing.segment.finished = true;
    this.writing = undefined;
  }

  private write(frames: Buffer[]): void {
    if (frames.length === 0) return;
    if (!this.writing) this.startWriting();
    const w = this.writing!;
    let size = 0;
    for (const f of frames) size += 12 + f.length;
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    for (const f of frames) {
      out.writeUInt32BE(8 + f.length, at);
      // A number, not a bigint (a bigint a frame was a good part of the write's cost): a file holds far fewer than 2^32 records.
      out.writeUInt32BE(0, at + 4);
      out.writeUInt32BE(++w.seq, at + 8);
      f.copy(out, at + 12);
      at += 12 + f.length;
    }
    for (let done = 0; done < size; ) done += writeSync(w.fd, out, done, size - done);
    w.segment.bytes += size;
  }
}
