// Assets, reward types and games (recurring transfers with a game id) of the demo chain.

import { IdKind, type IdSpace, type Rng } from './random.js';

export interface DemoAsset {
  symbol: string;
  name: string;
  id: string;
  /** Amounts are integers of 10^-decimals of the asset. */
  decimals: number;
  /** The asset's quantum is 10^quantumPlaces base units. */
  quantumPlaces: number;
}

/** Announced by an asset event each at the start of the chain, so that amounts can be shown in units. */
const ASSET_PROFILES: readonly { symbol: string; name: string; decimals: number; quantumPlaces: number; weight: number }[] = [
  { symbol: 'VEGA', name: 'Vega', decimals: 18, quantumPlaces: 18, weight: 30 },
  { symbol: 'USDT', name: 'Tether USD', decimals: 6, quantumPlaces: 6, weight: 25 },
  { symbol: 'USDC', name: 'USD Coin', decimals: 6, quantumPlaces: 6, weight: 18 },
  { symbol: 'WETH', name: 'Wrapped Ether', decimals: 18, quantumPlaces: 15, weight: 12 },
  { symbol: 'WBTC', name: 'Wrapped BTC', decimals: 8, quantumPlaces: 3, weight: 8 },
  { symbol: 'TDAI', name: 'tDAI TEST', decimals: 18, quantumPlaces: 18, weight: 7 },
];

export function demoAssets(ids: IdSpace): DemoAsset[] {
  return ASSET_PROFILES.map((p, i) => ({
    symbol: p.symbol,
    name: p.name,
    id: ids.hex(IdKind.asset, i),
    decimals: p.decimals,
    quantumPlaces: p.quantumPlaces,
  }));
}

const ASSET_CUMULATIVE = prefixSums(ASSET_PROFILES.map((p) => p.weight));

export function pickAsset(rng: Rng, assets: readonly DemoAsset[]): DemoAsset {
  return assets[rng.weighted(ASSET_CUMULATIVE, ASSET_CUMULATIVE.length)] as DemoAsset;
}

/** Reward account types of payouts without a game, with their share of those payouts. */
const NON_GAME_REWARD_TYPES: readonly { type: string; weight: number }[] = [
  { type: 'ACCOUNT_TYPE_GLOBAL_REWARD', weight: 34 },
  { type: 'ACCOUNT_TYPE_REWARD_MAKER_PAID_FEES', weight: 14 },
  { type: 'ACCOUNT_TYPE_REWARD_MAKER_RECEIVED_FEES', weight: 14 },
  { type: 'ACCOUNT_TYPE_REWARD_LP_RECEIVED_FEES', weight: 12 },
  { type: 'ACCOUNT_TYPE_REWARD_MARKET_PROPOSERS', weight: 2 },
  { type: 'ACCOUNT_TYPE_REWARD_AVERAGE_NOTIONAL', weight: 7 },
  { type: 'ACCOUNT_TYPE_REWARD_RELATIVE_RETURN', weight: 6 },
  { type: 'ACCOUNT_TYPE_REWARD_RETURN_VOLATILITY', weight: 5 },
  { type: 'ACCOUNT_TYPE_REWARD_VALIDATOR_RANKING', weight: 6 },
];
const NON_GAME_CUMULATIVE = prefixSums(NON_GAME_REWARD_TYPES.map((t) => t.weight));

export const VALIDATOR_RANKING = 'ACCOUNT_TYPE_REWARD_VALIDATOR_RANKING';
export const GLOBAL_REWARD = 'ACCOUNT_TYPE_GLOBAL_REWARD';

export function pickNonGameRewardType(rng: Rng): string {
  return (NON_GAME_REWARD_TYPES[rng.weighted(NON_GAME_CUMULATIVE, NON_GAME_CUMULATIVE.length)] as { type: string }).type;
}

/** Dispatch metrics that games use, with the reward account they pay from. */
const GAME_METRICS: readonly { metric: string; rewardType: string; teams: boolean }[] = [
  { metric: 'DISPATCH_METRIC_AVERAGE_NOTIONAL', rewardType: 'ACCOUNT_TYPE_REWARD_AVERAGE_NOTIONAL', teams: true },
  { metric: 'DISPATCH_METRIC_RELATIVE_RETURN', rewardType: 'ACCOUNT_TYPE_REWARD_RELATIVE_RETURN', teams: true },
  { metric: 'DISPATCH_METRIC_RETURN_VOLATILITY', rewardType: 'ACCOUNT_TYPE_REWARD_RETURN_VOLATILITY', teams: true },
  { metric: 'DISPATCH_METRIC_MAKER_FEES_PAID', rewardType: 'ACCOUNT_TYPE_REWARD_MAKER_PAID_FEES', teams: true },
  { metric: 'DISPATCH_METRIC_MAKER_FEES_RECEIVED', rewardType: 'ACCOUNT_TYPE_REWARD_MAKER_RECEIVED_FEES', teams: true },
  { metric: 'DISPATCH_METRIC_LP_FEES_RECEIVED', rewardType: 'ACCOUNT_TYPE_REWARD_LP_RECEIVED_FEES', teams: false },
  { metric: 'DISPATCH_METRIC_MARKET_VALUE', rewardType: 'ACCOUNT_TYPE_REWARD_MARKET_PROPOSERS', teams: false },
  { metric: 'DISPATCH_METRIC_VALIDATOR_RANKING', rewardType: 'ACCOUNT_TYPE_REWARD_VALIDATOR_RANKING', teams: false },
];
const TEAM_METRICS = GAME_METRICS.filter((m) => m.teams);

export interface DemoGame {
  index: number;
  id: string;
  metric: string;
  rewardType: string;
  /** Asset the rewards are paid in. */
  asset: DemoAsset;
  /** Asset the metric is measured in. */
  assetForMetric: DemoAsset;
  windowLength: number;
  distribution: string;
  nTopPerformers: string;
  individualScope: string;
  /** Epoch of its first recurring transfer. */
  startEpoch: number;
  /** Scope of the latest recurring transfer emitted so far (what ingestion will remember). */
  teamScoped: boolean;
  /** Whether a transfer has been emitted yet (no payouts before that). */
  started: boolean;
}

/** Games: a third start in epoch 1, the rest at random epochs in the first 80% of the chain. */
export function demoGames(
  rng: Rng,
  ids: IdSpace,
  assets: readonly DemoAsset[],
  count: number,
  epochs: number,
  teamShare: number,
): DemoGame[] {
  const games: DemoGame[] = [];
  const lastStart = Math.max(1, Math.floor(epochs * 0.8));
  for (let i = 0; i < count; i++) {
    const teamScoped = rng.chance(teamShare);
    const m = teamScoped ? rng.pick(TEAM_METRICS) : rng.pick(GAME_METRICS);
    games.push({
      index: i,
      id: ids.hex(IdKind.game, i),
      metric: m.metric,
      rewardType: m.rewardType,
      asset: pickAsset(rng, assets),
      assetForMetric: assets[1 + rng.int(2)] as DemoAsset, // a settlement asset (USDT/USDC)
      windowLength: rng.pick([1, 1, 1, 3, 5, 7]),
      distribution: rng.chance(0.7) ? 'DISTRIBUTION_STRATEGY_PRO_RATA' : 'DISTRIBUTION_STRATEGY_RANK',
      nTopPerformers: rng.pick(['0.1', '0.25', '0.5', '1']),
      individualScope: rng.pick([
        'INDIVIDUAL_SCOPE_ALL',
        'INDIVIDUAL_SCOPE_ALL',
        'INDIVIDUAL_SCOPE_IN_TEAM',
        'INDIVIDUAL_SCOPE_NOT_IN_TEAM',
      ]),
      startEpoch: i < Math.ceil(count / 3) ? 1 : rng.range(1, lastStart),
      teamScoped,
      started: false,
    });
  }
  return games;
}

function prefixSums(weights: readonly number[]): Float64Array {
  const out = new Float64Array(weights.length);
  let sum = 0;
  weights.forEach((w, i) => {
    sum += w;
    out[i] = sum;
  });
  return out;
}
