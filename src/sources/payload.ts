import { roundHalfAwayFromZero } from '../contract/decimal.js';
import { ACCOUNT_TYPE, ASSET_STATUS, ENTITY_SCOPE, EPOCH_ACTION } from './enums.js';
import { INT64_MAX, INT64_MIN, UINT64_MAX } from '../contract/int64.js';
import type { BlockMarker, ChainEvent, DiscountFactors, ReferralProgram, RewardFactors } from './events.js';
import { Fields, MAX_DIGITS, shown, type Fail } from './fields.js';

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
      return { kind, setId: f.id('setId'), referee: f.id('referee'), joinedAt: f.int('joinedAt'), atEpoch: f.epoch('atEpoch') };
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
        atEpoch: f.epoch('atEpoch'),
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
      return { kind, teamId: f.id('teamId'), referee: f.id('referee'), joinedAt: f.int('joinedAt'), atEpoch: f.epoch('atEpoch') };
    case 'refereeSwitchedTeam':
      return {
        kind,
        fromTeamId: f.optionalId('fromTeamId') ?? '',
        toTeamId: f.optionalId('toTeamId') ?? '',
        referee: f.id('referee'),
        switchedAt: f.int('switchedAt'),
        atEpoch: f.epoch('atEpoch'),
      };
    case 'teamsStatsUpdated':
      return {
        kind,
        atEpoch: f.epoch('atEpoch'),
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
      const amount = f.integer('amount');
      const quantumText = f.string('quantumAmount');
      checkDigits(quantumText, f, 'quantumAmount');
      const quantum = quantumText === '' ? 0n : roundHalfAwayFromZero(quantumText);
      if (quantum === undefined) fail('rewardPayout.quantumAmount', `not a decimal number: ${shown(quantumText)}`);
      return {
        kind,
        party: f.id('party'),
        epoch: f.epoch('epochSeq'),
        asset: f.id('asset'),
        amount,
        rewardType: f.enum('rewardType', ACCOUNT_TYPE, /^ACCOUNT_TYPE_[A-Z0-9_]+$/),
        quantumAmount: quantum,
        gameId: f.optionalId('gameId'),
      };
    }
    case 'epochEvent':
      return { kind, seq: f.epoch('seq'), action: f.enum('action', EPOCH_ACTION) };
    case 'asset': {
      // Absent details (proto3: all fields at their zero values) read as empty.
      const details = f.object('details') ?? new Fields({}, 'asset.details', fail);
      const decimals = details.integer('decimals');
      if (decimals < 0n || decimals > UINT64_MAX) fail('asset.details.decimals', `expected a uint64, got ${decimals}`);
      const quantum = details.string('quantum') || '0';
      checkDigits(quantum, details, 'quantum');
      if (!DECIMAL.test(quantum)) fail('asset.details.quantum', `not a decimal number: ${shown(quantum)}`);
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
    case 'referralProgramStarted':
    case 'referralProgramUpdated':
      return { kind, program: referralProgram(f.object('program') ?? new Fields({}, `${kind}.program`, fail)) };
    case 'referralProgramEnded':
      return { kind, version: f.uint('version'), endedAt: f.int('endedAt') };
    case 'referralSetStatsUpdated':
      return {
        kind,
        setId: f.id('setId'),
        atEpoch: f.epoch('atEpoch'),
        runningVolume: f.string('referralSetRunningNotionalTakerVolume'),
        rewardsMultiplier: f.string('rewardsMultiplier'),
        wasEligible: f.bool('wasEligible'),
        referrerTakerVolume: f.string('referrerTakerVolume'),
        rewardFactors: rewardFactors(f.object('rewardFactors')),
        rewardFactorsMultiplier: rewardFactors(f.object('rewardFactorsMultiplier')),
        referees: f.objects('refereesStats').map((r) => {
          const volume = r.string('epochNotionalTakerVolume');
          return {
            partyId: r.id('partyId'),
            volume,
            volumeValue: decimalValue(volume, r, 'epochNotionalTakerVolume'),
            discountFactors: discountFactors(r.object('discountFactors')),
          };
        }),
      };
    case 'feesStats':
      return {
        kind,
        epoch: f.epoch('epochSeq'),
        generated: f.objects('referrerRewardsGenerated').flatMap((g) =>
          g.objects('generatedReward').map((a) => ({
            party: a.id('party'),
            quantumAmount: decimalValue(a.string('quantumAmount'), a, 'quantumAmount'),
          })),
        ),
      };
    case 'beginBlock':
      return { kind, height: f.uint('height'), timestamp: f.int('timestamp'), hash: f.string('hash') };
    case 'endBlock':
      return { kind, height: f.uint('height') };
    default:
      return undefined;
  }
}

/** notionalVolume: an integer string; a negative or unparsable value counts as 0 (the team-stats fixture has both). */
function notionalVolume(m: Fields): bigint {
  let v: bigint;
  try {
    v = m.integer('notionalVolume');
  } catch {
    return 0n;
  }
  return v < 0n ? 0n : v;
}

/** A signed decimal number, as volumes and quantum amounts are written. */
const SIGNED_DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/** A decimal string's value for sums: '0' when absent (''), else it must be a decimal number. */
function decimalValue(text: string, f: Fields, key: string): string {
  if (text === '') return '0';
  checkDigits(text, f, key);
  if (!SIGNED_DECIMAL.test(text)) f.fail(key, `not a decimal number: ${shown(text)}`);
  return text;
}

/** A number's text has at most MAX_DIGITS digits: the store's numeric and its sums stay in bounds. */
function checkDigits(text: string, f: Fields, key: string): void {
  if (text.length > MAX_DIGITS && text.replace(/\D/g, '').length > MAX_DIGITS)
    f.fail(key, `expected a number of at most ${MAX_DIGITS} digits, got ${shown(text)}`);
}

function rewardFactors(f: Fields | null): RewardFactors | null {
  if (f === null) return null;
  return {
    infrastructureRewardFactor: f.string('infrastructureRewardFactor'),
    liquidityRewardFactor: f.string('liquidityRewardFactor'),
    makerRewardFactor: f.string('makerRewardFactor'),
  };
}

function discountFactors(f: Fields | null): DiscountFactors | null {
  if (f === null) return null;
  return {
    infrastructureDiscountFactor: f.string('infrastructureDiscountFactor'),
    liquidityDiscountFactor: f.string('liquidityDiscountFactor'),
    makerDiscountFactor: f.string('makerDiscountFactor'),
  };
}

/** vega.ReferralProgram: tiers numbered 1…n by position whatever the event said, the end time from seconds to ns. */
function referralProgram(f: Fields): ReferralProgram {
  const seconds = f.int('endOfProgramTimestamp');
  const endOfProgram = seconds * 1_000_000_000n;
  if (endOfProgram > INT64_MAX || endOfProgram < INT64_MIN) f.fail('endOfProgramTimestamp', `out of range: ${seconds} s`);
  return {
    version: f.uint('version'),
    id: f.id('id'),
    benefitTiers: f.objects('benefitTiers').map((t, i) => ({
      minimumRunningNotionalTakerVolume: t.string('minimumRunningNotionalTakerVolume'),
      minimumEpochs: t.string('minimumEpochs'),
      referralRewardFactor: t.string('referralRewardFactor'),
      referralDiscountFactor: t.string('referralDiscountFactor'),
      referralRewardFactors: rewardFactors(t.object('referralRewardFactors')),
      referralDiscountFactors: discountFactors(t.object('referralDiscountFactors')),
      tierNumber: String(i + 1),
    })),
    endOfProgram,
    windowLength: f.uint('windowLength'),
    stakingTiers: f.objects('stakingTiers').map((t) => ({
      minimumStakedTokens: t.string('minimumStakedTokens'),
      referralRewardMultiplier: t.string('referralRewardMultiplier'),
    })),
  };
}
