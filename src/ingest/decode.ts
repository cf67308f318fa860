import { roundHalfAwayFromZero, parseInteger } from '../contract/decimal.js';
import { parseId } from '../contract/ids.js';
import { ACCOUNT_TYPE, BUS_EVENT_TYPE, ENTITY_SCOPE, EPOCH_ACTION, enumName } from './enums.js';
import { PAYLOAD_TYPES, type BlockMarker, type ChainEvent, type DecodedEvent } from './events.js';
import { parseJsonLine } from './json-line.js';

/**
 * No event line is anywhere near this long. Input without newlines (a binary file, one huge
 * JSON array) stops here with a clear error instead of filling memory.
 */
export const MAX_LINE_BYTES = 128 * 2 ** 20;

/** The error for a line over MAX_LINE_BYTES, numbered as the Ingester numbers lines. */
export function lineTooLong(line: number): IngestInputError {
  return new IngestInputError(line, undefined, undefined, `no newline within ${MAX_LINE_BYTES / 2 ** 20} MiB: not an event line`);
}

/** Bad input: says which line, which event and which field, and why. */
export class IngestInputError extends Error {
  override name = 'IngestInputError';
  constructor(
    readonly line: number,
    readonly eventId: string | undefined,
    readonly field: string | undefined,
    readonly reason: string,
  ) {
    super(
      `line ${line}` + (eventId !== undefined ? `, event ${eventId}` : '') + (field !== undefined ? `, field ${field}` : '') + `: ${reason}`,
    );
  }
}

const ENVELOPE_KEYS = new Set(['id', 'block', 'type', 'version', 'chainId', 'txHash']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Reads the fields of one JSON object with proto3 JSON rules: an absent field has its zero
 * value, a present one must have the right type. Failures name the field by its path.
 */
class Fields {
  constructor(
    private readonly obj: Record<string, unknown>,
    private readonly path: string,
    private readonly fail: (field: string, reason: string) => never,
  ) {}

  private name(key: string): string {
    return `${this.path}.${key}`;
  }

  /** An id that must be present. */
  id(key: string): string {
    const v = this.obj[key];
    if (v === undefined || v === null) this.fail(this.name(key), 'missing');
    return this.idValue(key, v);
  }

  /** An id that may be absent or empty; null then. */
  optionalId(key: string): string | null {
    const v = this.obj[key];
    if (v === undefined || v === null || v === '') return null;
    return this.idValue(key, v);
  }

  private idValue(key: string, v: unknown): string {
    if (typeof v !== 'string') this.fail(this.name(key), `expected a hex id string, got ${JSON.stringify(v)}`);
    const id = parseId(v);
    if (id === undefined) this.fail(this.name(key), `not a hex id: ${JSON.stringify(v)}`);
    return id;
  }

  /** A list of ids; empty when absent. */
  idList(key: string): string[] {
    return this.array(key, (v, path) => {
      const id = typeof v === 'string' ? parseId(v) : undefined;
      return id ?? this.fail(path, `not a hex id: ${JSON.stringify(v)}`);
    });
  }

  /** A 64-bit integer as a decimal string or a JSON number; 0 when absent. */
  int(key: string): bigint {
    const v = this.obj[key];
    if (v === undefined || v === null) return 0n;
    const n = parseInteger(v);
    if (n === undefined) this.fail(this.name(key), `expected an integer, got ${JSON.stringify(v)}`);
    return n;
  }

  string(key: string): string {
    const v = this.obj[key];
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') this.fail(this.name(key), `expected a string, got ${JSON.stringify(v)}`);
    return v;
  }

  optionalString(key: string): string | null {
    const v = this.obj[key];
    return v === undefined || v === null ? null : this.string(key);
  }

  bool(key: string): boolean {
    const v = this.obj[key];
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') this.fail(this.name(key), `expected true or false, got ${JSON.stringify(v)}`);
    return v;
  }

  /** An enum by name or number; `newNames` also lets through names a newer chain may add. */
  enum(key: string, table: Readonly<Record<string, number>>, newNames?: RegExp): string {
    const v = this.obj[key] ?? 0;
    const name = enumName(table, v) ?? (typeof v === 'string' && newNames?.test(v) ? v : undefined);
    if (name === undefined) this.fail(this.name(key), `unknown enum value ${JSON.stringify(v)}`);
    return name;
  }

  object(key: string): Fields | null {
    const v = this.obj[key];
    if (v === undefined || v === null) return null;
    if (!isObject(v)) this.fail(this.name(key), `expected an object, got ${JSON.stringify(v)}`);
    return new Fields(v, this.name(key), this.fail);
  }

  array<T>(key: string, each: (item: unknown, path: string) => T): T[] {
    const v = this.obj[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(this.name(key), `expected an array, got ${JSON.stringify(v)}`);
    return v.map((item, i) => each(item, `${this.name(key)}[${i}]`));
  }

  objects(key: string): Fields[] {
    return this.array(key, (item, path) => {
      if (!isObject(item)) this.fail(path, `expected an object, got ${JSON.stringify(item)}`);
      return new Fields(item, path, this.fail);
    });
  }
}

type Fail = (field: string, reason: string) => never;

function decodePayload(kind: string, f: Fields, fail: Fail): ChainEvent | BlockMarker | undefined {
  switch (kind) {
    case 'referralSetCreated':
      return { kind, setId: f.id('setId'), referrer: f.id('referrer'), createdAt: f.int('createdAt'), updatedAt: f.int('updatedAt') };
    case 'refereeJoinedReferralSet':
      return { kind, setId: f.id('setId'), referee: f.id('referee'), joinedAt: f.int('joinedAt'), atEpoch: f.int('atEpoch') };
    case 'teamCreated':
      return {
        kind,
        teamId: f.id('teamId'),
        referrer: f.id('referrer'),
        name: f.string('name'),
        teamUrl: f.optionalString('teamUrl'),
        avatarUrl: f.optionalString('avatarUrl'),
        createdAt: f.int('createdAt'),
        closed: f.bool('closed'),
        atEpoch: f.int('atEpoch'),
        allowList: f.idList('allowList'),
      };
    case 'teamUpdated':
      return {
        kind,
        teamId: f.id('teamId'),
        name: f.string('name'),
        teamUrl: f.optionalString('teamUrl'),
        avatarUrl: f.optionalString('avatarUrl'),
        closed: f.bool('closed'),
        allowList: f.idList('allowList'),
      };
    case 'refereeJoinedTeam':
      return { kind, teamId: f.id('teamId'), referee: f.id('referee'), joinedAt: f.int('joinedAt'), atEpoch: f.int('atEpoch') };
    case 'refereeSwitchedTeam':
      return {
        kind,
        fromTeamId: f.optionalId('fromTeamId') ?? '',
        toTeamId: f.optionalId('toTeamId') ?? '',
        referee: f.id('referee'),
        switchedAt: f.int('switchedAt'),
        atEpoch: f.int('atEpoch'),
      };
    case 'teamsStatsUpdated':
      return {
        kind,
        atEpoch: f.int('atEpoch'),
        stats: f.objects('stats').map((team) => ({
          teamId: team.id('teamId'),
          members: team.objects('membersStats').map((m) => ({ partyId: m.id('partyId'), volume: notionalVolume(m) })),
        })),
      };
    case 'transfer': {
      const recurring = f.object('recurring');
      const strategy = recurring?.object('dispatchStrategy') ?? null;
      return {
        kind,
        gameId: f.optionalId('gameId'),
        recurringTeamScoped: recurring === null ? null : (strategy?.enum('entityScope', ENTITY_SCOPE) ?? '') === 'ENTITY_SCOPE_TEAMS',
      };
    }
    case 'rewardPayout': {
      const amount = f.int('amount');
      const quantumText = f.string('quantumAmount');
      const quantum = quantumText === '' ? 0n : roundHalfAwayFromZero(quantumText);
      if (quantum === undefined) fail('rewardPayout.quantumAmount', `not a decimal number: ${JSON.stringify(quantumText)}`);
      return {
        kind,
        party: f.id('party'),
        epoch: f.int('epochSeq'),
        asset: f.id('asset'),
        amount,
        rewardType: f.enum('rewardType', ACCOUNT_TYPE, /^ACCOUNT_TYPE_[A-Z0-9_]+$/),
        quantumAmount: quantum,
        gameId: f.optionalId('gameId'),
      };
    }
    case 'epochEvent':
      return { kind, seq: f.int('seq'), action: f.enum('action', EPOCH_ACTION) };
    case 'beginBlock':
      return { kind, height: f.int('height'), timestamp: f.int('timestamp'), hash: f.string('hash') };
    case 'endBlock':
      return { kind, height: f.int('height') };
    default:
      return undefined;
  }
}

/** notionalVolume: an integer string; a negative or unparsable value counts as 0 (events.md). */
function notionalVolume(m: Fields): bigint {
  let v: bigint;
  try {
    v = m.int('notionalVolume');
  } catch {
    return 0n;
  }
  return v < 0n ? 0n : v;
}

/**
 * Decodes one input line into its BusEvents. Accepts a single BusEvent, `{"events":[...]}` and
 * `{"result":{"events":[...]}}`. Throws IngestInputError on anything it cannot trust.
 */
export function decodeLine(text: string, line: number): DecodedEvent[] {
  let parsed: unknown;
  try {
    parsed = parseJsonLine(text);
  } catch (err) {
    throw new IngestInputError(line, undefined, undefined, `not JSON (${(err as Error).message})`);
  }
  if (!isObject(parsed)) throw new IngestInputError(line, undefined, undefined, 'expected a JSON object');
  const batch = isObject(parsed.result) ? parsed.result.events : parsed.events;
  const isBatch = batch !== undefined && parsed.id === undefined;
  if (!isBatch) return [decodeEvent(parsed, line)];
  if (!Array.isArray(batch)) throw new IngestInputError(line, undefined, 'events', 'expected an array of events');
  return batch.map((e, i) => {
    if (!isObject(e)) throw new IngestInputError(line, undefined, `events[${i}]`, 'expected an event object');
    return decodeEvent(e, line);
  });
}

const EVENT_ID = /^(\d+)-(\d+)$/;

function decodeEvent(raw: Record<string, unknown>, line: number): DecodedEvent {
  const id = typeof raw.id === 'string' ? raw.id : undefined;
  const fail: Fail = (field, reason) => {
    throw new IngestInputError(line, id, field, reason);
  };
  if (id === undefined) fail('id', `expected "<block height>-<sequence>", got ${JSON.stringify(raw.id)}`);
  const m = EVENT_ID.exec(id);
  if (!m) fail('id', `expected "<block height>-<sequence>", got ${JSON.stringify(id)}`);
  const height = BigInt(m[1]!);

  const payloadKeys = Object.keys(raw).filter((k) => !ENVELOPE_KEYS.has(k));
  if (payloadKeys.length > 1) fail(payloadKeys.join(','), 'more than one payload');
  const key = payloadKeys[0];
  // A type this build does not know (a newer chain) is not an error: the event is skipped.
  const knownType = raw.type === undefined ? undefined : enumName(BUS_EVENT_TYPE, raw.type);
  const typeName = knownType ?? (raw.type === undefined ? undefined : String(raw.type));
  if (key === undefined) return { id, height, line, body: { kind: 'skipped', type: typeName ?? 'BUS_EVENT_TYPE_UNSPECIFIED' } };

  const expected = (PAYLOAD_TYPES as Record<string, string | undefined>)[key];
  if (expected !== undefined && knownType !== undefined && knownType !== expected) {
    fail('type', `${typeName} does not match payload ${key}`);
  }
  const payload = raw[key];
  if (!isObject(payload)) fail(key, `expected an object, got ${JSON.stringify(payload)}`);
  const fields = new Fields(payload, key, fail);
  if (key === 'timeUpdate') {
    return { id, height, line, body: { kind: 'skipped', type: expected! }, timeUpdate: fields.int('timestamp') };
  }
  const body = decodePayload(key, fields, fail);
  return { id, height, line, body: body ?? { kind: 'skipped', type: typeName ?? key } };
}
