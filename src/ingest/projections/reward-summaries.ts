import type { Queryable } from '../../db/store.js';
import type { EventHandlers, Projection } from './projection.js';

/** Epoch reward summaries keyed (epoch, asset, market, reward type), incremented per payout (epoch_reward_summaries). */
export class RewardSummaries implements Projection {
  readonly model = 'reward-summaries';
  private readonly sums = new Map<string, { epoch: bigint; asset: string; rewardType: string; amount: bigint }>();

  readonly folds: EventHandlers = {
    rewardPayout: (e) => {
      const key = `${e.epoch}/${e.asset}/${e.rewardType}`;
      const sum = this.sums.get(key);
      if (sum) sum.amount += e.amount;
      else this.sums.set(key, { epoch: e.epoch, asset: e.asset, rewardType: e.rewardType, amount: e.amount });
    },
  };

  async write(tx: Queryable): Promise<void> {
    if (this.sums.size === 0) return;
    const s = [...this.sums.values()];
    // Payout events carry no market, so every summary's market is the empty id.
    await tx.query(
      `INSERT INTO epoch_reward_summaries AS s (epoch, asset_id, market_id, reward_type, amount)
       SELECT e, decode(a, 'hex'), ''::bytea, t, v FROM unnest($1::int8[], $2::text[], $3::text[], $4::numeric[]) AS u(e, a, t, v)
       ON CONFLICT (epoch, asset_id, market_id, reward_type) DO UPDATE SET amount = s.amount + excluded.amount`,
      [s.map((x) => String(x.epoch)), s.map((x) => x.asset), s.map((x) => x.rewardType), s.map((x) => String(x.amount))],
    );
  }
}
