import type { Store } from './store.js';

/** The channel migration 004's trigger announces chain head changes on. */
export const CHAIN_HEAD_CHANNEL = 'epochview_head';

/**
 * How often the head is read besides the notices: a safety net for notices lost without the
 * listening connection noticing (a connection dropped silently by the network, say).
 */
export const HEAD_RECHECK_MS = 1000;

/**
 * Tells onHead the height of the store's chain head whenever it changes, as text; null while
 * it is not known (not listening, or no head at all). Notices of the store tell at once; the
 * head is also read when listening starts (after LISTEN, so no change between the two goes
 * unheard) and every recheckMs. A read that a notice overtook is dropped, since the notice is
 * newer. Resolves once listening was tried and the head first read; stop with the returned
 * function.
 */
export async function watchChainHead(
  store: Store,
  onHead: (height: string | null) => void,
  recheckMs = HEAD_RECHECK_MS,
): Promise<() => Promise<void>> {
  // Counts notices and connection changes; a read is only believed if none came while it ran.
  let changes = 0;
  let listening = false;
  let firstRead: Promise<void> | undefined;
  const readHead = () => {
    const at = changes;
    return store.query<{ height: string }>('SELECT height::text AS height FROM chain_head').then(
      (rows) => {
        if (at === changes && listening) onHead(rows[0]?.height ?? null);
      },
      () => {}, // The store's failures reach the requests themselves.
    );
  };
  const stop = await store.listen(CHAIN_HEAD_CHANNEL, {
    onNotify(payload) {
      changes++;
      onHead(payload === '' ? null : payload);
    },
    onListening(now) {
      changes++;
      listening = now;
      onHead(null);
      if (now) {
        const reading = readHead();
        firstRead ??= reading;
      }
    },
  });
  await firstRead;
  // One recheck at a time: on the embedded store a read waits while a long transaction runs.
  let rechecking = false;
  const recheck = setInterval(() => {
    if (rechecking || !listening) return;
    rechecking = true;
    void readHead().finally(() => (rechecking = false));
  }, recheckMs).unref();
  return async () => {
    clearInterval(recheck);
    await stop();
  };
}
