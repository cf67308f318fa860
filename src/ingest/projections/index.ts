import { Assets } from './assets.js';
import { ChainHead } from './chain-head.js';
import { GameScopes } from './game-scopes.js';
import type { Projection } from './projection.js';
import { ReferralSets } from './referral-sets.js';
import { EpochRewardSummaries } from './epoch-reward-summaries.js';
import { Teams } from './teams.js';
import { TeamMemberStats } from './team-member-stats.js';
import { ReferralProgram } from './referral-program.js';
import { ReferralSetStats } from './referral-set-stats.js';
import { ReferralGeneratedRewards } from './referral-generated-rewards.js';

/**
 * The read models, fresh for one batch, in the order they fold and send their first statements.
 * Team statistics read the membership and game-scope overlays, handed over here: the one place
 * projections meet.
 */
export function batchProjections(): Projection[] {
  const teams = new Teams();
  const games = new GameScopes();
  return [
    new ReferralSets(),
    teams,
    games,
    new TeamMemberStats(teams.teamOf, games.teamScoped),
    new EpochRewardSummaries(),
    new Assets(),
    new ReferralProgram(),
    new ReferralSetStats(),
    new ReferralGeneratedRewards(),
    new ChainHead(),
  ];
}
