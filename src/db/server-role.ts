import type { Queryable } from './store.js';

/**
 * What a PostgreSQL server is to us: the primary, which takes writes and announces new blocks
 * (NOTIFY), or a hot standby (a streaming replica), which only replays the primary's WAL, takes
 * no writes and refuses LISTEN.
 */
export type ServerRole = 'primary' | 'standby';

export interface RoleState {
  role: ServerRole;
  /**
   * On a standby: WAL bytes received from the primary and not replayed yet (receive LSN − replay
   * LSN), so 0 once replay has caught up with what arrived; null while nothing was streamed
   * since the standby started. Bytes rather than seconds (now() − the last replayed commit):
   * both are cheap, but the seconds grow without bound while the primary is idle, which would
   * make a standby that is perfectly up to date look behind.
   */
  replayLagBytes: number | null;
}

/** Columns `standby` (boolean) and `replay_lag_bytes` (text or null) for a SELECT list. */
export const ROLE_COLUMNS = `pg_is_in_recovery() AS standby,
  CASE WHEN pg_is_in_recovery() THEN GREATEST(0, pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()))::text END AS replay_lag_bytes`;

export interface RoleRow {
  standby: boolean;
  replay_lag_bytes: string | null;
}

export function roleOf(row: RoleRow): RoleState {
  return { role: row.standby ? 'standby' : 'primary', replayLagBytes: row.replay_lag_bytes === null ? null : Number(row.replay_lag_bytes) };
}

/** A write was pointed at a hot standby: it can only go to the primary. */
export class StandbyWriteError extends Error {
  override name = 'StandbyWriteError';
  constructor(location: string, who: string) {
    super(`${location} is a hot standby (read-only); point ${who} at the primary`);
  }
}

/** Throws StandbyWriteError unless the server is a primary (`who` names the writer in the message). */
export async function assertPrimary(db: Queryable, location: string, who: string): Promise<void> {
  const [row] = await db.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
  if (row?.standby) throw new StandbyWriteError(location, who);
}
