// Spreading totals over epochs: how many of each action happen in each epoch.

import type { Rng } from './random.js';

export interface SpreadOptions {
  /** How many of the total happen in epoch 1 before the rest is spread (default 0). */
  inFirstEpoch?: number;
  /** First epoch of the spread (default 1). */
  from?: number;
  /** Last epoch of the spread (default the last epoch). */
  to?: number;
}

/**
 * Splits `total` over epochs 1..epochs (index 0 unused) with noisy weights that ramp up over
 * the first quarter of the chain (a network growing, then steady). The counts sum to `total`.
 */
export function spreadOverEpochs(rng: Rng, total: number, epochs: number, opts: SpreadOptions = {}): Int32Array {
  const counts = new Int32Array(epochs + 1);
  const first = Math.min(total, opts.inFirstEpoch ?? 0);
  counts[1] = first;
  const rest = total - first;
  const from = Math.max(1, opts.from ?? 1);
  const to = Math.min(epochs, opts.to ?? epochs);
  if (rest === 0) return counts;
  if (to < from) {
    counts[1] += rest;
    return counts;
  }
  const ramp = Math.max(1, Math.floor(epochs / 4));
  const weights = new Float64Array(epochs + 1);
  let sum = 0;
  for (let e = from; e <= to; e++) {
    const growth = 0.4 + 0.6 * Math.min(1, e / ramp);
    weights[e] = growth * (0.5 + rng.float());
    sum += weights[e] as number;
  }
  let cumulative = 0;
  let assigned = 0;
  for (let e = from; e <= to; e++) {
    cumulative += weights[e] as number;
    const upTo = e === to ? rest : Math.round((rest * cumulative) / sum);
    counts[e] = (counts[e] as number) + (upTo - assigned);
    assigned = upTo;
  }
  return counts;
}
