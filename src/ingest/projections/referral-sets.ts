import type { Queryable } from '../../db/store.js';
import { Overlay, type EventHandlers, type Projection, toMicros } from './projection.js';

interface RefereeState {
  setId: string;
  atEpoch: bigint;
  joinedAt: bigint;
}

/** Referral sets with their referee counts, and each referee's current set (referral_sets, referral_set_referees). */
export class ReferralSets implements Projection {
  readonly model = 'referral-sets';
  private readonly referees = new Overlay({
    table: 'referral_set_referees',
    key: 'referee',
    columns: `encode(set_id, 'hex') AS set_id, at_epoch::text, joined_at::text`,
    value: (r: { set_id: string; at_epoch: string; joined_at: string }): RefereeState => ({
      setId: r.set_id,
      atEpoch: BigInt(r.at_epoch),
      joinedAt: BigInt(r.joined_at),
    }),
  });
  private readonly newSets = new Map<string, { referrer: string; createdAt: bigint; updatedAt: bigint }>();
  private readonly setDeltas = new Map<string, bigint>();

  readonly touches: EventHandlers = {
    refereeJoinedReferralSet: (e) => this.referees.want(e.referee),
  };

  readonly folds: EventHandlers = {
    referralSetCreated: (e) => {
      // A set is created once; a repeated creation keeps the first.
      if (!this.newSets.has(e.setId)) {
        this.newSets.set(e.setId, { referrer: e.referrer, createdAt: toMicros(e.createdAt), updatedAt: toMicros(e.updatedAt) });
      }
    },
    refereeJoinedReferralSet: (e) => {
      const current = this.referees.get(e.referee);
      // The current set is the latest join by epoch; on a tie the later event wins.
      if (current && e.atEpoch < current.atEpoch) return;
      if (current?.setId !== e.setId) {
        if (current) this.addSetDelta(current.setId, -1n);
        this.addSetDelta(e.setId, 1n);
      }
      this.referees.set(e.referee, { setId: e.setId, atEpoch: e.atEpoch, joinedAt: toMicros(e.joinedAt) });
    },
  };

  preload(tx: Queryable): Promise<void> {
    return this.referees.preload(tx);
  }

  private addSetDelta(setId: string, d: bigint) {
    this.setDeltas.set(setId, (this.setDeltas.get(setId) ?? 0n) + d);
  }

  async write(tx: Queryable): Promise<void> {
    if (this.referees.changed.size > 0) {
      const ids = [...this.referees.changed];
      const states = ids.map((id) => this.referees.get(id)!);
      await tx.query(
        `INSERT INTO referral_set_referees (referee, set_id, at_epoch, joined_at)
         SELECT decode(r, 'hex'), decode(s, 'hex'), e, j FROM unnest($1::text[], $2::text[], $3::int8[], $4::int8[]) AS u(r, s, e, j)
         ON CONFLICT (referee) DO UPDATE SET set_id = excluded.set_id, at_epoch = excluded.at_epoch, joined_at = excluded.joined_at`,
        [ids, states.map((s) => s.setId), states.map((s) => String(s.atEpoch)), states.map((s) => String(s.joinedAt))],
      );
    }
    // New sets count their referees as the referee map now stands (joins may precede creation);
    // sets that already existed get this batch's changes as deltas.
    const inserted = new Set<string>();
    if (this.newSets.size > 0) {
      const ids = [...this.newSets.keys()];
      const sets = [...this.newSets.values()];
      const rows = await tx.query<{ id: string }>(
        `INSERT INTO referral_sets (id, referrer, created_at, updated_at, referee_count)
         SELECT decode(i, 'hex'), decode(r, 'hex'), c, u,
                (SELECT count(*) FROM referral_set_referees x WHERE x.set_id = decode(i, 'hex'))
           FROM unnest($1::text[], $2::text[], $3::int8[], $4::int8[]) AS t(i, r, c, u)
         ON CONFLICT (id) DO NOTHING
         RETURNING encode(id, 'hex') AS id`,
        [ids, sets.map((s) => s.referrer), sets.map((s) => String(s.createdAt)), sets.map((s) => String(s.updatedAt))],
      );
      for (const r of rows) inserted.add(r.id);
    }
    const deltas = [...this.setDeltas].filter(([id, d]) => d !== 0n && !inserted.has(id));
    if (deltas.length > 0) {
      await tx.query(
        `UPDATE referral_sets s SET referee_count = s.referee_count + d.delta
           FROM unnest($1::text[], $2::int8[]) AS d(id, delta) WHERE s.id = decode(d.id, 'hex')`,
        [deltas.map(([id]) => id), deltas.map(([, d]) => String(d))],
      );
    }
  }
}
