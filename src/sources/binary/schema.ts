/**
 * Our own minimal schema of `vega.events.v1.BusEvent`: the names and field numbers of Vega's
 * events.proto (vegaprotocol/vega v0.79.0; written from those facts, not copied, as the .proto is
 * AGPL), for the payloads this service reads and nothing else. Each field carries its
 * protobuf-JSON key, so that a decoded payload has the shape the NDJSON path parses, and one
 * payload decoder (payload.ts) serves both formats.
 */
import { ASSET_STATUS, ENTITY_SCOPE, EPOCH_ACTION } from '../enums.js';
import type { PayloadKey } from '../events.js';

export type FieldType = 'string' | 'int64' | 'uint64' | 'bool' | 'enum' | 'message';

export interface FieldSpec {
  /** The protobuf-JSON (lowerCamelCase) name. */
  key: string;
  type: FieldType;
  repeated?: true;
  /** A proto3 `optional` field: written even at its default, since its presence means something. */
  optional?: true;
  /** The fields of a nested message. */
  message?: MessageSpec;
  /** Enum names → numbers, for encoding the JSON form (decoding keeps the number). */
  values?: Readonly<Record<string, number>>;
}

/** Field number → field. */
export type MessageSpec = Readonly<Record<number, FieldSpec>>;

const string = (key: string): FieldSpec => ({ key, type: 'string' });
const optionalString = (key: string): FieldSpec => ({ key, type: 'string', optional: true });
const strings = (key: string): FieldSpec => ({ key, type: 'string', repeated: true });
const int64 = (key: string): FieldSpec => ({ key, type: 'int64' });
const uint64 = (key: string): FieldSpec => ({ key, type: 'uint64' });
const bool = (key: string): FieldSpec => ({ key, type: 'bool' });
const enumOf = (key: string, values: Readonly<Record<string, number>>): FieldSpec => ({ key, type: 'enum', values });
const message = (key: string, spec: MessageSpec): FieldSpec => ({ key, type: 'message', message: spec });
const messages = (key: string, spec: MessageSpec): FieldSpec => ({ key, type: 'message', repeated: true, message: spec });

/** vega.events.v1.Transfer.Status */
export const TRANSFER_STATUS: Readonly<Record<string, number>> = Object.freeze({
  STATUS_UNSPECIFIED: 0,
  STATUS_PENDING: 1,
  STATUS_DONE: 2,
  STATUS_REJECTED: 3,
  STATUS_STOPPED: 4,
  STATUS_CANCELLED: 5,
});

const DISPATCH_STRATEGY: MessageSpec = { 4: enumOf('entityScope', ENTITY_SCOPE) };

const DISCOUNT_FACTORS: MessageSpec = {
  1: string('infrastructureDiscountFactor'),
  2: string('liquidityDiscountFactor'),
  3: string('makerDiscountFactor'),
};
const REWARD_FACTORS: MessageSpec = {
  1: string('infrastructureRewardFactor'),
  2: string('liquidityRewardFactor'),
  3: string('makerRewardFactor'),
};

/** vega.ReferralProgram (end_of_program_timestamp in Unix seconds). */
const REFERRAL_PROGRAM: MessageSpec = {
  1: uint64('version'),
  2: string('id'),
  3: messages('benefitTiers', {
    1: string('minimumRunningNotionalTakerVolume'),
    2: string('minimumEpochs'),
    3: string('referralRewardFactor'),
    4: string('referralDiscountFactor'),
    5: message('referralRewardFactors', REWARD_FACTORS),
    6: message('referralDiscountFactors', DISCOUNT_FACTORS),
    7: { key: 'tierNumber', type: 'uint64', optional: true },
  }),
  4: int64('endOfProgramTimestamp'),
  5: uint64('windowLength'),
  6: messages('stakingTiers', { 1: string('minimumStakedTokens'), 2: string('referralRewardMultiplier') }),
};

const PARTY_AMOUNT: MessageSpec = { 1: string('party'), 2: string('amount'), 3: string('quantumAmount') };

/** The BusEvent envelope's fields before its `oneof event`. */
export const ENVELOPE = { id: 1, block: 2, type: 3, version: 4, chainId: 5, txHash: 6 } as const;

/** The only BusEvent version there is: the data-node refuses an event of another (from a file or its socket alike). */
export const BUS_EVENT_VERSION = 1;

/** Why an event of another version is refused. */
export const versionRefused = (version: unknown) => `version ${version}: only version ${BUS_EVENT_VERSION} is known`;

/**
 * The oneof payloads read: field number, BusEventType value, fields. timeUpdate's number (101)
 * and field are those a real network's event file carries (the one test/vega-data reads); it gives
 * a block its time when the block has no beginBlock.
 */
export const PAYLOADS: Readonly<Record<PayloadKey, { field: number; type: number; spec: MessageSpec }>> = {
  timeUpdate: { field: 101, type: 2, spec: { 1: int64('timestamp') } },
  asset: {
    field: 117,
    type: 18,
    spec: {
      1: string('id'),
      2: message('details', { 1: string('name'), 2: string('symbol'), 4: uint64('decimals'), 5: string('quantum') }),
      3: enumOf('status', ASSET_STATUS),
    },
  },
  epochEvent: {
    field: 131,
    type: 31,
    spec: { 1: uint64('seq'), 2: enumOf('action', EPOCH_ACTION), 3: int64('startTime'), 4: int64('expireTime'), 5: int64('endTime') },
  },
  rewardPayout: {
    field: 134,
    type: 34,
    spec: {
      1: string('party'),
      2: string('epochSeq'),
      3: string('asset'),
      4: string('amount'),
      5: string('percentOfTotalReward'),
      6: int64('timestamp'),
      7: string('rewardType'),
      9: string('lockedUntilEpoch'),
      10: string('quantumAmount'),
      11: optionalString('gameId'),
    },
  },
  transfer: {
    field: 139,
    type: 40,
    spec: {
      1: string('id'),
      9: enumOf('status', TRANSFER_STATUS),
      10: int64('timestamp'),
      12: optionalString('gameId'),
      102: message('recurring', { 4: message('dispatchStrategy', DISPATCH_STRATEGY) }),
      // recurring_governance (104) is not read: a governance transfer does not scope its game
      // (see the transfer in ../payload.ts).
    },
  },
  beginBlock: { field: 148, type: 49, spec: { 1: uint64('height'), 2: int64('timestamp'), 3: string('hash') } },
  endBlock: { field: 149, type: 50, spec: { 1: uint64('height') } },
  teamCreated: {
    field: 161,
    type: 63,
    spec: {
      1: string('teamId'),
      2: string('referrer'),
      3: string('name'),
      4: optionalString('teamUrl'),
      5: optionalString('avatarUrl'),
      6: int64('createdAt'),
      7: bool('closed'),
      8: uint64('atEpoch'),
      9: strings('allowList'),
    },
  },
  teamUpdated: {
    field: 162,
    type: 64,
    spec: {
      1: string('teamId'),
      2: string('name'),
      3: optionalString('teamUrl'),
      4: optionalString('avatarUrl'),
      5: bool('closed'),
      6: strings('allowList'),
    },
  },
  refereeSwitchedTeam: {
    field: 163,
    type: 65,
    spec: { 1: string('fromTeamId'), 2: string('toTeamId'), 3: string('referee'), 4: int64('switchedAt'), 5: uint64('atEpoch') },
  },
  refereeJoinedTeam: {
    field: 164,
    type: 66,
    spec: { 1: string('teamId'), 2: string('referee'), 3: int64('joinedAt'), 4: uint64('atEpoch') },
  },
  referralSetCreated: {
    field: 168,
    type: 70,
    spec: { 1: string('setId'), 2: string('referrer'), 3: int64('createdAt'), 4: int64('updatedAt') },
  },
  refereeJoinedReferralSet: {
    field: 169,
    type: 71,
    spec: { 1: string('setId'), 2: string('referee'), 3: int64('joinedAt'), 4: uint64('atEpoch') },
  },
  teamsStatsUpdated: {
    field: 185,
    type: 87,
    spec: {
      1: uint64('atEpoch'),
      2: messages('stats', { 1: string('teamId'), 2: messages('membersStats', { 1: string('partyId'), 2: string('notionalVolume') }) }),
    },
  },
  referralProgramStarted: {
    field: 165,
    type: 67,
    spec: { 1: message('program', REFERRAL_PROGRAM), 2: int64('startedAt'), 3: uint64('atEpoch') },
  },
  referralProgramUpdated: {
    field: 166,
    type: 68,
    spec: { 1: message('program', REFERRAL_PROGRAM), 2: int64('updatedAt'), 3: uint64('atEpoch') },
  },
  referralProgramEnded: {
    field: 167,
    type: 69,
    spec: { 1: uint64('version'), 2: string('id'), 3: int64('endedAt'), 4: uint64('atEpoch') },
  },
  referralSetStatsUpdated: {
    field: 174,
    type: 76,
    spec: {
      1: string('setId'),
      2: uint64('atEpoch'),
      3: string('referralSetRunningNotionalTakerVolume'),
      // discount_factor (2) is deprecated and not read; field 3 is unused.
      4: messages('refereesStats', {
        1: string('partyId'),
        4: string('epochNotionalTakerVolume'),
        5: message('discountFactors', DISCOUNT_FACTORS),
      }),
      6: string('rewardsMultiplier'),
      8: bool('wasEligible'),
      9: string('referrerTakerVolume'),
      10: message('rewardFactors', REWARD_FACTORS),
      11: message('rewardFactorsMultiplier', REWARD_FACTORS),
    },
  },
  feesStats: {
    field: 177,
    type: 79,
    spec: {
      1: string('market'),
      2: string('asset'),
      3: uint64('epochSeq'),
      // Only the referrers' generated rewards are read (family.md §10).
      5: messages('referrerRewardsGenerated', { 1: string('referrer'), 2: messages('generatedReward', PARTY_AMOUNT) }),
    },
  },
};

/** Oneof field number → the payload read there; every other field number is a skipped kind. */
export const PAYLOAD_BY_FIELD: ReadonlyMap<number, { key: PayloadKey; type: number; spec: MessageSpec }> = new Map(
  (Object.entries(PAYLOADS) as [PayloadKey, (typeof PAYLOADS)[PayloadKey]][]).map(([key, p]) => [p.field, { key, ...p }]),
);
