import { roundHalfAwayFromZero } from '../../contract/decimal.js';
import { ACCOUNT_TYPE, ASSET_STATUS, BUS_EVENT_TYPE, ENTITY_SCOPE, EPOCH_ACTION, enumName } from '../enums.js';
import { PAYLOAD_TYPES, type BlockMarker, type ChainEvent, type DecodedEvent } from '../events.js';
import { InputError, type InputPosition } from '../input-error.js';
import { Fields, isObject, type Fail } from './fields.js';
import { parseJsonLine } from './json-line.js';

const ENVELOPE_KEYS = new Set(['id', 'block', 'type', 'version', 'chainId', 'txHash']);

/** A non-negative decimal number (an asset's quantum), as the chain writes it. */
const DECIMAL = /^\d+(?:\.\d+)?$/;

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
    case 'asset': {
      // Absent details (proto3: all fields at their zero values) read as empty.
      const details = f.object('details') ?? new Fields({}, 'asset.details', fail);
      const decimals = details.int('decimals');
      if (decimals < 0n) fail('asset.details.decimals', `expected a uint64, got ${decimals}`);
      const quantum = details.string('quantum') || '0';
      if (!DECIMAL.test(quantum)) fail('asset.details.quantum', `not a decimal number: ${JSON.stringify(quantum)}`);
      return {
        kind,
        id: f.id('id'),
        name: details.string('name'),
        symbol: details.string('symbol'),
        decimals,
        quantum,
        status: f.enum('status', ASSET_STATUS, /^STATUS_[A-Z0-9_]+$/),
      };
    }
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
 * Decodes line number `line` of an NDJSON input into its BusEvents. Accepts a single BusEvent,
 * `{"events":[...]}` and `{"result":{"events":[...]}}`. Throws InputError on anything it cannot
 * trust.
 */
export function decodeLine(text: string, line: number): DecodedEvent[] {
  const at = { line };
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

const EVENT_ID = /^(\d+)-(\d+)$/;

function decodeEvent(raw: Record<string, unknown>, at: InputPosition): DecodedEvent {
  const id = typeof raw.id === 'string' ? raw.id : undefined;
  const fail: Fail = (field, reason) => {
    throw new InputError(at, id, field, reason);
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
  if (key === undefined) return { id, height, at, body: { kind: 'skipped', type: typeName ?? 'BUS_EVENT_TYPE_UNSPECIFIED' } };

  const expected = (PAYLOAD_TYPES as Record<string, string | undefined>)[key];
  if (expected !== undefined && knownType !== undefined && knownType !== expected) {
    fail('type', `${typeName} does not match payload ${key}`);
  }
  const payload = raw[key];
  if (!isObject(payload)) fail(key, `expected an object, got ${JSON.stringify(payload)}`);
  const fields = new Fields(payload, key, fail);
  if (key === 'timeUpdate') {
    return { id, height, at, body: { kind: 'skipped', type: expected! }, timeUpdate: fields.int('timestamp') };
  }
  const body = decodePayload(key, fields, fail);
  return { id, height, at, body: body ?? { kind: 'skipped', type: typeName ?? key } };
}
