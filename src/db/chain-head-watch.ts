import { parseHeadState, type HeadState } from './read-models.js';
import { ROLE_COLUMNS, roleOf, type RoleRow, type RoleState, type ServerRole } from './server-role.js';
import type { Store } from './store.js';

/** The channel migration 004's trigger announces chain head changes on (with migration 010's state). */
export const CHAIN_HEAD_CHANNEL = 'epochview_head';

/**
 * How often the head is read besides the notices: a safety net for notices lost without the
 * listening connection noticing (a connection dropped silently by the network, say).
 */
export const HEAD_RECHECK_MS = 1000;

/**
 * How often the head is read on a hot standby, which refuses LISTEN: the head is then known
 * from reading it alone. One read (a one-row table and functions reading shared memory) takes
 * the standby 0.02 to 0.05 ms to plan and run, 0.07 to 0.15 ms round trip (bench/standby.ts), so five
 * a second cost each serve instance about 0.02% of a core there; an answer can lag the standby's
 * replay by up to this much.
 */
export const STANDBY_POLL_MS = 200;

export interface HeadWatchOptions {
  recheckMs?: number;
  standbyPollMs?: number;
  /** A PostgreSQL server's role and replay lag, as each read finds them (not called for PGlite). */
  onRole?: (state: RoleState) => void;
}

/**
 * Tells onHead the store's chain head and read model versions whenever they change; null while
 * they are not known (no head at all, or the store cannot tell). On a primary (and PGlite), notices
 * of the store tell at once; the head is also read when listening starts (after LISTEN, so no
 * change between the two goes unheard) and every recheckMs, and it is unknown while not
 * listening. A read that a notice overtook is dropped, since the notice is newer. On a hot
 * standby the head is read every standbyPollMs instead. Each read also says which the server is,
 * so a standby promoted to primary starts listening, and a server that became a standby stops.
 * Resolves once the head was first read (or that failed); stop with the returned function.
 */
export async function watchChainHead(
  store: Store,
  onHead: (state: HeadState | null) => void,
  opts: HeadWatchOptions = {},
): Promise<() => Promise<void>> {
  const recheckMs = opts.recheckMs ?? HEAD_RECHECK_MS;
  const pollMs = opts.standbyPollMs ?? STANDBY_POLL_MS;
  // PGlite is in this process: always the primary, and its notices are never lost.
  const hasRole = store.kind === 'postgres';
  const sql = `SELECT chain_head_state() AS state${hasRole ? `, ${ROLE_COLUMNS}` : ''}`;
  let mode: ServerRole | 'unknown' = hasRole ? 'unknown' : 'primary';
  // Counts notices, connection and role changes; a read is only believed if none came while it ran.
  let changes = 0;
  let listening = false;
  let stopListening: (() => Promise<void>) | undefined;
  let firstListenRead: Promise<void> | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const read = async (): Promise<void> => {
    const at = changes;
    const row = await store.query<{ state: string | null } & RoleRow>(sql).then(
      (rows) => rows[0],
      () => undefined, // The store's failures reach the requests themselves.
    );
    if (stopped) return;
    if (row === undefined) {
      if (!listening) onHead(null);
      return;
    }
    if (hasRole) {
      const state = roleOf(row);
      opts.onRole?.(state);
      if (state.role !== mode) {
        mode = state.role;
        changes++;
        if (mode === 'standby') {
          await stopListen();
          onHead(parseHeadState(row.state));
        } else await startListen(); // Its first read tells the head.
        return;
      }
    }
    if (at === changes && (mode === 'standby' || listening)) onHead(parseHeadState(row.state));
  };

  const startListen = async (): Promise<void> => {
    stopListening = await store.listen(CHAIN_HEAD_CHANNEL, {
      onNotify(payload) {
        changes++;
        onHead(parseHeadState(payload));
      },
      onListening(now) {
        changes++;
        listening = now;
        onHead(null);
        if (now) {
          const reading = read();
          firstListenRead ??= reading;
        }
      },
    });
    await firstListenRead;
  };

  const stopListen = async (): Promise<void> => {
    const stop = stopListening;
    stopListening = undefined;
    listening = false;
    firstListenRead = undefined;
    await stop?.();
  };

  // One read at a time: on the embedded store a read waits while a long transaction runs.
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void read().finally(schedule), mode === 'primary' ? recheckMs : pollMs).unref();
  };

  if (mode === 'primary') await startListen();
  else await read();
  schedule();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await stopListen();
  };
}
