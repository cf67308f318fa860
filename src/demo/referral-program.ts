// The referral program and what core emits while it runs (family.md §10): the program started,
// then updated, at an epoch START, and ended at the chain's last START (its end time passed), and at every epoch END a ReferralSetStatsUpdated per set in
// set id order (sets without referees too) while it runs, and FeesStats per market with the
// referrer rewards its referees generated. Drawn from a random stream of its own, so that the
// chain's other events are those of a chain without it.

import { IdKind, type IdSpace, Rng } from './random.js';

/** Markets the fee statistics are per. */
const MARKETS = 3;
/** The program runs over the chain's last epochs (at most this many), from epoch 2 on. */
const PROGRAM_EPOCHS = 30;
/** Share of a set's referees trading in an epoch. */
const ACTIVE_SHARE = 0.3;

interface Tier {
  volume: number;
  epochs: number;
  reward: string;
  discount: string;
}

const TIERS_V1: readonly Tier[] = [
  { volume: 10_000, epochs: 1, reward: '0.01', discount: '0.01' },
  { volume: 1_000_000, epochs: 3, reward: '0.02', discount: '0.015' },
  { volume: 50_000_000, epochs: 7, reward: '0.03', discount: '0.02' },
];
const TIERS_V2: readonly Tier[] = [
  { volume: 10_000, epochs: 1, reward: '0.0100', discount: '0.01' },
  { volume: 1_000_000, epochs: 2, reward: '0.025', discount: '0.015' },
  { volume: 50_000_000, epochs: 5, reward: '0.035', discount: '0.025' },
];

const rewardFactors = (f: string) => `{"infrastructureRewardFactor":"${f}","liquidityRewardFactor":"${f}","makerRewardFactor":"${f}"}`;
const discountFactors = (f: string) =>
  `{"infrastructureDiscountFactor":"${f}","liquidityDiscountFactor":"${f}","makerDiscountFactor":"${f}"}`;

/** Micro-units as a decimal string with no trailing fractional zeros. */
function micros(n: number): string {
  const whole = Math.floor(n / 1_000_000);
  const fraction = String(n % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return fraction === '' ? String(whole) : `${whole}.${fraction}`;
}

/** What the builder knows of the referral sets at an epoch's end. */
export interface SetsAtEnd {
  sets: number;
  referees: number;
  /** Each referee's current set. */
  currentSets: Readonly<Int32Array>;
  setId(set: number): string;
  referrer(set: number): string;
  referee(referee: number): string;
}

export class ReferralProgramModel {
  private readonly rng: Rng;
  private readonly id: string;
  private readonly markets: string[];
  readonly startEpoch: number;
  readonly updateEpoch: number;
  /** The chain's last START (epoch E+1), once the program's end time has passed: it ends. */
  readonly endEpoch: number;
  private tiers: readonly Tier[] = TIERS_V1;
  private windowLength = 3;
  /** Each set's volume per epoch of the window, newest last. */
  private readonly setVolumes = new Map<number, number[]>();

  constructor(
    seed: number,
    ids: IdSpace,
    epochs: number,
    private readonly endSeconds: number,
    /** The asset the fee statistics are in. */
    private readonly asset: string,
  ) {
    this.rng = new Rng(seed, 2);
    this.id = ids.hex(IdKind.referralProgram, 0);
    this.markets = Array.from({ length: MARKETS }, (_, i) => ids.hex(IdKind.market, i));
    this.startEpoch = Math.max(2, epochs - PROGRAM_EPOCHS + 1);
    this.updateEpoch = Math.max(this.startEpoch + 1, Math.floor((this.startEpoch + epochs) / 2));
    this.endEpoch = epochs + 1;
  }

  /** The program events of epoch `e`'s START block, at `at` (Unix ns). */
  startEvents(e: number, at: string): [key: string, payload: string][] {
    if (e === this.startEpoch) return [['referralProgramStarted', `{"program":${this.program(1)},"startedAt":"${at}","atEpoch":"${e}"}`]];
    if (e === this.updateEpoch) {
      this.tiers = TIERS_V2;
      this.windowLength = 5;
      return [['referralProgramUpdated', `{"program":${this.program(2)},"updatedAt":"${at}","atEpoch":"${e}"}`]];
    }
    if (e === this.endEpoch) return [['referralProgramEnded', `{"version":"3","id":"${this.id}","endedAt":"${at}","atEpoch":"${e}"}`]];
    return [];
  }

  private program(version: number): string {
    const tiers = this.tiers.map(
      (t, i) =>
        `{"minimumRunningNotionalTakerVolume":"${t.volume}","minimumEpochs":"${t.epochs}","referralRewardFactors":${rewardFactors(t.reward)},` +
        `"referralDiscountFactors":${discountFactors(t.discount)},"tierNumber":"${i + 1}"}`,
    );
    const staking =
      '[{"minimumStakedTokens":"1","referralRewardMultiplier":"1"},{"minimumStakedTokens":"10000","referralRewardMultiplier":"1.5"}]';
    // Ends an hour before the chain does (Unix seconds): the chain's last epoch START ends it.
    const end = this.endSeconds - 3_600;
    return `{"version":"${version}","id":"${this.id}","benefitTiers":[${tiers.join(',')}],"endOfProgramTimestamp":"${end}","windowLength":"${this.windowLength}","stakingTiers":${staking}}`;
  }

  /** The events of epoch `e`'s END block after the epoch's end: set statistics while the program runs, then fee statistics. */
  endEvents(e: number, s: SetsAtEnd): [key: string, payload: string][] {
    const running = e >= this.startEpoch;
    const members: number[][] = Array.from({ length: s.sets }, () => []);
    if (running) for (let r = 0; r < s.referees; r++) members[s.currentSets[r] as number]?.push(r);
    const events: [string, string][] = [];
    /** The referees that traded, with their volume, by set. */
    const traded: [referee: number, volume: number][][] = members.map((list) =>
      list.filter(() => this.rng.chance(ACTIVE_SHARE)).map((r) => [r, this.rng.range(1, 5_000) * 100] as [number, number]),
    );
    if (running) {
      const order = Array.from({ length: s.sets }, (_, i) => i).sort((a, b) => (s.setId(a) < s.setId(b) ? -1 : 1));
      for (const set of order) events.push(['referralSetStatsUpdated', this.setStats(e, set, traded[set]!, s)]);
    }
    events.push(...this.feesStats(e, running ? traded : [], s));
    return events;
  }

  private setStats(e: number, set: number, traded: [number, number][], s: SetsAtEnd): string {
    const volume = traded.reduce((sum, [, v]) => sum + v, 0);
    const window = this.setVolumes.get(set) ?? [];
    window.push(volume);
    while (window.length > this.windowLength) window.shift();
    this.setVolumes.set(set, window);
    const runningVolume = window.reduce((a, b) => a + b, 0);
    const tier = [...this.tiers].reverse().find((t) => runningVolume >= t.volume);
    const entries = traded.map(
      ([r, v]) =>
        `{"partyId":"${s.referee(r)}","discountFactor":"","epochNotionalTakerVolume":"${v}","discountFactors":${discountFactors(tier?.discount ?? '0')}}`,
    );
    const factors = rewardFactors(tier?.reward ?? '0');
    return (
      `{"setId":"${s.setId(set)}","atEpoch":"${e}","referralSetRunningNotionalTakerVolume":"${runningVolume}","refereesStats":[${entries.join(',')}],` +
      `"rewardFactor":"","rewardsMultiplier":"1","rewardsFactorMultiplier":"","wasEligible":${tier !== undefined},"referrerTakerVolume":"${this.rng.range(0, 100) * 1000}",` +
      `"rewardFactors":${factors},"rewardFactorsMultiplier":${factors}}`
    );
  }

  /** One FeesStats per market: each trading referee's generated reward in the market they traded on, grouped by referrer. */
  private feesStats(e: number, traded: [number, number][][], s: SetsAtEnd): [string, string][] {
    const byMarket: Map<number, string[]>[] = this.markets.map(() => new Map());
    traded.forEach((list, set) => {
      for (const [r, v] of list) {
        const market = byMarket[this.rng.int(MARKETS)]!;
        const quantum = v * 2; // micro-units: 0.2% of the volume
        const entry = `{"party":"${s.referee(r)}","amount":"${quantum}000000000000","quantumAmount":"${micros(quantum)}"}`;
        market.set(set, [...(market.get(set) ?? []), entry]);
      }
    });
    return this.markets.map((market, m) => {
      const generated = [...byMarket[m]!].map(
        ([set, entries]) => `{"referrer":"${s.referrer(set)}","generatedReward":[${entries.join(',')}]}`,
      );
      return [
        'feesStats',
        `{"market":"${market}","asset":"${this.asset}","epochSeq":"${e}","referrerRewardsGenerated":[${generated.join(',')}]}`,
      ];
    });
  }
}
