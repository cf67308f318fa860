import { roundHalfAwayFromZero } from '../contract/decimal.js';
import { ACCOUNT_TYPE, ASSET_STATUS, ENTITY_SCOPE, EPOCH_ACTION } from './enums.js';
import type { BlockMarker, ChainEvent } from './events.js';
import { Fields, type Fail } from './fields.js';

/**
 * The payloads this service reads, from their protobuf-JSON form: the NDJSON decoder reads them
 * from parsed lines, the binary decoder from the same shape decoded off the wire (see
 * binary/schema.ts), so both formats give the same events and the same errors.
 */

/** A non-negative decimal number (an asset's quantum), as the chain writes it. */
const DECIMAL = /^\d+(?:\.\d+)?$/;

export function decodePayload(kind: string, f: Fields, fail: Fail): ChainEvent | BlockMarker | undefined {
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
      // Only a recurring transfer scopes its game, as in the data-node v0.79. A governance one
      // (recurringGovernance) has a game id too, the hash of its dispatch strategy
      // (core/banking/gov_transfers.go, getGovGameID, line 429), but the data-node's team
      // statistics read the game's latest transfer of type 'Recurring' only
      // (datanode/sqlstore/migrations/0098_fix_team_stats.sql, lines 23-39), and store a
      // governance one as 'GovernanceRecurring' (datanode/entities/transfer.go, lines 267-268):
      // it neither scopes a game nor changes a recurring one's scope.
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

/** notionalVolume: an integer string; a negative or unparsable value counts as 0 (the team-stats fixture has both). */
function notionalVolume(m: Fields): bigint {
  let v: bigint;
  try {
    v = m.int('notionalVolume');
  } catch {
    return 0n;
  }
  return v < 0n ? 0n : v;
}
