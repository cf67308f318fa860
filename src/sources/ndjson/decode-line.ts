import { BUS_EVENT_TYPE, enumName } from '../enums.js';
import { PAYLOAD_TYPES, type DecodedEvent } from '../events.js';
import { heightOf } from '../event-id.js';
import { Fields, isObject, type Fail } from '../fields.js';
import { InputError, type InputPosition } from '../input-error.js';
import { decodePayload } from '../payload.js';
import { BUS_EVENT_VERSION, versionRefused } from '../binary/schema.js';
import { parseJsonLine } from './json-line.js';

const ENVELOPE_KEYS = new Set(['id', 'block', 'type', 'version', 'chainId', 'txHash']);

/**
 * Decodes line number `line` of an NDJSON input into its BusEvents. Accepts a single BusEvent,
 * `{"events":[...]}` and `{"result":{"events":[...]}}`. Throws InputError on anything it cannot
 * trust.
 */
export function decodeLine(text: string, line: number, file?: string): DecodedEvent[] {
  const at: InputPosition = file === undefined ? { line } : { line, file };
  let parsed: unknown;
  try {
    parsed = parseJsonLine(text);
  } catch (err) {
    throw new InputError(at, undefined, undefined, `not JSON (${(err as Error).message})`);
  }
  if (!isObject(parsed)) throw new InputError(at, undefined, undefined, 'expected a JSON object');
  const batch = isObject(parsed.result) ? parsed.result.events : parsed.events;
  const isBatch = batch !== undefined && parsed.id === undefined;
  if (!isBatch) return [decodeEvent(parsed, at)];
  if (!Array.isArray(batch)) throw new InputError(at, undefined, 'events', 'expected an array of events');
  return batch.map((e, i) => {
    if (!isObject(e)) throw new InputError(at, undefined, `events[${i}]`, 'expected an event object');
    return decodeEvent(e, at);
  });
}

function decodeEvent(raw: Record<string, unknown>, at: InputPosition): DecodedEvent {
  const id = typeof raw.id === 'string' ? raw.id : undefined;
  const fail: Fail = (field, reason) => {
    throw new InputError(at, id, field, reason);
  };
  if (id === undefined) fail('id', `expected "<block height>-<sequence>", got ${JSON.stringify(raw.id)}`);
  const height = heightOf(id, at);
  const chainId = raw.chainId ?? '';
  if (typeof chainId !== 'string') fail('chainId', `expected a string, got ${typeof chainId}`);
  // Absent is taken as 1: JSON written by hand or by tools may leave the envelope's version out.
  if (raw.version !== undefined && raw.version !== BUS_EVENT_VERSION && raw.version !== String(BUS_EVENT_VERSION)) {
    fail('version', versionRefused(JSON.stringify(raw.version)));
  }

  const payloadKeys = Object.keys(raw).filter((k) => !ENVELOPE_KEYS.has(k));
  if (payloadKeys.length > 1) fail(payloadKeys.join(','), 'more than one payload');
  const key = payloadKeys[0];
  // A type this build does not know (a newer chain) is not an error: the event is skipped.
  const knownType = raw.type === undefined ? undefined : enumName(BUS_EVENT_TYPE, raw.type);
  const typeName = knownType ?? (raw.type === undefined ? undefined : String(raw.type));
  if (key === undefined) return { id, height, at, chainId, body: { kind: 'skipped', type: typeName ?? 'BUS_EVENT_TYPE_UNSPECIFIED' } };

  const expected = (PAYLOAD_TYPES as Record<string, string | undefined>)[key];
  if (expected !== undefined && knownType !== undefined && knownType !== expected) {
    fail('type', `${typeName} does not match payload ${key}`);
  }
  const payload = raw[key];
  if (!isObject(payload)) fail(key, `expected an object, got ${JSON.stringify(payload)}`);
  const fields = new Fields(payload, key, fail);
  if (key === 'timeUpdate') {
    return { id, height, at, chainId, body: { kind: 'skipped', type: expected! }, timeUpdate: fields.int('timestamp') };
  }
  const body = decodePayload(key, fields, fail);
  return { id, height, at, chainId, body: body ?? { kind: 'skipped', type: typeName ?? key } };
}
