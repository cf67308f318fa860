import type { FixtureExample } from '../contract/openapi.js';
import { EXAMPLES as SUMMARY_EXAMPLES } from '../operations/epoch-reward-summaries/examples.js';
import { listEpochRewardSummaries } from '../operations/epoch-reward-summaries/index.js';
import { explorerListAssets } from '../operations/explorer-assets/index.js';
import { explorerOverview } from '../operations/explorer-overview/index.js';
import { explorerListTeams } from '../operations/explorer-teams/index.js';
import type { AnyOperation } from '../operations/operation.js';
import { EXAMPLES as REFERRAL_SET_EXAMPLES } from '../operations/referral-sets/examples.js';
import { listReferralSets } from '../operations/referral-sets/index.js';
import { EXAMPLES as TEAM_STATS_EXAMPLES } from '../operations/team-member-stats/examples.js';
import { listTeamMembersStatistics } from '../operations/team-member-stats/index.js';
import { EXAMPLES as TEAMS_EXAMPLES } from '../operations/list-teams/examples.js';
import { listTeams } from '../operations/list-teams/index.js';
import { EXAMPLES as TEAMS_STATISTICS_EXAMPLES } from '../operations/list-teams-statistics/examples.js';
import { listTeamsStatistics } from '../operations/list-teams-statistics/index.js';
import { EXAMPLES as TEAM_REFEREES_EXAMPLES } from '../operations/list-team-referees/examples.js';
import { listTeamReferees } from '../operations/list-team-referees/index.js';
import { EXAMPLES as TEAM_REFEREE_HISTORY_EXAMPLES } from '../operations/list-team-referee-history/examples.js';
import { listTeamRefereeHistory } from '../operations/list-team-referee-history/index.js';
import { getCurrentReferralProgram } from '../operations/referral-program/index.js';
import { EXAMPLES as PROGRAM_EXAMPLES } from '../operations/referral-program/examples.js';
import { listReferralSetReferees } from '../operations/referral-set-referees/index.js';
import { EXAMPLES as REFEREE_EXAMPLES } from '../operations/referral-set-referees/examples.js';
import { getReferralSetStats } from '../operations/referral-set-stats/index.js';
import { EXAMPLES as SET_STATS_EXAMPLES } from '../operations/referral-set-stats/examples.js';

/** A GET route of the REST door: the operation it answers, and the examples the OpenAPI document shows. */
export interface Route {
  /** The path in the router's syntax; a `:param` sets the request field of that name. */
  path: string;
  operation: AnyOperation;
  examples: readonly FixtureExample[];
}

/**
 * The routes of the REST door, in the order the OpenAPI document lists them: the data-node's
 * (contract §1), then the explorer's own (what its pages need that the data-node's cannot give).
 */
export const ROUTES: readonly Route[] = [
  { path: '/api/v2/referral-sets', operation: listReferralSets, examples: REFERRAL_SET_EXAMPLES },
  { path: '/api/v2/teams/:teamId/stats', operation: listTeamMembersStatistics, examples: TEAM_STATS_EXAMPLES },
  { path: '/api/v2/rewards/epoch/summaries', operation: listEpochRewardSummaries, examples: SUMMARY_EXAMPLES },
  { path: '/explorer/api/overview', operation: explorerOverview, examples: [] },
  { path: '/explorer/api/assets', operation: explorerListAssets, examples: [] },
  { path: '/explorer/api/teams', operation: explorerListTeams, examples: [] },
  // The team family (family.md §1). A static segment is tried before a parameter, as the
  // reference's gateway does it: /api/v2/teams/referees/stats is ListTeamReferees.
  { path: '/api/v2/teams', operation: listTeams, examples: TEAMS_EXAMPLES },
  { path: '/api/v2/teams/stats', operation: listTeamsStatistics, examples: TEAMS_STATISTICS_EXAMPLES },
  { path: '/api/v2/teams/referees/:teamId', operation: listTeamReferees, examples: TEAM_REFEREES_EXAMPLES },
  { path: '/api/v2/teams/referees/history/:referee', operation: listTeamRefereeHistory, examples: TEAM_REFEREE_HISTORY_EXAMPLES },
  // The referral family (family.md §1).
  { path: '/api/v2/referral-sets/referees', operation: listReferralSetReferees, examples: REFEREE_EXAMPLES },
  { path: '/api/v2/referral-sets/stats', operation: getReferralSetStats, examples: SET_STATS_EXAMPLES },
  { path: '/api/v2/referral-programs/current', operation: getCurrentReferralProgram, examples: PROGRAM_EXAMPLES },
];
