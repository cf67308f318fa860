import type { Queryable } from '../../db/store.js';
import type { EventHandlers, Projection } from './projection.js';

/**
 * The rewards each party generated for referrers per epoch (referral_generated_rewards; family.md
 * §5.1): every FeesStats generatedReward entry adds its quantum amount, over every market, asset
 * and referrer. Summed by PostgreSQL's numeric: the amounts are decimals.
 */
export class ReferralGeneratedRewards implements Projection {
  readonly model = 'referral-generated-rewards';
  private readonly parties: string[] = [];
  private readonly epochs: string[] = [];
  private readonly amounts: string[] = [];

  readonly folds: EventHandlers = {
    feesStats: (e) => {
      for (const g of e.generated) {
        this.parties.push(g.party);
        this.epochs.push(String(e.epoch));
        this.amounts.push(g.quantumAmount);
      }
    },
  };

  async write(tx: Queryable): Promise<void> {
    if (this.parties.length === 0) return;
    await tx.query(
      `INSERT INTO referral_generated_rewards AS g (party, epoch, amount)
       SELECT decode(p, 'hex'), e, sum(a) FROM unnest($1::text[], $2::int8[], $3::numeric[]) AS u(p, e, a) GROUP BY p, e
       ON CONFLICT (party, epoch) DO UPDATE SET amount = g.amount + excluded.amount`,
      [this.parties, this.epochs, this.amounts],
    );
  }
}
