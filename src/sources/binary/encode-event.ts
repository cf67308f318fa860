import { BUS_EVENT_TYPE } from '../enums.js';
import type { PayloadKey } from '../events.js';
import { ENVELOPE, PAYLOADS, type FieldSpec, type MessageSpec } from './schema.js';
import { WireWriter } from '../../lib/wire.js';

/** How to write the payload of a kind outside our schema (the demo's other kinds). */
export interface OtherPayload {
  /** Its oneof field number. */
  field: number;
}

const ENVELOPE_KEYS = new Set(['id', 'block', 'type', 'version', 'chainId', 'txHash']);

/**
 * Encodes a BusEvent given in its protobuf-JSON form (an NDJSON line, parsed) with our schema:
 * the demo's event files and the tests' generated chains. Payloads of our kinds keep exactly the
 * fields epochview reads (others are left out), proto3 defaults absent as a core writes them.
 * A payload of another kind is written at the field number `others` gives, its fields numbered
 * 1, 2, ... in key order (strings, integers, nested objects, lists): filler of a realistic size
 * that a reader skips without looking inside.
 */
export function encodeBusEvent(event: Record<string, unknown>, others: ReadonlyMap<string, OtherPayload> = new Map()): Buffer {
  const w = new WireWriter();
  if (event.id !== undefined) w.stringField(ENVELOPE.id, String(event.id));
  if (event.block) w.stringField(ENVELOPE.block, String(event.block));
  const type = typeof event.type === 'number' ? event.type : BUS_EVENT_TYPE[String(event.type)];
  if (type === undefined) throw new Error(`unknown type ${String(event.type)}`);
  if (type !== 0) w.varintField(ENVELOPE.type, type);
  if (event.version !== undefined) w.varintField(ENVELOPE.version, Number(event.version));
  if (event.chainId) w.stringField(ENVELOPE.chainId, String(event.chainId));
  if (event.txHash) w.stringField(ENVELOPE.txHash, String(event.txHash));
  for (const key of Object.keys(event)) {
    if (ENVELOPE_KEYS.has(key)) continue;
    const value = event[key] as Record<string, unknown>;
    const ours = (PAYLOADS as Partial<Record<string, (typeof PAYLOADS)[PayloadKey]>>)[key];
    if (ours) w.bytesField(ours.field, encodeMessage(value, ours.spec));
    else {
      const other = others.get(key);
      if (!other) throw new Error(`no field number for payload ${key}`);
      w.bytesField(other.field, encodeAny(value));
    }
  }
  return w.finish();
}

function encodeMessage(value: Record<string, unknown>, spec: MessageSpec): Buffer {
  const w = new WireWriter();
  for (const [number, f] of Object.entries(spec) as [string, FieldSpec][]) {
    const v = value[f.key];
    if (v === undefined || v === null) continue;
    for (const item of f.repeated ? (v as unknown[]) : [v]) writeField(w, Number(number), f, item);
  }
  return w.finish();
}

function writeField(w: WireWriter, field: number, f: FieldSpec, v: unknown): void {
  switch (f.type) {
    case 'string':
      if (v !== '' || f.optional || f.repeated) w.stringField(field, String(v));
      return;
    case 'int64':
    case 'uint64': {
      const n = BigInt(v as string | number);
      if (n !== 0n) w.varintField(field, n);
      return;
    }
    case 'bool':
      if (v === true) w.varintField(field, true);
      return;
    case 'enum': {
      const n = typeof v === 'number' ? v : f.values![String(v)];
      if (n === undefined) throw new Error(`unknown ${f.key} ${String(v)}`);
      if (n !== 0) w.varintField(field, n);
      return;
    }
    case 'message':
      w.bytesField(field, encodeMessage(v as Record<string, unknown>, f.message!));
      return;
  }
}

/** Any JSON object as a message whose fields are numbered in key order. */
function encodeAny(value: Record<string, unknown>): Buffer {
  const w = new WireWriter();
  let field = 0;
  for (const v of Object.values(value)) {
    field++;
    for (const item of Array.isArray(v) ? v : [v]) {
      if (typeof item === 'object' && item !== null) w.bytesField(field, encodeAny(item as Record<string, unknown>));
      else if (typeof item === 'string') w.stringField(field, item);
      else if (typeof item === 'boolean') w.varintField(field, item);
      else if (Number.isSafeInteger(item)) w.varintField(field, item as number);
      else throw new Error(`cannot encode ${JSON.stringify(item)}: not a string, an integer, a boolean or an object`);
    }
  }
  return w.finish();
}

/** One event-file record: `[uint32 BE size][uint64 BE sequence][BusEvent]`. */
export function eventRecord(sequence: bigint, event: Uint8Array): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt32BE(8 + event.length, 0);
  header.writeBigUInt64BE(sequence, 4);
  return Buffer.concat([header, event]);
}
