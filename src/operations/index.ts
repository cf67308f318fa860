import { listEpochRewardSummaries } from './epoch-reward-summaries/index.js';
import { explorerListAssets } from './explorer-assets/index.js';
import { explorerOverview } from './explorer-overview/index.js';
import { explorerListTeams } from './explorer-teams/index.js';
import type { Operation } from './operation.js';
import { listReferralSets } from './referral-sets/index.js';
import { listTeamMembersStatistics } from './team-member-stats/index.js';

/**
 * The operations the service answers, in the order the OpenAPI document lists them: the
 * data-node's, then the explorer's own (what its pages need that the data-node's cannot give).
 */
export const OPERATIONS: readonly Operation[] = [
  listReferralSets,
  listTeamMembersStatistics,
  listEpochRewardSummaries,
  explorerOverview,
  explorerListAssets,
  explorerListTeams,
];
