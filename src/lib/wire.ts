/**
 * The protobuf wire format, read and written by hand: varints, fixed widths and length-delimited
 * fields are all our schemas use. A library would decode whole messages into objects; ingestion
 * mostly needs to look at two envelope fields and jump over the rest (sources/binary/decode-event.ts),
 * and the gRPC door reads request messages as Go's proto.Unmarshal does (grpc/request.ts). What is
 * malformed is what Go refuses: field number 0 or past 2^29-1, a varint past 64 bits, a group
 * closed by another field's end, a length past the end.
 */

export const VARINT = 0;
export const I64 = 1;
export const LEN = 2;
export const START_GROUP = 3;
export const END_GROUP = 4;
export const I32 = 5;

/** Groups nested deeper than this are refused, as by Go's protobuf (its default recursion limit). */
const MAX_GROUP_DEPTH = 10_000;

/** Malformed bytes; the decoder turns it into an InputError naming the event and field. */
export class WireError extends Error {
  override name = 'WireError';
}

/** A cursor over one message's bytes (`end` is exclusive). */
export class WireReader {
  constructor(
    public buf: Uint8Array,
    public pos: number,
    public end: number,
  ) {}

  /** Points this reader at other bytes: one reader read each event's envelope, with no object per event. */
  reset(buf: Uint8Array, pos: number, end: number): this {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
    return this;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  /** A tag: field number times 8 plus wire type; the field number is 1 to 2^29-1. */
  tag(): number {
    const at = this.pos;
    const tag = this.uint32();
    if (tag >>> 3 === 0 || this.wide)
      throw new WireError(`field number ${tag >>> 3 === 0 && !this.wide ? 0 : 'past 2^29-1'} at byte ${at}`);
    return tag;
  }

  /** Whether the last uint32() cut bits beyond 32. */
  private wide = false;

  /** A varint's low 32 bits (tags, lengths, enums, uint32); the bits beyond are cut, as protobuf does. */
  uint32(): number {
    let pos = this.pos;
    let b = this.byte(pos++);
    let value = b & 0x7f;
    let high = 0;
    if (b >= 0x80) {
      b = this.byte(pos++);
      value |= (b & 0x7f) << 7;
      if (b >= 0x80) {
        b = this.byte(pos++);
        value |= (b & 0x7f) << 14;
        if (b >= 0x80) {
          b = this.byte(pos++);
          value |= (b & 0x7f) << 21;
          if (b >= 0x80) {
            b = this.byte(pos++);
            value |= (b & 0x0f) << 28;
            high = b & 0x70;
            // Up to five more bytes of a 64-bit varint carry bits beyond 32: dropped.
            for (let i = 0; b >= 0x80; i++) {
              b = this.byte(pos++);
              if (i === 4 && b > 1) throw new WireError(`varint past 64 bits at byte ${this.pos}`);
              high |= b & 0x7f;
            }
          }
        }
      }
    }
    this.pos = pos;
    this.wide = high !== 0;
    return value >>> 0;
  }

  /** A varint as an unsigned 64-bit integer. */
  uint64(): bigint {
    let lo = 0;
    let hi = 0;
    let shift = 0;
    let pos = this.pos;
    for (;;) {
      const b = this.byte(pos++);
      if (shift < 28) lo |= (b & 0x7f) << shift;
      else if (shift === 28) {
        lo |= (b & 0x0f) << 28;
        hi |= (b & 0x7f) >>> 4;
      } else if (shift < 63) hi |= (b & 0x7f) << (shift - 32);
      else if (b > 1) throw new WireError(`varint past 64 bits at byte ${this.pos}`);
      else hi |= b << 31;
      shift += 7;
      if (b < 0x80) break;
    }
    this.pos = pos;
    return hi === 0 ? BigInt(lo >>> 0) : (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
  }

  /** A varint as a signed (two's complement) 64-bit integer: int64 fields. */
  int64(): bigint {
    return BigInt.asIntN(64, this.uint64());
  }

  /** The bounds of a length-delimited field's bytes; the cursor moves past them. */
  bytes(): [start: number, end: number] {
    const start = this.lengthDelimited();
    return [start, this.pos];
  }

  string(): string {
    const start = this.lengthDelimited();
    return utf8(this.buf, start, this.pos);
  }

  /** Moves past a length-delimited field's bytes, returning where they start (they end at pos). */
  lengthDelimited(): number {
    const length = this.uint32();
    const start = this.pos;
    // uint32() keeps a varint's low 32 bits: a length of 2^32 or more would wrap around.
    if (this.wide) throw new WireError(`length of 2^32 bytes or more at byte ${start} runs past the end of the message`);
    if (start + length > this.end) throw new WireError(`length ${length} at byte ${start} runs past the end of the message`);
    this.pos = start + length;
    return start;
  }

  /** Jumps over a field's value of wire type `wireType` (not a group: see skipField). */
  skip(wireType: number): void {
    switch (wireType) {
      case VARINT:
        this.uint32();
        return;
      case I64:
        this.advance(8);
        return;
      case LEN:
        this.bytes();
        return;
      case I32:
        this.advance(4);
        return;
      default:
        // Groups (3, 4) are proto2 only: none of our messages has one.
        throw new WireError(`wire type ${wireType} at byte ${this.pos}`);
    }
  }

  /**
   * Jumps over the value of the field whose tag was just read, a group included (to the end tag
   * of its own field number: another field's end is malformed, as is an end with no group open).
   */
  skipField(tag: number): void {
    const wireType = tag & 7;
    if (wireType === END_GROUP) throw new WireError(`end of group ${tag >>> 3} with no group open at byte ${this.pos}`);
    if (wireType !== START_GROUP) {
      this.skip(wireType);
      return;
    }
    const open = [tag >>> 3];
    while (open.length > 0) {
      const at = this.pos;
      const inner = this.tag();
      const field = inner >>> 3;
      if ((inner & 7) === END_GROUP) {
        const group = open.pop();
        if (field !== group) throw new WireError(`end of group ${field} closes group ${group} at byte ${at}`);
      } else if ((inner & 7) === START_GROUP) {
        if (open.length >= MAX_GROUP_DEPTH) throw new WireError(`groups nested deeper than ${MAX_GROUP_DEPTH} at byte ${at}`);
        open.push(field);
      } else this.skip(inner & 7);
    }
  }

  private advance(n: number): void {
    if (this.pos + n > this.end) throw new WireError(`fixed-width value at byte ${this.pos} runs past the end of the message`);
    this.pos += n;
  }

  private byte(pos: number): number {
    if (pos >= this.end) throw new WireError(`message ends inside a varint at byte ${pos}`);
    return this.buf[pos]!;
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Buffer's native Latin-1 slice (not in Node's typings): no UTF-8 decoding or checks. */
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice(this: Uint8Array, start: number, end: number): string }).latin1Slice;

/** Bytes known to be ASCII as a string: their Latin-1 reading is their UTF-8 one. */
export function ascii(buf: Uint8Array, start: number, end: number): string {
  return latin1Slice.call(buf, start, end);
}

export function isAscii(buf: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buf[i]! >= 0x80) return false;
  return true;
}

/**
 * UTF-8 text, strictly. Nearly every string of an event (ids, numbers, names) is short ASCII: a
 * loop over its bytes and the Latin-1 slice cost less than UTF-8 decoding does. Otherwise
 * Buffer's native slice (several times faster than copying the bytes through a JS array, as
 * protobuf libraries do for short strings) replaces invalid bytes with U+FFFD, so only a text
 * holding one is checked again by the strict decoder (a real U+FFFD passes, invalid bytes fail).
 */
function utf8(buf: Uint8Array, start: number, end: number): string {
  if (isAscii(buf, start, end)) return ascii(buf, start, end);
  const bytes = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const text = bytes.toString('utf8', start, end);
  if (!text.includes('\uFFFD')) return text;
  try {
    return decoder.decode(bytes.subarray(start, end));
  } catch {
    throw new WireError(`invalid UTF-8 in a string at byte ${start}`);
  }
}

/**
 * A string field that nearly always repeats (the chain id of every event): the text of its last
 * bytes is reused while they stay the same, so no string is made per event.
 */
export class RepeatedString {
  private bytes = new Uint8Array(0);
  private text = '';

  read(r: WireReader): string {
    const start = r.lengthDelimited();
    const end = r.pos;
    const last = this.bytes;
    if (end - start === last.length) {
      let i = 0;
      while (i < last.length && r.buf[start + i] === last[i]) i++;
      if (i === last.length) return this.text;
    }
    this.text = utf8(r.buf, start, end);
    // A copy: a view would hold the whole chunk of input it came from.
    this.bytes = new Uint8Array(r.buf.subarray(start, end));
    return this.text;
  }
}

/** Builds one message's bytes; nested messages are written by a writer of their own. */
export class WireWriter {
  private parts: number[] = [];
  private chunks: Uint8Array[] = [];

  private flushParts(): void {
    if (this.parts.length > 0) {
      this.chunks.push(Uint8Array.from(this.parts));
      this.parts = [];
    }
  }

  private varint(value: bigint | number): void {
    let v = BigInt.asUintN(64, BigInt(value));
    while (v >= 0x80n) {
      this.parts.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.parts.push(Number(v));
  }

  tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  /** A varint field (int64, uint64, uint32, enum, bool). */
  varintField(field: number, value: bigint | number | boolean): void {
    this.tag(field, VARINT);
    this.varint(typeof value === 'boolean' ? (value ? 1 : 0) : value);
  }

  bytesField(field: number, bytes: Uint8Array): void {
    this.tag(field, LEN);
    this.varint(bytes.length);
    this.flushParts();
    this.chunks.push(bytes);
  }

  stringField(field: number, text: string): void {
    this.bytesField(field, Buffer.from(text, 'utf8'));
  }

  finish(): Buffer {
    this.flushParts();
    return Buffer.concat(this.chunks);
  }
}
