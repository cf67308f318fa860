import { listEpochRewardSummaries } from '../operations/epoch-reward-summaries/index.js';
import type { AnyOperation } from '../operations/operation.js';
import { listReferralSets } from '../operations/referral-sets/index.js';
import { listTeamMembersStatistics } from '../operations/team-member-stats/index.js';
import { listTeams } from '../operations/list-teams/index.js';
import { listTeamsStatistics } from '../operations/list-teams-statistics/index.js';
import { listTeamReferees } from '../operations/list-team-referees/index.js';
import { listTeamRefereeHistory } from '../operations/list-team-referee-history/index.js';
import { getCurrentReferralProgram } from '../operations/referral-program/index.js';
import { listReferralSetReferees } from '../operations/referral-set-referees/index.js';
import { getReferralSetStats } from '../operations/referral-set-stats/index.js';

/**
 * The gRPC door's methods: the data-node's datanode.api.v2.TradingDataService, for the three
 * operations we answer (grpc.md). What the operations do not say themselves is here: the
 * request messages' field numbers and nesting. Types, names and docs of the request fields come
 * from the operations' field specs; the response messages from their message definitions.
 */
export const PACKAGE = 'datanode.api.v2';
export const SERVICE = `${PACKAGE}.TradingDataService`;

/** A field of a request message: one of the operation's fields (by its name there), or a nested message holding some. */
export type RequestField =
  | { readonly number: number; readonly field: string }
  | { readonly number: number; readonly name: string; readonly message: RequestMessage; readonly optional?: true };

export interface RequestMessage {
  /** The message's name in the package. */
  readonly name: string;
  readonly doc: string;
  /** In proto order. */
  readonly fields: readonly RequestField[];
}

export interface GrpcMethod {
  operation: AnyOperation;
  request: RequestMessage;
}

const PAGINATION: RequestMessage = {
  name: 'Pagination',
  doc: 'Cursor pagination, as the REST query fields pagination.* (contract §4).',
  fields: [
    { number: 1, field: 'first' },
    { number: 2, field: 'after' },
    { number: 3, field: 'last' },
    { number: 4, field: 'before' },
    { number: 5, field: 'newestFirst' },
  ],
};

const pagination = (number: number): RequestField => ({ number, name: 'pagination', message: PAGINATION, optional: true });

export const METHODS: readonly GrpcMethod[] = [
  {
    operation: listReferralSets,
    request: {
      name: 'ListReferralSetsRequest',
      doc: 'ListReferralSets: one filter applies, in this precedence: referral_set_id, referrer, referee.',
      fields: [{ number: 1, field: 'referralSetId' }, pagination(2), { number: 3, field: 'referrer' }, { number: 4, field: 'referee' }],
    },
  },
  {
    operation: listTeamMembersStatistics,
    request: {
      name: 'ListTeamMembersStatisticsRequest',
      doc: "ListTeamMembersStatistics: a team's members over the last aggregation_epochs ended epochs.",
      fields: [{ number: 1, field: 'teamId' }, { number: 2, field: 'partyId' }, { number: 3, field: 'aggregationEpochs' }, pagination(4)],
    },
  },
  {
    operation: listEpochRewardSummaries,
    request: {
      name: 'ListEpochRewardSummariesRequest',
      doc: 'ListEpochRewardSummaries: summaries filtered by assets, markets and an epoch range.',
      fields: [
        {
          number: 1,
          name: 'filter',
          message: {
            name: 'RewardSummaryFilter',
            doc: 'Which summaries: every list empty and no epoch given means all.',
            fields: [
              { number: 1, field: 'assetIds' },
              { number: 2, field: 'marketIds' },
              { number: 3, field: 'fromEpoch' },
              { number: 4, field: 'toEpoch' },
            ],
          },
        },
        pagination(4),
      ],
    },
  },
  {
    operation: listReferralSetReferees,
    request: {
      name: 'ListReferralSetRefereesRequest',
      doc: 'ListReferralSetReferees: one filter applies, in this precedence: referral_set_id, referrer, referee; the totals cover the last aggregation_epochs ended epochs.',
      fields: [
        { number: 1, field: 'referralSetId' },
        pagination(2),
        { number: 3, field: 'referrer' },
        { number: 4, field: 'referee' },
        { number: 5, field: 'aggregationEpochs' },
      ],
    },
  },
  {
    operation: getReferralSetStats,
    request: {
      name: 'GetReferralSetStatsRequest',
      doc: 'GetReferralSetStats: one epoch (at_epoch, else the latest), or every epoch of a set and referee.',
      fields: [{ number: 1, field: 'referralSetId' }, { number: 2, field: 'atEpoch' }, { number: 3, field: 'referee' }, pagination(4)],
    },
  },
  {
    operation: getCurrentReferralProgram,
    request: { name: 'GetCurrentReferralProgramRequest', doc: 'GetCurrentReferralProgram: no fields.', fields: [] },
  },
  // The team family (family.md §8).
  {
    operation: listTeams,
    request: {
      name: 'ListTeamsRequest',
      doc: 'ListTeams: every team, or with team_id or party_id present (even empty) the one team, pagination ignored.',
      fields: [{ number: 1, field: 'teamId' }, { number: 2, field: 'partyId' }, pagination(3)],
    },
  },
  {
    operation: listTeamsStatistics,
    request: {
      name: 'ListTeamsStatisticsRequest',
      doc: "ListTeamsStatistics: the teams' statistics over the last aggregation_epochs ended epochs (absent: 10; 0: none).",
      fields: [{ number: 1, field: 'teamId' }, { number: 2, field: 'aggregationEpochs' }, pagination(3)],
    },
  },
  {
    operation: listTeamReferees,
    request: {
      name: 'ListTeamRefereesRequest',
      doc: "ListTeamReferees: a team's members but its creator (team_id empty: an empty page).",
      fields: [{ number: 1, field: 'teamId' }, pagination(2)],
    },
  },
  {
    operation: listTeamRefereeHistory,
    request: {
      name: 'ListTeamRefereeHistoryRequest',
      doc: "ListTeamRefereeHistory: a party's team memberships (referee empty: an empty page).",
      fields: [{ number: 1, field: 'referee' }, pagination(2)],
    },
  },
];
