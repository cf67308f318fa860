import { on } from 'node:events';
import { type DecodedEvent, inOneBatch } from '../events.js';
import { InputError, inFile, type InputPosition } from '../input-error.js';
import { type BinaryEvent, decodeBusEvent } from './decode-event.js';
import { startWorker } from '../../lib/worker-thread.js';

/**
 * An event file's events with the scan in a thread of its own. On a real chain nearly all events
 * are of kinds we skip, and reading the file and scanning their envelopes was about a fifth of
 * `ingest`'s CPU on the one thread that also applies the events of ours: a worker thread
 * (prescan-worker.ts) now reads and scans (RecordScanner), and hands over per chunk only the
 * bytes of the records to decode and the runs of skipped events, counted; this thread decodes
 * those records, as BinaryDecoder would, and the two run on two cores. The events, their order,
 * batches (one per chunk) and errors are BinaryDecoder's over the same chunks.
 */

/** Bytes read at a time, as a file stream's chunks (input.ts). */
export const CHUNK_BYTES = 1 << 20;
/**
 * What the worker may have handed over and not seen taken yet, in bytes of records (and of runs,
 * counted as RUN_BYTES each): memory stays bounded, and through a real chain's quiet stretches,
 * where a chunk holds few records to decode, the worker reads far ahead while this thread waits
 * for a transaction to commit.
 */
export const AHEAD_BYTES = 8 << 20;
export const RUN_BYTES = 256;

/** The weight of a chunk's findings against AHEAD_BYTES. */
export const weightOf = (m: Pick<Prescanned, 'bytes' | 'runs'>) => m.bytes.byteLength + RUN_BYTES * m.runs.length;

export interface PrescanInput {
  file: string;
  aheadBytes: number;
}

/** One chunk's findings, in input order (`order`: 0 for the next record, 1 for the next run). */
export interface Prescanned {
  bytesRead: number;
  /** The file ended (this message holds no records). */
  done: boolean;
  /** The records' BusEvent bytes, one after another; record i ends at ends[i]. */
  bytes: ArrayBuffer;
  ends: Float64Array;
  /** Each record's offset in the file. */
  offsets: Float64Array;
  order: Uint8Array;
  runs: BinaryEvent[];
}

/** The worker stopped on bad input (an InputError's parts) or another failure (reading the file). */
export type PrescanFailure =
  | { input: { at: InputPosition; eventId: string | undefined; field: string | undefined; reason: string } }
  | { other: { message: string; code: string | undefined } };

/** The events of an event file (not gzipped), a batch per chunk; `onBytes` hears the bytes read. */
export async function* prescannedEvents(
  file: string,
  onBytes: (n: number) => void,
  aheadBytes = AHEAD_BYTES,
): AsyncGenerator<readonly DecodedEvent[]> {
  const worker = startWorker(import.meta.url, 'prescan-worker', { file, aheadBytes } satisfies PrescanInput);
  // Its messages in order; its crash (an 'error') ends them with the error, an exit with none.
  const messages = on(worker, 'message', { close: ['exit'] }) as AsyncIterableIterator<[Prescanned | PrescanFailure]>;
  try {
    for await (const [m] of messages) {
      if ('input' in m) throw inFile(new InputError(m.input.at, m.input.eventId, m.input.field, m.input.reason), file);
      if ('other' in m) throw Object.assign(new Error(m.other.message), { code: m.other.code });
      if (m.done) return;
      // Taken: the worker may read on while these events are decoded and applied.
      worker.postMessage(weightOf(m));
      onBytes(m.bytesRead);
      yield* inOneBatch(eventsOf(m, file));
    }
    throw new Error("the event file's reader stopped before the end of the file");
  } finally {
    await worker.terminate();
  }
}

/** A chunk's events: its records decoded and its runs, in input order. */
function* eventsOf(m: Prescanned, file: string): Generator<BinaryEvent> {
  const bytes = Buffer.from(m.bytes);
  let record = 0;
  let run = 0;
  for (const kind of m.order) {
    if (kind === 1) yield m.runs[run++]!;
    else {
      const start = record === 0 ? 0 : m.ends[record - 1]!;
      yield decodeBusEvent(bytes, start, m.ends[record]!, { offset: m.offsets[record]!, file });
      record++;
    }
  }
}
