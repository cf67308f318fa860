import { Assets } from './assets.js';
import { ChainHead } from './chain-head.js';
import { GameScopes } from './game-scopes.js';
import type { Projection } from './projection.js';
import { Referrals } from './referrals.js';
import { RewardSummaries } from './reward-summaries.js';
import { Teams } from './teams.js';
import { TeamStats } from './team-stats.js';

/**
 * The read models, fresh for one batch, in the order they write. Team statistics read the
 * membership and game-scope overlays, handed over here: the one place projections meet.
 */
export function batchProjections(): Projection[] {
  const teams = new Teams();
  const games = new GameScopes();
  return [
    new Referrals(),
    teams,
    games,
    new TeamStats(teams.teamOf, games.teamScoped),
    new RewardSummaries(),
    new Assets(),
    new ChainHead(),
  ];
}
