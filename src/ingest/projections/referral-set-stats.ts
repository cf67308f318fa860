import type { Queryable } from '../../db/store.js';
import type { EventOf, EventHandlers, Projection } from './projection.js';

type SetStats = EventOf<'referralSetStatsUpdated'> & { blockTime: bigint };

/**
 * Each referral set's statistics per epoch and its referees' entries (referral_set_epochs,
 * referral_set_referee_stats; family.md §5.2, §11): a repeated event for the same set and epoch
 * replaces the earlier one, its referee rows included.
 */
export class ReferralSetStats implements Projection {
  readonly model = 'referral-set-stats';
  /** The batch's events by (epoch, set), the later replacing the earlier. */
  private readonly sets = new Map<string, SetStats>();

  readonly folds: EventHandlers = {
    referralSetStatsUpdated: (e, block) => {
      this.sets.set(`${e.atEpoch}/${e.setId}`, { ...e, blockTime: block.time });
    },
  };

  async write(tx: Queryable): Promise<void> {
    if (this.sets.size === 0) return;
    const sets = [...this.sets.values()];
    const epochs = sets.map((s) => String(s.atEpoch));
    const ids = sets.map((s) => s.setId);
    const json = (v: object | null) => (v === null ? null : JSON.stringify(v));
    await tx.query(
      `DELETE FROM referral_set_referee_stats AS r USING unnest($1::int8[], $2::text[]) AS k(e, s)
        WHERE r.epoch = k.e AND r.set_id = decode(k.s, 'hex')`,
      [epochs, ids],
    );
    await tx.query(
      `INSERT INTO referral_set_epochs AS x (epoch, set_id, block_time, running_volume, rewards_multiplier, was_eligible,
                                            referrer_taker_volume, reward_factors, reward_factors_multiplier)
       SELECT e, decode(s, 'hex'), t, v, m, w, r, f::json, fm::json
         FROM unnest($1::int8[], $2::text[], $3::int8[], $4::text[], $5::text[], $6::bool[], $7::text[], $8::text[], $9::text[])
           AS u(e, s, t, v, m, w, r, f, fm)
       ON CONFLICT (epoch, set_id) DO UPDATE SET block_time = excluded.block_time, running_volume = excluded.running_volume,
         rewards_multiplier = excluded.rewards_multiplier, was_eligible = excluded.was_eligible,
         referrer_taker_volume = excluded.referrer_taker_volume, reward_factors = excluded.reward_factors,
         reward_factors_multiplier = excluded.reward_factors_multiplier`,
      [
        epochs,
        ids,
        sets.map((s) => String(s.blockTime)),
        sets.map((s) => s.runningVolume),
        sets.map((s) => s.rewardsMultiplier),
        sets.map((s) => s.wasEligible),
        sets.map((s) => s.referrerTakerVolume),
        sets.map((s) => json(s.rewardFactors)),
        sets.map((s) => json(s.rewardFactorsMultiplier)),
      ],
    );
    // One row per party of an event: a party listed twice keeps its last entry.
    const rows = sets.flatMap((s) => [...new Map(s.referees.map((r) => [r.partyId, r])).values()].map((r) => ({ s, r })));
    if (rows.length === 0) return;
    await tx.query(
      `INSERT INTO referral_set_referee_stats (epoch, set_id, party, volume, volume_value, discount_factors)
       SELECT e, decode(s, 'hex'), decode(p, 'hex'), v, n, d::json
         FROM unnest($1::int8[], $2::text[], $3::text[], $4::text[], $5::numeric[], $6::text[]) AS u(e, s, p, v, n, d)`,
      [
        rows.map((x) => String(x.s.atEpoch)),
        rows.map((x) => x.s.setId),
        rows.map((x) => x.r.partyId),
        rows.map((x) => x.r.volume),
        rows.map((x) => x.r.volumeValue),
        rows.map((x) => json(x.r.discountFactors)),
      ],
    );
  }
}
