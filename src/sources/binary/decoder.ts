import type { InputPosition } from '../input-error.js';
import { heightOf } from '../event-id.js';
import { decodeBusEvent, isOurPayload, scanEnvelope, scanned, type BinaryEvent } from './decode-event.js';
import { EventRecordReader } from './records.js';
import { BUS_EVENT_VERSION } from './schema.js';
import { TypeTally } from './type-tally.js';
import { ascii } from '../../lib/wire.js';

/**
 * Event-file bytes → decoded events, in input order, however the bytes are cut into chunks: the
 * binary twin of NdjsonDecoder. Events of the kinds we read, block markers and time updates are
 * decoded one by one (decodeBusEvent); consecutive events of other kinds in one block (most of a
 * real chain) come as one SkippedRun, their envelopes only scanned, with no object or string
 * made for each (RecordScanner). Records are decoded as their events are taken, so the events
 * before a bad record are all handed out before its InputError is thrown. Positions are byte
 * offsets of the records (in `file` when given).
 */
export class BinaryDecoder {
  private readonly scanner: RecordScanner;

  constructor(file?: string, startOffset = 0) {
    this.scanner = new RecordScanner(file, startOffset);
  }

  /** The events of the records `chunk` completes. Take them all before the next push. */
  *push(chunk: Buffer): Generator<BinaryEvent> {
    const scanner = this.scanner;
    for (const run of scanner.scan(chunk)) yield run ?? scanner.decode();
  }

  /** The end of a finished input: a record cut short is an InputError. */
  // biome-ignore lint/correctness/useYield: a generator like NdjsonDecoder.end (EventDecoder), though a binary input's end completes no event, only checks that no record was cut
  *end(): Generator<BinaryEvent> {
    this.scanner.end();
  }
}

/**
 * The first half of BinaryDecoder, which a worker thread can run on its own (prescan.ts): splits
 * the bytes into records and tells, from each record's envelope alone, the records to decode
 * from the runs of events of kinds we skip, which it counts.
 */
export class RecordScanner {
  /** The records' cursor: while scan() hands out a null, on the record to decode. */
  readonly records: EventRecordReader;
  private readonly run = new RunTally();

  constructor(
    private readonly file?: string,
    startOffset = 0,
  ) {
    this.records = new EventRecordReader(startOffset);
  }

  /**
   * In input order, each run of skipped events `chunk` completes, as its one event, and a null
   * for each record to decode (of a kind we read, a block marker, or one whose envelope does not
   * scan: decodeBusEvent says what is wrong with it), to be decoded (decode()) or copied from
   * the records' cursor before the next. A run ends with the chunk.
   */
  *scan(chunk: Buffer): Generator<BinaryEvent | null> {
    const r = this.records;
    const run = this.run;
    r.begin(chunk);
    for (;;) {
      let more: boolean;
      try {
        more = r.next();
      } catch (err) {
        if (run.open) yield run.take();
        throw err;
      }
      if (!more) break;
      // An event of another version is decoded, which refuses it by name.
      if (scanEnvelope(r.buf, r.eventStart, r.eventEnd) && scanned.version === BUS_EVENT_VERSION && !isOurPayload(scanned.payloadField)) {
        if (run.open && run.continues(r.buf)) {
          run.add(scanned.type);
          continue;
        }
        if (run.open) yield run.take();
        run.begin(r.buf, this.at(r.recordOffset));
        continue;
      }
      if (run.open) yield run.take();
      yield null;
    }
    if (run.open) yield run.take();
  }

  /** The record the cursor is on, decoded. */
  decode(): BinaryEvent {
    const r = this.records;
    return decodeBusEvent(r.buf, r.eventStart, r.eventEnd, this.at(r.recordOffset));
  }

  /** The end of a finished input: a record cut short there is an InputError. */
  end(): void {
    this.records.end();
  }

  at(offset: number): InputPosition {
    return this.file === undefined ? { offset } : { offset, file: this.file };
  }
}

/** The run of skipped events being counted: its first event, and the events of each type. */
class RunTally {
  open = false;
  private id = '';
  private height = 0n;
  private at: InputPosition = { offset: 0 };
  private chainId = '';
  private readonly tally = new TypeTally();

  /** Starts a run at the event just scanned (scanned holds its envelope). */
  begin(buf: Uint8Array, at: InputPosition): void {
    this.open = true;
    this.id = ascii(buf, scanned.idStart, scanned.idEnd);
    this.height = heightOf(this.id, at);
    this.at = at;
    this.chainId = scanned.chainId;
    this.add(scanned.type);
  }

  /** Whether the event just scanned belongs to this run: the same height (its id's prefix) and chain (its version is 1, as every run's). */
  continues(buf: Uint8Array): boolean {
    const { idStart, dash } = scanned;
    const id = this.id;
    if (dash - idStart >= id.length || id.charCodeAt(dash - idStart) !== 45) return false;
    for (let i = idStart; i < dash; i++) if (buf[i] !== id.charCodeAt(i - idStart)) return false;
    return scanned.chainId === this.chainId;
  }

  add(type: number): void {
    this.tally.add(type);
  }

  /** The run as one event; the tally starts afresh. */
  take(): BinaryEvent {
    const { counts, events } = this.tally.take();
    this.open = false;
    return {
      id: this.id,
      height: this.height,
      at: this.at,
      chainId: this.chainId,
      version: BUS_EVENT_VERSION,
      body: { kind: 'skippedRun', counts, events },
    };
  }
}
