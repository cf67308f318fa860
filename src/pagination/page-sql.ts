import type { Queryable } from '../db/store.js';
import { keyCompare, sqlPlan, type PageRequest, type SqlPlan } from './page.js';
import type { SqlParams } from './sql-params.js';

/** The chain head an answer was read at: its X-Block-Height and X-Block-Timestamp. */
export interface ChainHead {
  height: string;
  time: string;
}

/** A page's body as JSON text, and the chain head read in the same snapshot. */
export interface PageBody {
  body: string;
  head: ChainHead | null;
}

/**
 * The rows of one page as an operation selects them: `sql` yields at most limit + 1 rows in
 * fetch order (see sqlPlan; its own ORDER BY and LIMIT), each with a `node` column (the node's
 * JSON text) and a `cursor` column (the cursor, base64), and the sort key's columns named in
 * `key`; `otherSide` is a boolean SQL expression: whether a row lies on the other side of the
 * cursor (`false` without one). `with` are common table expressions the rows refer to.
 */
export interface PageRows {
  sql: string;
  key: readonly string[];
  otherSide: string;
  with?: readonly string[];
}

/**
 * The one statement that answers a page: PostgreSQL writes the whole body,
 * `{"<key>":{"edges":[{"node":…,"cursor":"…"},…],"pageInfo":{…}}}`, in display order, and reads
 * the chain head for the X-Block-* headers in the same snapshot. The process then forwards one
 * text value instead of decoding a row per edge.
 *
 * The rows are kept once, in fetch order (a materialized CTE); the row past the limit only says
 * that there is more. The edges are the first `limit` of them, in display order: as fetched
 * forwards, sorted back backwards. string_agg takes them in the order its input gives them, so
 * there is no window function and no ORDER BY in an aggregate: each costs a sort of the page per
 * request, the larger part of a big page's time once nodes and cursors are stored text. The
 * chain head is read by uncorrelated scalar subqueries (InitPlans, run once): joined as a table,
 * chain_head (never analyzed, estimated at ~1,000 rows) multiplied the statement's estimated
 * cost past jit_above_cost, and JIT compilation then took longer than the query (≈10 ms).
 */
export function pageStatement(key: string, req: PageRequest<unknown>, rows: PageRows, params: SqlParams): string {
  // A placeholder, not a literal: the statement text stays one of the operation's few shapes
  // (prepared once per connection) whatever the page size.
  const limit = params.bigint(req.limit);
  const plan = sqlPlan(req);
  const backward = req.direction === 'backward';
  const more = `(SELECT count(*) FROM page_rows) > ${limit}`;
  const [next, previous] = backward ? [rows.otherSide, more] : [more, rows.otherSide];
  const flag = (cond: string) => `CASE WHEN ${cond} THEN 'true' ELSE 'false' END`;
  const firstRows = `SELECT r.node, r.cursor${backward ? `, ${rows.key.map((c) => `r.${c}`).join(', ')}` : ''} FROM page_rows AS r LIMIT ${limit}`;
  // Backwards, display order is the reverse of fetch order.
  const shown = backward
    ? `SELECT s.node, s.cursor FROM (${firstRows}) AS s ORDER BY ${rows.key.map((c) => `s.${c} ${plan.probeOrder}`).join(', ')}`
    : firstRows;
  const ctes = [...(rows.with ?? []), `page_rows AS MATERIALIZED (${rows.sql})`, `shown AS MATERIALIZED (${shown})`];
  // concat() writes the body once; a chain of || would copy the whole page at each step.
  return `
    WITH ${ctes.join(',\n    ')}
    SELECT (SELECT h.height::text FROM chain_head AS h) AS head_height,
           (SELECT h.block_time::text FROM chain_head AS h) AS head_time,
           concat('{"${key}":{"edges":[',
                  (SELECT string_agg('{"node":' || e.node || ',"cursor":"' || e.cursor || '"}', ',') FROM shown AS e),
                  '],"pageInfo":{"hasNextPage":', ${flag(next)}, ',"hasPreviousPage":', ${flag(previous)},
                  ',"startCursor":"', (SELECT e.cursor FROM shown AS e LIMIT 1),
                  '","endCursor":"', (SELECT e.cursor FROM shown AS e OFFSET greatest((SELECT count(*) FROM shown) - 1, 0) LIMIT 1), '"}}}') AS body`;
}

/** Runs a page statement: the body text and the chain head. */
export async function readPage(db: Queryable, sql: string, params: SqlParams): Promise<PageBody> {
  const [row] = await db.query<{ head_height: string | null; head_time: string | null; body: string }>(sql, params.values);
  if (!row) throw new Error('a page statement returned no row');
  return { body: row.body, head: row.head_height === null ? null : { height: row.head_height, time: row.head_time! } };
}

/** A keyset over one table (or join): the rows the page's sort key orders, filtered. */
export interface Keyset {
  from: string;
  where: readonly string[];
  /** Sort key expressions, in order, each with the name the page rows give it. */
  key: readonly (readonly [expression: string, name: string])[];
  /** The cursor's position as SQL values (placeholders), one per key column; null without a cursor. */
  cursor: readonly string[] | null;
  /** A page row's node and cursor, as SQL over `from`. */
  node: string;
  cursorText: string;
}

/**
 * A page's rows over a keyset: one index range scan strictly beyond the cursor, LIMIT n + 1, and
 * for the other side of the cursor the nearest row found by walking the key index outwards from
 * it. (Not EXISTS: PostgreSQL drops ORDER BY/LIMIT there, and may then choose a scan whose cost
 * grows with the whole table.)
 */
export function keysetRows(k: Keyset, plan: SqlPlan, params: SqlParams): PageRows {
  const key = k.key.map(([expression]) => expression);
  const where = [...k.where];
  let otherSide = 'false';
  if (k.cursor) {
    where.push(keyCompare(key, plan.beyond, k.cursor));
    const boundary = [...k.where, keyCompare(key, plan.boundary, k.cursor)];
    otherSide = `COALESCE((SELECT true FROM ${k.from} WHERE ${boundary.join(' AND ')} ORDER BY ${key.map((c) => `${c} ${plan.probeOrder}`).join(', ')} LIMIT 1), false)`;
  }
  const sql = `SELECT ${k.key.map(([expression, name]) => `${expression} AS ${name}`).join(', ')}, ${k.node} AS node, ${k.cursorText} AS cursor
                 FROM ${k.from}
                ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
                ORDER BY ${key.map((c) => `${c} ${plan.fetchOrder}`).join(', ')}
                LIMIT ${params.bigint(plan.fetchLimit)}`;
  return { sql, key: k.key.map(([, name]) => name), otherSide };
}
