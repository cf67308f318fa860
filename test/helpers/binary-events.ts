import { decodeBusEvent, type BinaryEvent } from '../../src/sources/binary/decode-event.js';
import { EventRecordReader } from '../../src/sources/binary/records.js';
import type { DecodedEvent } from '../../src/sources/events.js';

/** An event without where it came from, comparable across formats. */
export function comparable(e: DecodedEvent): string {
  const { at: _at, ...rest } = e;
  const { chainId: _c, version: _v, ...plain } = rest as Partial<BinaryEvent>;
  return JSON.stringify(plain, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}

/** Every event of event-file bytes, pushed to the record reader `chunkBytes` at a time. */
export function decodeAll(bytes: Buffer, chunkBytes = bytes.length): BinaryEvent[] {
  const reader = new EventRecordReader();
  const out: BinaryEvent[] = [];
  for (let i = 0; i < bytes.length; i += chunkBytes) {
    for (const r of reader.push(bytes.subarray(i, i + chunkBytes))) out.push(decodeBusEvent(r.buf, r.start, r.end, { offset: r.offset }));
  }
  reader.end();
  return out;
}
