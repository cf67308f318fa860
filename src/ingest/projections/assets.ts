import type { Queryable } from '../../db/store.js';
import type { EventHandlers, EventOf, Projection } from './projection.js';

/**
 * Assets (assets): each asset as its latest asset event describes it. An asset is announced again
 * whenever its status changes, with its details; the latest event wins, so a batch keeps the last
 * event per asset and writes it over what is stored. For display only: no API answer reads it.
 */
export class Assets implements Projection {
  readonly model = 'assets';
  private readonly latest = new Map<string, EventOf<'asset'>>();

  readonly folds: EventHandlers = {
    asset: (e) => {
      this.latest.set(e.id, e);
    },
  };

  async write(tx: Queryable): Promise<void> {
    if (this.latest.size === 0) return;
    const assets = [...this.latest.values()];
    await tx.query(
      `INSERT INTO assets (id, name, symbol, decimals, quantum, status)
       SELECT decode(i, 'hex'), n, s, d::numeric, q::numeric, st
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS u(i, n, s, d, q, st)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, symbol = excluded.symbol, decimals = excluded.decimals,
                                      quantum = excluded.quantum, status = excluded.status`,
      [
        assets.map((a) => a.id),
        assets.map((a) => a.name),
        assets.map((a) => a.symbol),
        assets.map((a) => String(a.decimals)),
        assets.map((a) => a.quantum),
        assets.map((a) => a.status),
      ],
    );
  }
}
