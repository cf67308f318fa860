import { BUS_EVENT_TYPE } from '../enums.js';
import type { DecodedEvent } from '../events.js';
import { Fields, type Fail } from '../fields.js';
import { heightOf } from '../event-id.js';
import { InputError, type InputPosition } from '../input-error.js';
import { decodePayload } from '../payload.js';
import { decodeRewardPayout } from './reward-payout.js';
import { BUS_EVENT_VERSION, ENVELOPE, PAYLOAD_BY_FIELD, type MessageSpec, versionRefused } from './schema.js';
import { LEN, RepeatedString, VARINT, WireError, WireReader } from '../../lib/wire.js';

/** A decoded binary BusEvent, with the envelope fields a live source checks (chain, version). */
export interface BinaryEvent extends DecodedEvent {
  chainId: string;
  version: number;
}

/** The first oneof field number; every field from here on is a payload. */
const FIRST_PAYLOAD_FIELD = 101;

/** Names of the BusEventType numbers, looked up once. */
const TYPE_NAMES = new Map<number, string>(Object.entries(BUS_EVENT_TYPE).map(([name, n]) => [n, name]));

/** The name of a BusEventType number (the number itself, as text, for one this build does not know). */
export function typeName(type: number): string {
  return TYPE_NAMES.get(type) ?? String(type);
}

type SkippedBody = { kind: 'skipped'; type: string };

/** The body of a skipped event, one per type, shared by all its events: most events are skipped. */
const SKIPPED_BODIES = new Map<number, SkippedBody>();

function skippedBody(type: number): SkippedBody {
  let body = SKIPPED_BODIES.get(type);
  if (!body) {
    body = Object.freeze({ kind: 'skipped', type: typeName(type) });
    SKIPPED_BODIES.set(type, body);
  }
  return body;
}

/** Every event repeats its chain's id. */
const chainIds = new RepeatedString();

/** The envelope's reader, reused (decodeBusEvent runs to its end before it is called again). */
const envelope = new WireReader(new Uint8Array(0), 0, 0);

/**
 * Decodes one binary `vega.events.v1.BusEvent` (`buf[start, end)`) into the same event the
 * NDJSON path gives for its JSON form. The envelope is read field by field; the payload is
 * decoded only when its oneof field number is one this service reads, so the events of other
 * kinds (most of a real chain) cost a walk over a few tags. Unknown fields are skipped and absent
 * ones read as their proto3 defaults. Throws InputError naming the event and field.
 */
export function decodeBusEvent(buf: Uint8Array, start: number, end: number, at: InputPosition): BinaryEvent {
  let id: string | undefined;
  let type = 0;
  let version = 0;
  let chainId = '';
  let payloadField = 0;
  let payloadStart = 0;
  let payloadEnd = 0;
  const r = envelope.reset(buf, start, end);
  try {
    while (!r.done) {
      const tag = r.tag();
      const field = tag >>> 3;
      const wireType = tag & 7;
      if (field >= FIRST_PAYLOAD_FIELD) {
        if (wireType !== LEN) throw new WireError(`payload field ${field} has wire type ${wireType}`);
        if (payloadField !== 0) throw new InputError(at, id, `fields ${payloadField},${field}`, 'more than one payload');
        payloadField = field;
        payloadStart = r.lengthDelimited();
        payloadEnd = r.pos;
      } else if (field === ENVELOPE.id && wireType === LEN) id = r.string();
      else if (field === ENVELOPE.type && wireType === VARINT) type = r.uint32();
      else if (field === ENVELOPE.version && wireType === VARINT) version = r.uint32();
      else if (field === ENVELOPE.chainId && wireType === LEN) chainId = chainIds.read(r);
      else r.skip(wireType);
    }
  } catch (err) {
    if (err instanceof WireError) throw new InputError(at, id, undefined, `not a protobuf BusEvent (${err.message})`);
    throw err;
  }

  if (id === undefined) throw new InputError(at, id, 'id', 'missing');
  const height = heightOf(id, at);
  if (version !== BUS_EVENT_VERSION) throw new InputError(at, id, 'version', versionRefused(version));
  const payload = PAYLOAD_BY_FIELD.get(payloadField);
  if (payload === undefined) {
    return { id, height, at, chainId, version, body: skippedBody(type) };
  }
  const fail: Fail = (field, reason) => {
    throw new InputError(at, id, field, reason);
  };
  if (type !== 0 && type !== payload.type) fail('type', `${typeName(type)} does not match payload ${payload.key}`);
  if (payload.key === 'rewardPayout') {
    const body = decodeRewardPayout(buf, payloadStart, payloadEnd);
    if (body) return { id, height, at, chainId, version, body };
  }
  let values: Record<string, unknown>;
  try {
    values = decodeMessage(new WireReader(buf, payloadStart, payloadEnd), payload.spec);
  } catch (err) {
    if (err instanceof WireError) fail(payload.key, `not a protobuf ${payload.key} (${err.message})`);
    throw err;
  }
  const fields = new Fields(values, payload.key, fail);
  if (payload.key === 'timeUpdate') {
    return { id, height, at, chainId, version, body: skippedBody(payload.type), timeUpdate: fields.int('timestamp') };
  }
  return { id, height, at, chainId, version, body: decodePayload(payload.key, fields, fail)! };
}

/** What scanEnvelope found in an envelope. */
export interface ScannedEnvelope {
  idStart: number;
  idEnd: number;
  dash: number;
  type: number;
  version: number;
  chainId: string;
  payloadField: number;
}

export const scannedEnvelope = (): ScannedEnvelope => ({
  idStart: 0,
  idEnd: 0,
  dash: 0,
  type: 0,
  version: 0,
  chainId: '',
  payloadField: 0,
});

/**
 * What scanEnvelope found in the last envelope the decoders read (read it before the next scan).
 * Another reader that scans envelopes while a decoder is paused (the broker socket's) has its own.
 */
export const scanned = scannedEnvelope();

/**
 * Reads a BusEvent's envelope (`buf[start, end)`) into `into` without decoding anything or
 * making any object: where its id and the id's dash are, its type, version, chain and payload
 * field. False when something is off (no id or one not `<digits>-<digits>`, two payloads, bytes
 * that are not protobuf): decodeBusEvent then throws the error that says what. The path of the
 * events of kinds we skip, most of a real chain's.
 */
export function scanEnvelope(buf: Uint8Array, start: number, end: number, into: ScannedEnvelope = scanned): boolean {
  let idStart = -1;
  let idEnd = -1;
  let type = 0;
  let version = 0;
  let chainId = '';
  let payloadField = 0;
  const r = envelope.reset(buf, start, end);
  try {
    while (!r.done) {
      const tag = r.tag();
      const field = tag >>> 3;
      const wireType = tag & 7;
      if (field >= FIRST_PAYLOAD_FIELD) {
        if (wireType !== LEN || payloadField !== 0) return false;
        payloadField = field;
        r.lengthDelimited();
      } else if (field === ENVELOPE.id && wireType === LEN) {
        idStart = r.lengthDelimited();
        idEnd = r.pos;
      } else if (field === ENVELOPE.type && wireType === VARINT) type = r.uint32();
      else if (field === ENVELOPE.version && wireType === VARINT) version = r.uint32();
      else if (field === ENVELOPE.chainId && wireType === LEN) chainId = chainIds.read(r);
      else r.skip(wireType);
    }
  } catch (err) {
    if (err instanceof WireError) return false;
    throw err;
  }
  let dash = idStart;
  while (dash < idEnd && buf[dash] !== 45) dash++;
  if (idStart < 0 || dash === idStart || dash === idEnd || !digits(buf, idStart, dash) || !digits(buf, dash + 1, idEnd)) return false;
  into.idStart = idStart;
  into.idEnd = idEnd;
  into.dash = dash;
  into.type = type;
  into.version = version;
  into.chainId = chainId;
  into.payloadField = payloadField;
  return true;
}

/** Whether a payload's oneof field number is one this service reads (decodeBusEvent decodes it). */
export function isOurPayload(field: number): boolean {
  return PAYLOAD_BY_FIELD.has(field);
}

function digits(buf: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * One message of our schema into its protobuf-JSON shape (JSON keys; 64-bit integers as bigint,
 * enums as numbers). Absent fields stay absent, which Fields reads as proto3 defaults.
 */
function decodeMessage(r: WireReader, spec: MessageSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  while (!r.done) {
    const tag = r.tag();
    const f = spec[tag >>> 3];
    const wireType = tag & 7;
    if (f === undefined) {
      r.skip(wireType);
      continue;
    }
    const expected = f.type === 'string' || f.type === 'message' ? LEN : VARINT;
    if (wireType !== expected) throw new WireError(`field ${f.key} has wire type ${wireType}, expected ${expected}`);
    let value: unknown;
    switch (f.type) {
      case 'string':
        value = r.string();
        break;
      case 'int64':
        value = r.int64();
        break;
      case 'uint64':
        value = r.uint64();
        break;
      case 'bool':
        value = r.uint32() !== 0;
        break;
      case 'enum':
        value = r.uint32() | 0;
        break;
      case 'message': {
        const [start, end] = r.bytes();
        value = decodeMessage(new WireReader(r.buf, start, end), f.message!);
        break;
      }
    }
    if (!f.repeated) out[f.key] = value;
    else if (out[f.key] === undefined) out[f.key] = [value];
    else (out[f.key] as unknown[]).push(value);
  }
  return out;
}
