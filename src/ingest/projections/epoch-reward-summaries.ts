import type { Queryable } from '../../db/store.js';
import type { EventHandlers, Projection } from './projection.js';

interface Sum {
  epoch: bigint;
  asset: string;
  rewardType: string;
  amount: bigint;
}

/** Epoch reward summaries keyed (epoch, asset, market, reward type), incremented per payout (epoch_reward_summaries). */
export class EpochRewardSummaries implements Projection {
  readonly model = 'epoch-reward-summaries';
  /**
   * The sums in the order first met, found by epoch, asset and type: nearly every applied event
   * is a payout, and a key string made of the three per event cost more than the rest of the fold.
   */
  private readonly sums: Sum[] = [];
  private readonly byEpoch = new Map<bigint, Map<string, Map<string, Sum>>>();

  readonly folds: EventHandlers = {
    rewardPayout: (e) => {
      let byAsset = this.byEpoch.get(e.epoch);
      if (!byAsset) {
        byAsset = new Map();
        this.byEpoch.set(e.epoch, byAsset);
      }
      let byType = byAsset.get(e.asset);
      if (!byType) {
        byType = new Map();
        byAsset.set(e.asset, byType);
      }
      const sum = byType.get(e.rewardType);
      if (sum) sum.amount += e.amount;
      else {
        const added = { epoch: e.epoch, asset: e.asset, rewardType: e.rewardType, amount: e.amount };
        byType.set(e.rewardType, added);
        this.sums.push(added);
      }
    },
  };

  async write(tx: Queryable): Promise<void> {
    if (this.sums.length === 0) return;
    const s = this.sums;
    // Payout events carry no market, so every summary's market is the empty id.
    await tx.query(
      `INSERT INTO epoch_reward_summaries AS s (epoch, asset_id, market_id, reward_type, amount)
       SELECT e, decode(a, 'hex'), ''::bytea, t, v FROM unnest($1::int8[], $2::text[], $3::text[], $4::numeric[]) AS u(e, a, t, v)
       ON CONFLICT (epoch, asset_id, market_id, reward_type) DO UPDATE SET amount = s.amount + excluded.amount`,
      [s.map((x) => String(x.epoch)), s.map((x) => x.asset), s.map((x) => x.rewardType), s.map((x) => String(x.amount))],
    );
  }
}
