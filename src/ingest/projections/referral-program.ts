import type { Queryable } from '../../db/store.js';
import type { ReferralProgram as Program } from '../../sources/events.js';
import type { EventHandlers, Projection } from './projection.js';

/** Truncates Unix ns to whole microseconds, as the reference stores timestamps. */
const toMicros = (ns: bigint) => ns - (ns % 1000n);

/**
 * The current referral program (referral_program, one row; family.md §5.7): Started or Updated
 * replace it, Ended sets its version and end time, and is ignored with no program.
 */
export class ReferralProgram implements Projection {
  readonly model = 'referral-program';
  /** The batch's last program replacing the stored one, if any. */
  private program: Program | null = null;
  /** The batch's last end after that replacement (or after the stored program). */
  private ended: { version: bigint; endedAt: bigint } | null = null;

  readonly folds: EventHandlers = {
    referralProgramStarted: (e) => this.replace(e.program),
    referralProgramUpdated: (e) => this.replace(e.program),
    referralProgramEnded: (e) => {
      this.ended = { version: e.version, endedAt: toMicros(e.endedAt) };
    },
  };

  private replace(program: Program) {
    this.program = program;
    this.ended = null;
  }

  async write(tx: Queryable): Promise<void> {
    const p = this.program;
    if (p !== null) {
      await tx.query(
        `INSERT INTO referral_program (singleton, id, version, benefit_tiers, end_of_program, window_length, staking_tiers, ended_at)
         VALUES (true, decode($1, 'hex'), $2, $3, $4, $5, $6, NULL)
         ON CONFLICT (singleton) DO UPDATE SET id = excluded.id, version = excluded.version, benefit_tiers = excluded.benefit_tiers,
           end_of_program = excluded.end_of_program, window_length = excluded.window_length, staking_tiers = excluded.staking_tiers,
           ended_at = NULL`,
        [
          p.id,
          String(p.version),
          JSON.stringify(p.benefitTiers),
          String(p.endOfProgram),
          String(p.windowLength),
          JSON.stringify(p.stakingTiers),
        ],
      );
    }
    if (this.ended !== null) {
      // No row: no program yet, and the end is ignored.
      await tx.query(`UPDATE referral_program SET version = $1, ended_at = $2`, [String(this.ended.version), String(this.ended.endedAt)]);
    }
  }
}
