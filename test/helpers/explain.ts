import type { Queryable, SqlParam, Store } from '../../src/db/store.js';
import type { Operation } from '../../src/operations/operation.js';

/**
 * Runs an operation against a store that records its SQL, then EXPLAINs (with ANALYZE) each
 * statement with the same parameters. Returns the plans as text.
 */
export async function explainOperation(store: Store, op: Operation, query: string, path: Record<string, string> = {}): Promise<string[]> {
  const recorded: [string, readonly SqlParam[]][] = [];
  const recording: Store = Object.create(store, {
    query: {
      value: <Row extends object>(sql: string, params: readonly SqlParam[] = []) => {
        recorded.push([sql, params]);
        return store.query<Row>(sql, params);
      },
    },
    transaction: {
      value: <T>(fn: (tx: Queryable) => Promise<T>) => fn(recording),
    },
  });
  await op.run(recording, { path, query: [...new URLSearchParams(query)] });
  const plans: string[] = [];
  for (const [sql, params] of recorded) {
    const rows = await store.query<Record<string, string>>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${sql}`, params);
    plans.push(rows.map((r) => Object.values(r)[0]).join('\n'));
  }
  return plans;
}
