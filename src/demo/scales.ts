// Sizes of the synthetic chains. Counts are over the whole history unless said otherwise.

export type DemoScale = 'small' | 'medium' | 'mainnet';

export const DEMO_SCALE_NAMES: readonly DemoScale[] = ['small', 'medium', 'mainnet'];

export interface DemoParams {
  /** Epochs 1..epochs end (a START of epochs+1 closes the chain). */
  epochs: number;
  /** Epoch length (expireTime - startTime), seconds. */
  epochSeconds: number;

  /** Referral sets created, spread over the epochs. */
  referralSets: number;
  /** Distinct referees, each joining a set once (spread over the epochs). */
  referees: number;
  /** Extra joins of an existing referee to another set (how a referee switches sets). */
  refereeSwitches: number;

  /** Teams created (early teams are the big ones). */
  teams: number;
  /** Distinct team members ever, team creators included. */
  teamMembers: number;
  /**
   * Mean number of epochs a joiner stays in teams before leaving every team (geometric).
   * Sized so that about 10% of all members ever are current at any epoch, which keeps the
   * (team, party, epoch) rows written by teamsStatsUpdated near epochs x current members.
   */
  meanTenureEpochs: number;
  /** Per current joiner and epoch, the chance of switching to another team. */
  teamSwitchRate: number;
  /** Zipf exponent of team popularity by creation rank (multiple of 0.25). */
  teamSkew: number;
  /** Per team and epoch, the chance of a teamUpdated. */
  teamUpdateRate: number;

  /** Games (recurring transfers with a game id). */
  games: number;
  /** Share of games that start team-scoped. */
  teamGameShare: number;
  /** Per game and epoch, the chance of a new recurring transfer for it. */
  gameRenewRate: number;
  /** Share of those new transfers that flip the game's entity scope. */
  scopeFlipShare: number;

  /** Mean reward payouts per epoch (the bulk of the events). */
  payoutsPerEpoch: number;
  /** Share of an epoch's payouts that are game rewards (carry a gameId). */
  gamePayoutShare: number;
  /** Parties outside the referral and team programmes (stakers, traders). */
  otherParties: number;

  /** Activity blocks hold 1..this many actions (an action is one or two events). */
  maxBlockActions: number;
  /** Reward payouts per block at epoch end. */
  payoutsPerBlock: number;
}

export const DEMO_SCALES: Record<DemoScale, DemoParams> = {
  // 13.3k events, 7.4 MB (seed 1): ingested on first start in a couple of seconds.
  small: {
    epochs: 20,
    epochSeconds: 3600,
    referralSets: 50,
    referees: 400,
    refereeSwitches: 25,
    teams: 12,
    teamMembers: 150,
    meanTenureEpochs: 8,
    teamSwitchRate: 0.03,
    teamSkew: 1.25,
    teamUpdateRate: 0.03,
    games: 6,
    teamGameShare: 0.6,
    gameRenewRate: 0.08,
    scopeFlipShare: 0.5,
    payoutsPerEpoch: 600,
    gamePayoutShare: 0.3,
    otherParties: 300,
    maxBlockActions: 6,
    payoutsPerBlock: 250,
  },
  // 1.0M events, 576 MB (seed 1); ~110k team statistics rows.
  medium: {
    epochs: 200,
    epochSeconds: 86400,
    referralSets: 2_000,
    referees: 20_000,
    refereeSwitches: 1_000,
    teams: 200,
    teamMembers: 5_000,
    meanTenureEpochs: 20,
    teamSwitchRate: 0.01,
    teamSkew: 1.25,
    teamUpdateRate: 0.005,
    games: 24,
    teamGameShare: 0.6,
    gameRenewRate: 0.02,
    scopeFlipShare: 0.3,
    payoutsPerEpoch: 4_650,
    gamePayoutShare: 0.3,
    otherParties: 10_000,
    maxBlockActions: 12,
    payoutsPerBlock: 250,
  },
  // 10.0M events, 6.3 GB (seed 1): a long-lived network. ~5-6.5k current team members at a
  // time (about 10% of 50k ever; the largest team ~1,000-1,200), so teamsStatsUpdated writes
  // ~5.1M (team, party, epoch) rows in all; 94% of the events are reward payouts.
  mainnet: {
    epochs: 1_000,
    epochSeconds: 86400,
    referralSets: 20_000,
    referees: 200_000,
    refereeSwitches: 10_000,
    teams: 2_000,
    teamMembers: 50_000,
    meanTenureEpochs: 90,
    teamSwitchRate: 0.005,
    teamSkew: 1.25,
    teamUpdateRate: 0.001,
    games: 60,
    teamGameShare: 0.6,
    gameRenewRate: 0.01,
    scopeFlipShare: 0.3,
    payoutsPerEpoch: 9_400,
    gamePayoutShare: 0.3,
    otherParties: 50_000,
    maxBlockActions: 24,
    payoutsPerBlock: 250,
  },
};

/** True for 'small', 'medium' and 'mainnet' only (unlike `value in DEMO_SCALES`, which also
 * accepts inherited keys such as 'constructor'). */
export function isDemoScale(value: unknown): value is DemoScale {
  return typeof value === 'string' && (DEMO_SCALE_NAMES as readonly string[]).includes(value);
}
