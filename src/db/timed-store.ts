import { StoreUnavailableError, type ListenHandlers, type Queryable, type SqlParam, type Store, type Until } from './store.js';

/** A standalone statement, or a whole transaction (all its statements and the commit). */
export type StoreCallKind = 'query' | 'transaction';
export type StoreCallOutcome = 'ok' | 'error' | 'unavailable';
export type StoreObserver = (kind: StoreCallKind, seconds: number, outcome: StoreCallOutcome) => void;

const TIMED = Symbol('timed store');

/**
 * The one place store calls are timed: a Store that reports how long each query and each
 * transaction took, and how it ended, to `observe` (the metrics). Everything else delegates.
 * Wrapping an already timed store returns it unchanged, so no call is counted twice.
 */
export function timedStore(store: Store, observe: StoreObserver): Store {
  if ((store as { [TIMED]?: boolean })[TIMED]) return store;
  const timed = async <T>(kind: StoreCallKind, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      const result = await run();
      observe(kind, (performance.now() - started) / 1000, 'ok');
      return result;
    } catch (err) {
      observe(kind, (performance.now() - started) / 1000, err instanceof StoreUnavailableError ? 'unavailable' : 'error');
      throw err;
    }
  };
  return {
    [TIMED]: true,
    kind: store.kind,
    location: store.location,
    query: <Row extends object>(sql: string, params?: readonly SqlParam[], until?: Until) =>
      timed('query', () => store.query<Row>(sql, params, until)),
    queryRow: <Row extends object>(sql: string, params?: readonly SqlParam[], until?: Until) =>
      timed('query', () => store.queryRow<Row>(sql, params, until)),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => timed('transaction', () => store.transaction(fn)),
    exec: (sql: string) => store.exec(sql),
    listen: (channel: string, handlers: ListenHandlers) => store.listen(channel, handlers),
    close: () => store.close(),
  } as Store;
}
