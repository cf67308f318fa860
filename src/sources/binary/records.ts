import { InputError } from '../input-error.js';

/** One record of an event file: `[uint32 BE size][uint64 BE sequence][BusEvent]`, size = 8 + length. */
export interface EventRecord {
  /** Where the record (its size prefix) starts in the input. */
  offset: number;
  /** The BusEvent is `buf[start, end)`. The bytes are only valid until the next push. */
  buf: Buffer;
  start: number;
  end: number;
}

const HEADER_BYTES = 12;
/** No BusEvent is anywhere near this big: a bigger size means the bytes are not an event file. */
export const MAX_RECORD_BYTES = 64 * 2 ** 20;

/**
 * Splits event-file bytes into records however the bytes are cut into chunks: a finished file,
 * stdin, a file followed as it grows (a partial record at the end waits for the rest), a broker
 * socket's buffer files. The sequence number is ignored: it restarts in each core process.
 * `offset` counts from `startOffset`, the input's first byte.
 */
export class EventRecordReader {
  /** Bytes of a record cut by the end of a chunk, joined once the rest arrives. */
  private cut: Buffer | undefined;
  private offset: number;

  constructor(startOffset = 0) {
    this.offset = startOffset;
  }

  /** Where the next record starts (all bytes before it have been handed out as records). */
  get position(): number {
    return this.offset;
  }

  /** Bytes held of a record not complete yet. */
  get pendingBytes(): number {
    return this.cut?.length ?? 0;
  }

  /** The records `chunk` completes, in order. Take them all before the next push. */
  *push(chunk: Buffer): Generator<EventRecord> {
    this.begin(chunk);
    while (this.next()) yield { offset: this.recordOffset, buf: this.buf, start: this.eventStart, end: this.eventEnd };
  }

  // The cursor: begin(chunk), then next() until false; each true leaves the record in these
  // fields (the BusEvent is buf[eventStart, eventEnd), its record at recordOffset in the input). The
  // decoder reads its records this way, with no object per record.
  buf: Buffer = Buffer.alloc(0);
  eventStart = 0;
  eventEnd = 0;
  recordOffset = 0;
  private chunk: Buffer = Buffer.alloc(0);
  private pos = 0;

  /** Starts on the records of `chunk` (those of the previous chunk must all have been taken). */
  begin(chunk: Buffer): void {
    this.chunk = chunk;
    this.pos = 0;
  }

  /** Moves to the next complete record of the chunk; false when there is none (a cut one is kept for the next chunk). */
  next(): boolean {
    const chunk = this.chunk;
    let pos = this.pos;
    if (this.cut) {
      // Complete the cut record from the chunk's head only: a big chunk is not copied whole.
      let cut = this.cut;
      if (cut.length < 4) {
        pos = Math.min(4 - cut.length, chunk.length);
        cut = Buffer.concat([cut, chunk.subarray(0, pos)]);
      }
      if (cut.length >= 4) {
        const size = this.recordBytes(cut, 0);
        const add = Math.min(size - cut.length, chunk.length - pos);
        cut = Buffer.concat([cut, chunk.subarray(pos, pos + add)]);
        pos += add;
      }
      this.pos = pos;
      if (cut.length < 4 || cut.length < this.recordBytes(cut, 0)) {
        this.cut = cut;
        return false;
      }
      this.cut = undefined;
      this.take(cut, 0, cut.length);
      return true;
    }
    if (chunk.length - pos >= 4) {
      const size = this.recordBytes(chunk, pos);
      if (chunk.length - pos >= size) {
        this.take(chunk, pos, size);
        this.pos = pos + size;
        return true;
      }
    }
    if (pos < chunk.length) this.cut = Buffer.from(chunk.subarray(pos));
    this.pos = chunk.length;
    return false;
  }

  /**
   * The end of a finished input: a record cut short is an error there (a follower never calls
   * this: the rest may still come).
   */
  end(): void {
    const cut = this.cut;
    if (!cut) return;
    const reason =
      cut.length < 4
        ? `the file ends inside a record's size (${cut.length} of 4 bytes)`
        : `the record of ${cut.readUInt32BE(0)} bytes runs past the end of the input (${cut.length - 4} bytes left)`;
    throw new InputError({ offset: this.offset }, undefined, undefined, reason);
  }

  /** The whole record's length, prefix included, from its size field; checks it is sane. */
  private recordBytes(buf: Buffer, pos: number): number {
    const size = buf.readUInt32BE(pos);
    if (size < 8 || size > MAX_RECORD_BYTES) {
      throw new InputError(
        { offset: this.offset },
        undefined,
        undefined,
        `record size ${size} is not an event-file record (expected 8 to ${MAX_RECORD_BYTES})`,
      );
    }
    return size + 4;
  }

  private take(buf: Buffer, pos: number, bytes: number): void {
    this.buf = buf;
    this.eventStart = pos + HEADER_BYTES;
    this.eventEnd = pos + bytes;
    this.recordOffset = this.offset;
    this.offset += bytes;
  }
}
