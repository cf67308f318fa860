// In-memory model of referral sets: which sets exist and which set each referee is in.

import type { Rng } from './random.js';

/** Popularity of a set: Pareto(1) capped, so a few sets gather many referees. */
const MAX_SET_WEIGHT = 400;

export class ReferralModel {
  /** Sets created so far (set index = creation order). */
  sets = 0;
  /** Referees joined so far (referee index = order of first join). */
  referees = 0;

  private readonly cumulative: Float64Array;
  private readonly refereeSet: Int32Array;

  constructor(
    private readonly rng: Rng,
    maxSets: number,
    maxReferees: number,
  ) {
    this.cumulative = new Float64Array(maxSets);
    this.refereeSet = new Int32Array(maxReferees).fill(-1);
  }

  get full(): boolean {
    return this.sets >= this.cumulative.length;
  }

  /** Each referee's current set, by referee index (the first `referees` entries). */
  get currentSets(): Readonly<Int32Array> {
    return this.refereeSet;
  }

  /** Creates a set; returns its index. */
  createSet(): number {
    const set = this.sets;
    if (set >= this.cumulative.length) throw new Error('referral set capacity exceeded');
    const u = 1 - this.rng.float(); // (0, 1]
    const weight = Math.min(1 / u, MAX_SET_WEIGHT);
    this.cumulative[set] = (set === 0 ? 0 : (this.cumulative[set - 1] as number)) + weight;
    this.sets++;
    return set;
  }

  /** A new referee joins a set picked by popularity; undefined when no set exists or all joined. */
  joinNew(): { referee: number; set: number } | undefined {
    if (this.sets === 0 || this.referees >= this.refereeSet.length) return undefined;
    const referee = this.referees++;
    const set = this.rng.weighted(this.cumulative, this.sets);
    this.refereeSet[referee] = set;
    return { referee, set };
  }

  /** An existing referee joins another set (that moves them); undefined if impossible. */
  switchRandom(): { referee: number; set: number } | undefined {
    if (this.sets < 2 || this.referees === 0) return undefined;
    const referee = this.rng.int(this.referees);
    const current = this.refereeSet[referee] as number;
    let set = this.rng.weighted(this.cumulative, this.sets);
    for (let tries = 0; set === current && tries < 8; tries++) {
      set = this.rng.weighted(this.cumulative, this.sets);
    }
    if (set === current) set = (current + 1) % this.sets;
    this.refereeSet[referee] = set;
    return { referee, set };
  }
}
