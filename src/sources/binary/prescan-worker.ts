import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { InputError } from '../input-error.js';
import { RecordScanner } from './decoder.js';
import { CHUNK_BYTES, type PrescanFailure, type PrescanInput, type Prescanned, weightOf } from './prescan.js';

/**
 * The worker thread of prescan.ts: reads an event file and scans it (RecordScanner), and posts per
 * chunk read the records to decode (their bytes copied out) and the runs of skipped events, in
 * order, while what waits to be taken weighs less than its `aheadBytes` (AHEAD_BYTES).
 */
const port = parentPort!;
const { file, aheadBytes } = workerData as PrescanInput;
const scanner = new RecordScanner(file);
const fd = openSync(file, 'r');
const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
let position = 0;
/** The weight of the messages posted and not yet taken (weightOf). */
let waiting = 0;
let finished = false;

port.on('message', (taken: number) => {
  waiting -= taken;
  pump();
});

function pump(): void {
  try {
    while (waiting < aheadBytes && !finished) {
      const read = readSync(fd, chunk, 0, CHUNK_BYTES, position);
      position += read;
      if (read === 0) {
        finished = true;
        closeSync(fd);
        scanner.end();
        port.postMessage({ bytesRead: 0, done: true } satisfies Partial<Prescanned>);
        return;
      }
      // The chunk is read again into the same memory: what is posted is copied out of it.
      const found = new Found();
      try {
        for (const run of scanner.scan(chunk.subarray(0, read))) {
          if (run) found.run(run);
          else found.record(scanner.records);
        }
      } finally {
        found.post(read);
      }
    }
  } catch (err) {
    finished = true;
    port.postMessage(failure(err));
  }
}

/** What one chunk holds, gathered while it is scanned. */
class Found {
  private readonly runs: Prescanned['runs'] = [];
  /** 1 for a run, 0 for a record, in input order. */
  private readonly order: number[] = [];
  private readonly spans: number[] = [];
  private readonly offsets: number[] = [];
  private readonly chunks: Buffer[] = [];
  private size = 0;

  run(run: Prescanned['runs'][number]): void {
    this.order.push(1);
    this.runs.push(run);
  }

  record(r: RecordScanner['records']): void {
    this.order.push(0);
    this.chunks.push(r.buf.subarray(r.eventStart, r.eventEnd));
    this.size += r.eventEnd - r.eventStart;
    this.spans.push(this.size);
    this.offsets.push(r.recordOffset);
  }

  post(bytesRead: number): void {
    // Memory of its own (not the pool's), so that it moves to the other thread without a copy.
    const bytes = Buffer.allocUnsafeSlow(this.size);
    let at = 0;
    for (const c of this.chunks) at += c.copy(bytes, at);
    const message: Prescanned = {
      bytesRead,
      done: false,
      bytes: bytes.buffer,
      ends: Float64Array.from(this.spans),
      offsets: Float64Array.from(this.offsets),
      order: Uint8Array.from(this.order),
      runs: this.runs,
    };
    waiting += weightOf(message);
    port.postMessage(message, [bytes.buffer]);
  }
}

function failure(err: unknown): PrescanFailure {
  if (err instanceof InputError) return { input: { at: err.at, eventId: err.eventId, field: err.field, reason: err.reason } };
  const e = err as NodeJS.ErrnoException;
  return { other: { message: e?.message ?? String(err), code: e?.code } };
}

pump();
