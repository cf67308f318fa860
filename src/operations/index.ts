import { listEpochRewardSummaries } from './epoch-summaries/index.js';
import type { Operation } from './operation.js';
import { listReferralSets } from './referral-sets/index.js';
import { listTeamMembersStatistics } from './team-stats/index.js';

/** The operations the service answers, in the order the OpenAPI document lists them. */
export const OPERATIONS: readonly Operation[] = [listReferralSets, listTeamMembersStatistics, listEpochRewardSummaries];
