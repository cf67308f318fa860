import type { Queryable } from '../../db/store.js';
import type { Block } from '../blocks.js';
import type { EventHandlers, Projection } from './projection.js';

/**
 * The chain head: the last applied block (the ingestion checkpoint), the highest epoch seen
 * ending or carrying team statistics, and the chain's id (chain_head, one row). Written in the
 * batch's transaction, so the checkpoint commits with the blocks it covers.
 */
export class ChainHead implements Projection {
  // Its version follows last_ended_epoch; the height and time change with every block, which
  // answers showing them read as 'block'.
  readonly model = 'chain-head';
  private lastEndedEpoch: bigint | null = null;

  readonly folds: EventHandlers = {
    teamsStatsUpdated: (e) => this.noteEndedEpoch(e.atEpoch),
    epochEvent: (e) => {
      if (e.action === 'EPOCH_ACTION_END') this.noteEndedEpoch(e.seq);
    },
  };

  private noteEndedEpoch(epoch: bigint) {
    if (this.lastEndedEpoch === null || epoch > this.lastEndedEpoch) this.lastEndedEpoch = epoch;
  }

  async write(tx: Queryable, last: Block): Promise<void> {
    await tx.query(
      `INSERT INTO chain_head AS h (singleton, height, block_time, block_hash, last_ended_epoch, chain_id)
       VALUES (true, $1, $2, $3, $4::bigint, nullif($5, ''))
       ON CONFLICT (singleton) DO UPDATE SET height = excluded.height, block_time = excluded.block_time,
         block_hash = excluded.block_hash,
         last_ended_epoch = greatest(h.last_ended_epoch, excluded.last_ended_epoch),
         -- Set once: ingestion refuses blocks of another chain (Ingester).
         chain_id = coalesce(h.chain_id, excluded.chain_id)`,
      [String(last.height), String(last.time), last.hash, this.lastEndedEpoch === null ? null : String(this.lastEndedEpoch), last.chainId],
    );
  }
}
