import assert from 'node:assert/strict';
import type { Queryable, SqlParam, Store } from '../../src/db/store.js';
import { parseQuery } from '../../src/contract/query.js';
import type { AnyOperation } from '../../src/operations/operation.js';
import type { RowCache } from '../../src/pagination/row-cache.js';

/**
 * Runs an operation against a store that records its SQL, then EXPLAINs (with ANALYZE) each
 * statement with the same parameters. Returns the plans as text.
 */
export async function explainOperation(
  store: Store,
  op: AnyOperation,
  query: string,
  path: Record<string, string> = {},
  settings: Record<string, string> = {},
): Promise<string[]> {
  const recorded = await recordStatements(store, op, query, path);
  // Planner settings (e.g. enable_seqscan off: a test's tables are tiny, where a sequential scan
  // wins, and the plan to check is the one of a real store) hold for the EXPLAINs alone.
  return store.transaction(async (tx) => {
    for (const [name, value] of Object.entries(settings)) await tx.query(`SELECT set_config($1, $2, true)`, [name, value]);
    const plans: string[] = [];
    for (const [sql, params] of recorded) {
      const rows = await tx.query<Record<string, string>>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${sql}`, params);
      plans.push(rows.map((r) => Object.values(r)[0]).join('\n'));
    }
    return plans;
  });
}

/**
 * The statements (with their parameters) an operation runs for one request, in order. With a
 * RowCache, a page of kept rows runs its versions statement first (see readPage).
 */
export async function recordStatements(
  store: Store,
  op: AnyOperation,
  query: string,
  path: Record<string, string> = {},
  rows?: RowCache,
): Promise<[string, readonly SqlParam[]][]> {
  const recorded: [string, readonly SqlParam[]][] = [];
  const recording: Store = Object.create(store, {
    query: {
      value: <Row extends object>(sql: string, params: readonly SqlParam[] = []) => {
        recorded.push([sql, params]);
        return store.query<Row>(sql, params);
      },
    },
    queryRow: {
      value: async <Row extends object>(sql: string, params: readonly SqlParam[] = []) => (await recording.query<Row>(sql, params))[0],
    },
    transaction: {
      value: <T>(fn: (tx: Queryable) => Promise<T>) => fn(recording),
    },
  });
  await op.run({ store: recording, rows }, { ...parseQuery([...new URLSearchParams(query)], op.fields), ...path });
  return recorded;
}

/**
 * A page statement's plan shape (src/pagination/page-sql.ts): one Aggregate joins the edges as
 * the scan returns them, and no CTE or Materialize node copies the page's rows on the way.
 */
export function assertRowsAggregatedOnce(plan: string): void {
  assert.equal(plan.match(/-> +Aggregate /g)?.length, 1, plan);
  assert.doesNotMatch(plan, /CTE|Materialize/, plan);
}
