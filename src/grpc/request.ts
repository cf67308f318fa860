import type { FieldKind, FieldSpec } from '../contract/query.js';
import { LEN, VARINT, WireReader } from '../lib/wire.js';
import type { RequestField, RequestMessage } from './methods.js';

/**
 * A request message's bytes to the operation's fields, as Go's proto.Unmarshal reads them in the
 * data-node (protobufjs was lenient where Go is not, and strict where Go is not):
 *
 * - a field of a number the message does not have, or of a known number but another wire type,
 *   is unknown: skipped (groups too, to their own end);
 * - int32 and uint32 take a varint's low 32 bits, bool is any non-zero varint, uint64 all 64 bits;
 * - a singular field given twice keeps the last value, a repeated one adds up, and a message
 *   given twice is merged (its fields read into the same request);
 * - malformed bytes (field number 0, a varint past 64 bits, a group closed by another field's
 *   end, a length past the end, a string that is not UTF-8) throw a WireError.
 *
 * Absent fields are absent from the result; the caller gives them their defaults.
 */

/** A field number's meaning in one message: an operation field, or a nested message. */
type Slot = { field: string; kind: FieldKind; repeated: boolean } | { message: Plan };

/** A message's fields by number, made once per method. */
export type Plan = Map<number, Slot>;

export function planOf(message: RequestMessage, specs: Readonly<Record<string, FieldSpec>>): Plan {
  const plan: Plan = new Map();
  for (const f of message.fields as readonly RequestField[]) {
    if ('message' in f) plan.set(f.number, { message: planOf(f.message, specs) });
    else {
      const spec = specs[f.field]!;
      plan.set(f.number, { field: f.field, kind: spec.kind, repeated: spec.repeated === true });
    }
  }
  return plan;
}

/** The wire type a value of `kind` is sent with. */
const wireTypeOf = (kind: FieldKind) => (kind === 'string' ? LEN : VARINT);

function value(r: WireReader, kind: FieldKind): unknown {
  switch (kind) {
    case 'string':
      return r.string();
    case 'int32':
      return r.uint32() | 0;
    case 'uint32':
      return r.uint32();
    case 'uint64':
      return r.uint64();
    case 'bool':
      return r.uint64() !== 0n;
  }
}

/** Reads the message at the reader's bytes into `out` (fields by the operation's names). */
export function readRequest(r: WireReader, plan: Plan, out: Record<string, unknown>): void {
  while (!r.done) {
    const tag = r.tag();
    const slot = plan.get(tag >>> 3);
    const wireType = tag & 7;
    if (slot === undefined) r.skipField(tag);
    else if ('message' in slot) {
      if (wireType !== LEN) r.skipField(tag);
      else {
        const start = r.lengthDelimited();
        readRequest(new WireReader(r.buf, start, r.pos), slot.message, out);
      }
    } else if (wireType !== wireTypeOf(slot.kind)) r.skipField(tag);
    else if (!slot.repeated) out[slot.field] = value(r, slot.kind);
    else {
      const list = (out[slot.field] as unknown[] | undefined) ?? [];
      list.push(value(r, slot.kind));
      out[slot.field] = list;
    }
  }
}
