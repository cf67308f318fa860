import type { InputPosition } from '../input-error.js';
import { decodeBusEvent, type BinaryEvent } from './decode-event.js';
import { EventRecordReader } from './records.js';

/**
 * Event-file bytes → decoded events, in input order, however the bytes are cut into chunks: the
 * binary twin of NdjsonDecoder. Records are decoded as their events are taken, so the events
 * before a bad record are all handed out before its InputError is thrown. Positions are byte
 * offsets of the records (in `file` when given).
 */
export class BinaryDecoder {
  private readonly records: EventRecordReader;

  constructor(
    private readonly file?: string,
    startOffset = 0,
  ) {
    this.records = new EventRecordReader(startOffset);
  }

  /** The events of the records `chunk` completes. Take them all before the next push. */
  *push(chunk: Buffer): Generator<BinaryEvent> {
    for (const r of this.records.push(chunk)) {
      const at: InputPosition = this.file === undefined ? { offset: r.offset } : { offset: r.offset, file: this.file };
      yield decodeBusEvent(r.buf, r.start, r.end, at);
    }
  }

  /** The end of a finished input: a record cut short there is an InputError. */
  // biome-ignore lint/correctness/useYield: a generator like NdjsonDecoder.end (EventDecoder), though a binary input's end completes no event, only checks that no record was cut
  *end(): Generator<BinaryEvent> {
    this.records.end();
  }
}
