import { Kind, type FieldNode, type GraphQLResolveInfo } from 'graphql';
import { internalError } from '../contract/errors.js';
import { withoutTrailingZeros } from '../contract/decimal.js';
import { listEpochRewardSummaries } from '../operations/epoch-reward-summaries/index.js';
import type { AnyOperation, RequestOf } from '../operations/operation.js';
import { listReferralSets } from '../operations/referral-sets/index.js';
import { listTeamMembersStatistics } from '../operations/team-member-stats/index.js';
import { listTeams } from '../operations/list-teams/index.js';
import { listTeamsStatistics } from '../operations/list-teams-statistics/index.js';
import { listTeamReferees } from '../operations/list-team-referees/index.js';
import { listTeamRefereeHistory } from '../operations/list-team-referee-history/index.js';
import { getCurrentReferralProgram } from '../operations/referral-program/index.js';
import { listReferralSetReferees } from '../operations/referral-set-referees/index.js';
import { getReferralSetStats } from '../operations/referral-set-stats/index.js';
import { ArgumentError } from './errors.js';

/**
 * The root fields GraphQL answers (graphql.md §1), each the door to one operation of the core:
 * its arguments, how they become the operation's request fields, and what the data-node's schema
 * says differently of the operation's messages (type names, field order, nullability). The
 * messages' fields themselves come from the operations (see schema.ts).
 */

/** A GraphQL argument as SDL: `name: Type`. */
type ArgumentSdl = string;

/** How a message is shown in the data-node's schema, beyond what its definition says. */
export interface MessageView {
  /** The object type's name where it is not the proto message's (CurrentReferralProgram). */
  name?: string;
  /** Field names in the schema's order (message names); fields not named come after, in the message's order. */
  order?: readonly string[];
  /** A field's GraphQL type where the scalar's default (see schema.ts) is not the data-node's. */
  types?: Readonly<Record<string, string>>;
  /** A field's GraphQL name where it is not the message's (refereeId for referee). */
  names?: Readonly<Record<string, string>>;
  /** A field's value where it is not the node's JSON value as it is (family.md §9.3): from the value and the node. */
  values?: Readonly<Record<string, (value: unknown, node: Record<string, unknown>) => unknown>>;
  /** The deprecation reason of a field the data-node's schema marks @deprecated. */
  deprecated?: Readonly<Record<string, string>>;
}

export interface RootField {
  name: string;
  operation: AnyOperation;
  args: readonly ArgumentSdl[];
  /**
   * Answered by graphql-js's executor only, never by the compiled writers (compiled.ts), which
   * know neither renamed fields nor the views' values; and an item's type (currentReferralProgram)
   * holds the one message, not a connection.
   */
  executorOnly?: true;
  /** The field's type nullability, its edges' and pageInfo's (the data-node's schema differs per field). */
  nullable: boolean;
  edges: string;
  pageInfo: string;
  /** An empty page's edges: `[]`, or null (epochRewardSummaries). */
  emptyEdges: [] | null;
  /** The views of the node's message and of the messages it holds, by the message's full name. */
  views: Readonly<Record<string, MessageView>>;
  /** The operation's request from the field's arguments; throws ArgumentError where the data-node's resolver fails. */
  request(args: Record<string, unknown>, info: GraphQLResolveInfo): RequestOf<AnyOperation['fields']>;
}

interface Pagination {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/**
 * The Pagination input as the operation's pagination fields, then the request's other fields;
 * GraphQL has no newestFirst (newest first always). The other fields spread last: an object
 * spread followed by more fields took V8 2 µs (its slow path), the other way round 0.1 µs.
 */
function paginated<T extends object>(p: Pagination | null | undefined, fields: T) {
  return {
    first: p?.first ?? undefined,
    after: p?.after ?? undefined,
    last: p?.last ?? undefined,
    before: p?.before ?? undefined,
    ...fields,
  };
}

const optional = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

/**
 * The names of the fields an input object argument was written with, when written as a literal:
 * a field holding a variable that was not sent is left out of the coerced value, but the
 * data-node's resolver sees the key (graphql.md §2). Undefined when the argument is a variable.
 */
function literalKeys(info: GraphQLResolveInfo, argument: string): Set<string> | undefined {
  const node: FieldNode | undefined = info.fieldNodes[0];
  const arg = node?.arguments?.find((a) => a.name.value === argument);
  if (arg?.value.kind !== Kind.OBJECT) return undefined;
  return new Set(arg.value.fields.map((f) => f.name.value));
}

/** An epoch bound of RewardSummaryFilter: absent, or a uint64 where null counts as 0 (graphql.md §2). */
function epochBound(filter: Record<string, unknown> | null | undefined, keys: Set<string> | undefined, key: string): bigint | undefined {
  const present = filter != null && (key in filter || keys?.has(key) === true);
  if (!present) return undefined;
  const value = filter[key] as number | null | undefined;
  if (value == null) return 0n;
  if (value < 0) throw new ArgumentError('cannot convert to uint - must be positive');
  return BigInt(value);
}

/**
 * A uint64 `aggregationEpochs` argument (team and member statistics): absent when not given; a
 * negative one fails as the data-node's conversion to uint64 makes its query fail (graphql.md §2,
 * family.md §9.2), with the operation's own error.
 */
function aggregationEpochs(args: Record<string, unknown>, op: AnyOperation): bigint | undefined {
  const epochs = args.aggregationEpochs as number | null | undefined;
  if (epochs != null && epochs < 0) throw internalError(op.errorCode, op.errorMessage);
  return epochs == null ? undefined : BigInt(epochs);
}

const PAGINATION_ARG = 'pagination: Pagination';

/** A message absent from the node (the event had none) as an object of "" values (family.md §9.3, fix). */
const absentAsEmpty = (value: unknown) => value ?? {};

/** vega.DiscountFactors and vega.RewardFactors as the data-node's schema names them (family.md §9.1). */
const FACTOR_VIEWS: Readonly<Record<string, MessageView>> = {
  'vega.DiscountFactors': {
    name: 'DiscountFactors',
    order: ['infrastructureDiscountFactor', 'makerDiscountFactor', 'liquidityDiscountFactor'],
    names: {
      infrastructureDiscountFactor: 'infrastructureFactor',
      makerDiscountFactor: 'makerFactor',
      liquidityDiscountFactor: 'liquidityFactor',
    },
  },
  'vega.RewardFactors': {
    name: 'RewardFactors',
    order: ['infrastructureRewardFactor', 'makerRewardFactor', 'liquidityRewardFactor'],
    names: {
      infrastructureRewardFactor: 'infrastructureFactor',
      makerRewardFactor: 'makerFactor',
      liquidityRewardFactor: 'liquidityFactor',
    },
  },
};

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/**
 * A benefit tier's factor as the data-node's resolver writes it (family.md §9.3, keep): the
 * decimal with no trailing zeros ("0.0100" is "0.01"); not a decimal is a field error. "" (a
 * factor the event left out) stays "".
 */
export function normalisedDecimal(text: string): string {
  if (text === '') return '';
  const m = DECIMAL_TEXT.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new Error(`invalid decimal: ${JSON.stringify(text)}`);
  const whole = m[2]!.replace(/^0+(?=\d)/, '') || '0';
  const fraction = withoutTrailingZeros(m[3] ?? '');
  const digits = fraction === '' ? whole : `${whole}.${fraction}`;
  return m[1] === '-' && /[1-9]/.test(digits) ? `-${digits}` : digits;
}

/** A tier's factors object: absent as "", present ones normalised. */
function tierFactors(value: unknown): unknown {
  if (value == null) return {};
  return Object.fromEntries(Object.entries(value as Record<string, string>).map(([k, v]) => [k, normalisedDecimal(v)]));
}

/** minimumEpochs: an Int parsed from its string; not an integer is a field error (family.md §9.3). */
function integerOf(value: unknown): number {
  const text = String(value);
  if (!/^[+-]?\d+$/.test(text)) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
  return Number(text);
}

export const ROOT_FIELDS: readonly RootField[] = [
  {
    name: 'referralSets',
    operation: listReferralSets,
    args: ['id: ID', 'referrer: ID', 'referee: ID', PAGINATION_ARG],
    nullable: false,
    edges: '[ReferralSetEdge]!',
    pageInfo: 'PageInfo!',
    emptyEdges: [],
    views: {
      'datanode.api.v2.ReferralSet': { order: ['id', 'referrer', 'totalMembers', 'createdAt', 'updatedAt'] },
    },
    request: (args) =>
      paginated(args.pagination as Pagination, {
        referralSetId: optional(args.id as string),
        referrer: optional(args.referrer as string),
        referee: optional(args.referee as string),
      }),
  },
  {
    name: 'teamMembersStatistics',
    operation: listTeamMembersStatistics,
    args: ['teamId: ID!', 'partyId: ID', 'aggregationEpochs: Int', PAGINATION_ARG],
    nullable: true,
    edges: '[TeamMemberStatisticsEdge!]!',
    pageInfo: 'PageInfo!',
    emptyEdges: [],
    views: {
      'datanode.api.v2.TeamMemberStatistics': {
        order: [
          'partyId',
          'totalQuantumVolume',
          'quantumVolumes',
          'totalQuantumRewards',
          'quantumRewards',
          'totalGamesPlayed',
          'gamesPlayed',
        ],
        types: { partyId: 'String!' },
      },
    },
    request: (args) =>
      paginated(args.pagination as Pagination, {
        teamId: args.teamId as string,
        partyId: optional(args.partyId as string),
        aggregationEpochs: aggregationEpochs(args, listTeamMembersStatistics),
      }),
  },
  {
    name: 'epochRewardSummaries',
    operation: listEpochRewardSummaries,
    args: ['filter: RewardSummaryFilter', PAGINATION_ARG],
    nullable: true,
    edges: '[EpochRewardSummaryEdge]',
    pageInfo: 'PageInfo',
    emptyEdges: null,
    views: {
      'vega.EpochRewardSummary': {
        order: ['epoch', 'marketId', 'assetId', 'rewardType', 'amount'],
        types: { marketId: 'ID', rewardType: 'AccountType!' },
      },
    },
    request(args, info) {
      const filter = args.filter as Record<string, unknown> | null | undefined;
      const keys = literalKeys(info, 'filter');
      return paginated(args.pagination as Pagination, {
        assetIds: (filter?.assetIds as string[] | null | undefined) ?? [],
        marketIds: (filter?.marketIds as string[] | null | undefined) ?? [],
        fromEpoch: epochBound(filter, keys, 'fromEpoch'),
        toEpoch: epochBound(filter, keys, 'toEpoch'),
      });
    },
  },
  {
    name: 'referralSetReferees',
    operation: listReferralSetReferees,
    args: ['id: ID', 'referrer: ID', 'referee: ID', PAGINATION_ARG, 'aggregationEpochs: Int'],
    nullable: false,
    edges: '[ReferralSetRefereeEdge]!',
    pageInfo: 'PageInfo!',
    emptyEdges: [],
    executorOnly: true,
    views: { 'datanode.api.v2.ReferralSetReferee': { names: { referee: 'refereeId' } } },
    request(args) {
      const epochs = args.aggregationEpochs as number | null | undefined;
      return paginated(args.pagination as Pagination, {
        referralSetId: optional(args.id as string),
        referrer: optional(args.referrer as string),
        referee: optional(args.referee as string),
        // Always sent: 30 when absent; a negative value wraps to 32 bits (family.md §9.2, keep).
        aggregationEpochs: epochs == null ? 30 : epochs >>> 0,
      });
    },
  },
  {
    name: 'referralSetStats',
    operation: getReferralSetStats,
    args: ['setId: ID', 'epoch: Int', 'partyId: ID', PAGINATION_ARG],
    nullable: false,
    edges: '[ReferralSetStatsEdge]!',
    pageInfo: 'PageInfo!',
    emptyEdges: [],
    executorOnly: true,
    views: {
      ...FACTOR_VIEWS,
      'datanode.api.v2.ReferralSetStats': {
        order: [
          'atEpoch',
          'partyId',
          'wasEligible',
          'discountFactor',
          'rewardFactor',
          'discountFactors',
          'rewardFactors',
          'epochNotionalTakerVolume',
          'referralSetRunningNotionalTakerVolume',
          'rewardsMultiplier',
          'rewardsFactorMultiplier',
          'rewardsFactorsMultiplier',
          'referrerTakerVolume',
        ],
        // Copied unchanged; an absent object is three "" (family.md §9.3).
        values: { rewardFactors: absentAsEmpty, rewardsFactorsMultiplier: absentAsEmpty },
        deprecated: {
          discountFactor: 'Use discountFactors',
          rewardFactor: 'Use rewardFactors',
          rewardsFactorMultiplier: 'Use rewardsFactorsMultiplier',
        },
      },
    },
    request(args) {
      const epoch = args.epoch as number | null | undefined;
      // The data-node converts a negative epoch to uint64 and fails (family.md §9.2).
      if (epoch != null && epoch < 0) throw internalError(getReferralSetStats.errorCode, getReferralSetStats.errorMessage);
      return paginated(args.pagination as Pagination, {
        referralSetId: optional(args.setId as string),
        atEpoch: epoch == null ? undefined : BigInt(epoch),
        referee: optional(args.partyId as string),
      });
    },
  },
  {
    name: 'currentReferralProgram',
    operation: getCurrentReferralProgram,
    args: [],
    nullable: true,
    edges: '',
    pageInfo: '',
    emptyEdges: [],
    executorOnly: true,
    views: {
      ...FACTOR_VIEWS,
      'datanode.api.v2.ReferralProgram': {
        name: 'CurrentReferralProgram',
        order: ['id', 'version', 'benefitTiers', 'endOfProgramTimestamp', 'windowLength', 'stakingTiers', 'endedAt'],
        types: { endedAt: 'Timestamp' },
      },
      'vega.BenefitTier': {
        order: [
          'minimumEpochs',
          'minimumRunningNotionalTakerVolume',
          'referralDiscountFactor',
          'referralDiscountFactors',
          'referralRewardFactor',
          'referralRewardFactors',
          'tierNumber',
        ],
        types: { minimumEpochs: 'Int!', tierNumber: 'Int' },
        values: { minimumEpochs: integerOf, referralRewardFactors: tierFactors, referralDiscountFactors: tierFactors },
        deprecated: { referralDiscountFactor: 'Use referralDiscountFactors', referralRewardFactor: 'Use referralRewardFactors' },
      },
    },
    request: () => ({}),
  },
  // The team family (family.md §9).
  {
    name: 'teams',
    operation: listTeams,
    args: ['teamId: ID', 'partyId: ID', PAGINATION_ARG],
    nullable: true,
    edges: '[TeamEdge!]!',
    pageInfo: 'PageInfo!',
    emptyEdges: [],
    views: {
      'datanode.api.v2.Team': {
        order: ['teamId', 'referrer', 'name', 'teamUrl', 'avatarUrl', 'totalMembers', 'createdAt', 'createdAtEpoch', 'closed', 'allowList'],
      },
    },
    request: (args) =>
      paginated(args.pagination as Pagination, {
        teamId: optional(args.teamId as string),
        partyId: optional(args.partyId as string),
      }),
  },
  {
    name: 'teamsStatistics',
    operation: listTeamsStatistics,
    args: ['teamId: ID', 'aggregationEpochs: Int', PAGINATION_ARG],
    nullable: true,
    edges: '[TeamStatisticsEdge!]!',
    pageInfo: 'PageInfo!',
    emptyEdges: [],
    views: {
      'datanode.api.v2.TeamStatistics': {
        order: [
          'teamId',
          'totalQuantumVolume',
          'quantumVolumes',
          'totalQuantumRewards',
          'quantumRewards',
          'totalGamesPlayed',
          'gamesPlayed',
        ],
        types: { teamId: 'String!' },
      },
    },
    request: (args) =>
      paginated(args.pagination as Pagination, {
        teamId: optional(args.teamId as string),
        aggregationEpochs: aggregationEpochs(args, listTeamsStatistics),
      }),
  },
  {
    name: 'teamReferees',
    operation: listTeamReferees,
    args: ['teamId: ID!', PAGINATION_ARG],
    nullable: true,
    edges: '[TeamRefereeEdge!]!',
    pageInfo: 'PageInfo!',
    emptyEdges: [],
    views: {},
    request: (args) => paginated(args.pagination as Pagination, { teamId: args.teamId as string }),
  },
  {
    name: 'teamRefereeHistory',
    operation: listTeamRefereeHistory,
    args: ['referee: ID!', PAGINATION_ARG],
    nullable: true,
    edges: '[TeamRefereeHistoryEdge!]!',
    pageInfo: 'PageInfo!',
    emptyEdges: [],
    views: {},
    request: (args) => paginated(args.pagination as Pagination, { referee: args.referee as string }),
  },
];

/** The input types the root fields' arguments use, and the enum of reward types (graphql.md §1). */
export const INPUT_SDL = `
input Pagination { first: Int after: String last: Int before: String }
input RewardSummaryFilter { assetIds: [ID!] marketIds: [ID!] fromEpoch: Int toEpoch: Int }
`;

/** vega.AccountType names, as the data-node's schema lists them (graphql.md §1). */
export const ACCOUNT_TYPES = [
  'INSURANCE',
  'GLOBAL_INSURANCE',
  'SETTLEMENT',
  'MARGIN',
  'GENERAL',
  'FEES_INFRASTRUCTURE',
  'FEES_LIQUIDITY',
  'FEES_MAKER',
  'BOND',
  'EXTERNAL',
  'GLOBAL_REWARD',
  'PENDING_TRANSFERS',
  'REWARD_MAKER_PAID_FEES',
  'REWARD_MAKER_RECEIVED_FEES',
  'REWARD_LP_RECEIVED_FEES',
  'REWARD_MARKET_PROPOSERS',
  'HOLDING',
  'LP_LIQUIDITY_FEES',
  'NETWORK_TREASURY',
  'VESTING_REWARDS',
  'VESTED_REWARDS',
  'REWARD_AVERAGE_POSITION',
  'REWARD_RELATIVE_RETURN',
  'REWARD_RETURN_VOLATILITY',
  'REWARD_VALIDATOR_RANKING',
  'PENDING_FEE_REFERRAL_REWARD',
  'ORDER_MARGIN',
  'REWARD_REALISED_RETURN',
  'REWARD_AVERAGE_NOTIONAL',
  'REWARD_ELIGIBLE_ENTITIES',
  'LOCKED_FOR_STAKING',
].map((name) => `ACCOUNT_TYPE_${name}`);
