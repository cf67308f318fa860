import type { Queryable, SqlParam } from '../db/store.js';
import { keyCompare, sqlPlan, type PageRequest } from './page.js';

/** The rows an operation pages over: a keyset over `key`, an index range scan per page. */
export interface KeysetSource {
  /** SELECT list of a page row; every value a caller reads should be text or boolean. */
  columns: string;
  /** FROM clause (tables, joins) and filter conditions, referring to params as $1, $2, … */
  from: string;
  where: readonly string[];
  params: readonly SqlParam[];
  /** Sort key expressions, in order; the whole key ascends or descends together. */
  key: readonly string[];
  /** SQL types the cursor values are cast to, one per key column (e.g. 'bigint', 'bytea'). */
  keyTypes: readonly string[];
}

export interface ChainHead {
  height: string;
  time: string;
}

export interface FetchedPage<Row> {
  /** Up to limit + 1 rows, in fetch order (see sqlPlan). */
  rows: Row[];
  /** Whether a row exists on the other side of the cursor (false without a cursor). */
  otherSide: boolean;
  head: ChainHead | null;
}

/** How a cursor value becomes a SQL value of a key column: bytea from hex, others as text. */
function cursorPlaceholder(n: number, type: string): string {
  return type === 'bytea' ? `decode($${n}, 'hex')` : `$${n}::${type}`;
}

/**
 * Fetches one page and its boundary flag in a single statement, so both see the same snapshot,
 * together with the chain head for the X-Block-* headers. `cursor` holds the key values of the
 * cursor position as text (hex for bytea columns).
 */
export async function fetchKeysetPage<Row extends object>(
  db: Queryable,
  source: KeysetSource,
  req: PageRequest<unknown>,
  cursor: readonly string[] | null,
): Promise<FetchedPage<Row>> {
  const plan = sqlPlan(req);
  const params: SqlParam[] = [...source.params];
  const order = source.key.map((k) => `${k} ${plan.fetchOrder}`).join(', ');
  let beyond = '';
  let otherSide = 'false';
  if (cursor) {
    const placeholders = cursor.map((v, i) => {
      params.push(v);
      return cursorPlaceholder(params.length, source.keyTypes[i]!);
    });
    beyond = keyCompare(source.key, plan.beyond, placeholders);
    const boundaryWhere = [...source.where, keyCompare(source.key, plan.boundary, placeholders)].join(' AND ');
    // The nearest row on that side, found by walking the key index outwards from the cursor as
    // the page does. (Not EXISTS: PostgreSQL drops ORDER BY/LIMIT there, and may then choose a
    // scan whose cost grows with the whole table.)
    const nearest = source.key.map((k) => `${k} ${plan.fetchOrder === 'ASC' ? 'DESC' : 'ASC'}`).join(', ');
    otherSide = `COALESCE((SELECT true FROM ${source.from} WHERE ${boundaryWhere} ORDER BY ${nearest} LIMIT 1), false)`;
  }
  params.push(plan.fetchLimit);
  const where = [...source.where, ...(beyond ? [beyond] : [])];
  const sql = pageStatement(
    `SELECT ${source.columns}
       FROM ${source.from}
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY ${order}
      LIMIT $${params.length}`,
    otherSide,
  );
  return readPage<Row>(await db.query<Row & PageExtras>(sql, params));
}

/** The columns pageStatement adds to every row. */
export interface PageExtras {
  head_height: string | null;
  head_time: string | null;
  other_side: boolean;
  /** NULL on the one row of an empty page. */
  page_row: boolean | null;
}

/**
 * One statement answering a page: the page's rows (`page`: ordered and LIMITed), each with the
 * chain head and the other-side flag; an empty page gives one row whose page_row is NULL.
 *
 * The rows come out in the page's own order without an outer sort: the page is the inner side of
 * a nested loop under a single outer row (ON true admits no hash or merge join, and a LEFT JOIN
 * keeps the page inside), so they are emitted as the page's ORDER BY produced them. The chain
 * head is read by uncorrelated scalar subqueries (InitPlans, run once): joined as a table,
 * chain_head (never analyzed, estimated at ~1,000 rows) multiplied the statement's estimated cost
 * past jit_above_cost, and JIT compilation then took longer than the query (≈10 ms).
 */
export function pageStatement(page: string, otherSide: string): string {
  return `
    SELECT (SELECT h.height::text FROM chain_head AS h) AS head_height,
           (SELECT h.block_time::text FROM chain_head AS h) AS head_time,
           ${otherSide} AS other_side, p.*
      FROM (SELECT 1) AS one
      LEFT JOIN LATERAL (SELECT true AS page_row, q.* FROM (${page}) AS q) AS p ON true`;
}

/** Splits pageStatement's result into the page rows, the other-side flag and the chain head. */
export function readPage<Row extends object>(result: (Row & PageExtras)[]): FetchedPage<Row> {
  const first = result[0];
  const head = first?.head_height ? { height: first.head_height, time: first.head_time! } : null;
  return {
    rows: first?.page_row === null ? [] : result,
    otherSide: first?.other_side === true,
    head,
  };
}
