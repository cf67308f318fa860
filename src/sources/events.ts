import type { InputPosition } from './input-error.js';

/**
 * The chain events ingestion consumes, decoded and validated: ids are lowercase hex, 64-bit
 * integers are bigint, enums are names: the fields of the BusEvent payloads (their protobuf JSON
 * names) that the projections in src/ingest/projections use.
 */
export type ChainEvent =
  | { kind: 'referralSetCreated'; setId: string; referrer: string; createdAt: bigint; updatedAt: bigint }
  | { kind: 'refereeJoinedReferralSet'; setId: string; referee: string; joinedAt: bigint; atEpoch: bigint }
  | {
      kind: 'teamCreated';
      teamId: string;
      referrer: string;
      name: string;
      teamUrl: string | null;
      avatarUrl: string | null;
      createdAt: bigint;
      closed: boolean;
      atEpoch: bigint;
      allowList: string[];
    }
  | {
      kind: 'teamUpdated';
      teamId: string;
      name: string;
      teamUrl: string | null;
      avatarUrl: string | null;
      closed: boolean;
      allowList: string[];
    }
  | { kind: 'refereeJoinedTeam'; teamId: string; referee: string; joinedAt: bigint; atEpoch: bigint }
  | { kind: 'refereeSwitchedTeam'; fromTeamId: string; toTeamId: string; referee: string; switchedAt: bigint; atEpoch: bigint }
  | { kind: 'teamsStatsUpdated'; atEpoch: bigint; stats: { teamId: string; members: { partyId: string; volume: bigint }[] }[] }
  | { kind: 'transfer'; gameId: string | null; recurringTeamScoped: boolean | null }
  | {
      kind: 'rewardPayout';
      party: string;
      epoch: bigint;
      asset: string;
      amount: bigint;
      rewardType: string;
      /** quantumAmount rounded half away from zero */
      quantumAmount: bigint;
      gameId: string | null;
    }
  | { kind: 'epochEvent'; seq: bigint; action: string }
  /** For display only: symbol and decimals of amounts. quantum is a decimal string. */
  | { kind: 'asset'; id: string; name: string; symbol: string; decimals: bigint; quantum: string; status: string }
  | { kind: 'referralProgramStarted'; program: ReferralProgram }
  | { kind: 'referralProgramUpdated'; program: ReferralProgram }
  | { kind: 'referralProgramEnded'; version: bigint; endedAt: bigint }
  | {
      kind: 'referralSetStatsUpdated';
      setId: string;
      atEpoch: bigint;
      /** The display strings, as the event carried them ('' when absent). */
      runningVolume: string;
      rewardsMultiplier: string;
      wasEligible: boolean;
      referrerTakerVolume: string;
      rewardFactors: RewardFactors | null;
      rewardFactorsMultiplier: RewardFactors | null;
      referees: RefereeStats[];
    }
  /** Only what the referees' generated rewards read: each referrerRewardsGenerated[].generatedReward[] entry. */
  | { kind: 'feesStats'; epoch: bigint; generated: { party: string; quantumAmount: string }[] };

/** vega.RewardFactors, its strings as given ('' when absent). */
export interface RewardFactors {
  infrastructureRewardFactor: string;
  liquidityRewardFactor: string;
  makerRewardFactor: string;
}

/** vega.DiscountFactors, its strings as given ('' when absent). */
export interface DiscountFactors {
  infrastructureDiscountFactor: string;
  liquidityDiscountFactor: string;
  makerDiscountFactor: string;
}

/** One referee's entry of ReferralSetStatsUpdated: the volume as given ('' when absent), its value (0 when absent). */
export interface RefereeStats {
  partyId: string;
  volume: string;
  volumeValue: string;
  discountFactors: DiscountFactors | null;
}

/**
 * vega.ReferralProgram as served (family.md §3): tier strings as given, tier numbers 1…n by
 * position, the end time in Unix ns (the event gives seconds).
 */
export interface ReferralProgram {
  version: bigint;
  id: string;
  benefitTiers: {
    minimumRunningNotionalTakerVolume: string;
    minimumEpochs: string;
    referralRewardFactor: string;
    referralDiscountFactor: string;
    referralRewardFactors: RewardFactors | null;
    referralDiscountFactors: DiscountFactors | null;
    tierNumber: string;
  }[];
  endOfProgram: bigint;
  windowLength: bigint;
  stakingTiers: { minimumStakedTokens: string; referralRewardMultiplier: string }[];
}

/** Block boundaries, kept apart from the events they delimit. */
export type BlockMarker = { kind: 'beginBlock'; height: bigint; timestamp: bigint; hash: string } | { kind: 'endBlock'; height: bigint };

/**
 * Consecutive events of one block (one height, chain and version) of kinds this service does not
 * read, counted by type: what an event file's decoder gives for them, instead of an event each
 * (see BinaryDecoder). Its id and position are its first event's.
 */
export interface SkippedRun {
  kind: 'skippedRun';
  /** Type name → events of that type in the run. */
  counts: ReadonlyMap<string, number>;
  events: number;
}

/** One decoded BusEvent with where it came from. */
export interface DecodedEvent {
  id: string;
  /** Height from the id prefix. */
  height: bigint;
  /** Where it is in its input. */
  at: InputPosition;
  /** A consumed event, a block marker, a skipped type (by name), or a run of skipped events. */
  body: ChainEvent | BlockMarker | { kind: 'skipped'; type: string } | SkippedRun;
  /** timeUpdate timestamp, used as block time when a block has no beginBlock. */
  timeUpdate?: bigint;
  /** The envelope's chain id; '' or absent when it says none (the JSON form may leave it out). */
  chainId?: string;
}

/**
 * An input's events in order, handed out in arrays (those of one chunk of input, say): async
 * iteration costs a promise and a few microtasks per item, as much as decoding a small event.
 */
export type EventBatches = AsyncIterable<readonly DecodedEvent[]>;

/**
 * The events a decoder gives for one chunk, as one array (or none when there are none). When
 * decoding fails, the events before the bad one are handed out first, then its error is thrown.
 */
export function* inOneBatch(events: Iterable<DecodedEvent>): Generator<DecodedEvent[]> {
  const batch: DecodedEvent[] = [];
  try {
    for (const e of events) batch.push(e);
  } catch (err) {
    if (batch.length > 0) yield batch;
    throw err;
  }
  if (batch.length > 0) yield batch;
}

/** Payload key → the BusEventType name of the event kinds this service reads (or writes, in demo). */
export const PAYLOAD_TYPES = {
  beginBlock: 'BUS_EVENT_TYPE_BEGIN_BLOCK',
  endBlock: 'BUS_EVENT_TYPE_END_BLOCK',
  timeUpdate: 'BUS_EVENT_TYPE_TIME_UPDATE',
  epochEvent: 'BUS_EVENT_TYPE_EPOCH_UPDATE',
  referralSetCreated: 'BUS_EVENT_TYPE_REFERRAL_SET_CREATED',
  refereeJoinedReferralSet: 'BUS_EVENT_TYPE_REFEREE_JOINED_REFERRAL_SET',
  teamCreated: 'BUS_EVENT_TYPE_TEAM_CREATED',
  teamUpdated: 'BUS_EVENT_TYPE_TEAM_UPDATED',
  refereeJoinedTeam: 'BUS_EVENT_TYPE_REFEREE_JOINED_TEAM',
  refereeSwitchedTeam: 'BUS_EVENT_TYPE_REFEREE_SWITCHED_TEAM',
  teamsStatsUpdated: 'BUS_EVENT_TYPE_TEAMS_STATS_UPDATED',
  transfer: 'BUS_EVENT_TYPE_TRANSFER',
  rewardPayout: 'BUS_EVENT_TYPE_REWARD_PAYOUT_EVENT',
  asset: 'BUS_EVENT_TYPE_ASSET',
  referralProgramStarted: 'BUS_EVENT_TYPE_REFERRAL_PROGRAM_STARTED',
  referralProgramUpdated: 'BUS_EVENT_TYPE_REFERRAL_PROGRAM_UPDATED',
  referralProgramEnded: 'BUS_EVENT_TYPE_REFERRAL_PROGRAM_ENDED',
  referralSetStatsUpdated: 'BUS_EVENT_TYPE_REFERRAL_SET_STATS_UPDATED',
  feesStats: 'BUS_EVENT_TYPE_FEES_STATS_UPDATED',
} as const;

export type PayloadKey = keyof typeof PAYLOAD_TYPES;
