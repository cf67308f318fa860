import type { Store, Until } from '../db/store.js';
import { keyCompare, sqlPlan, type PageRequest, type SqlPlan } from './page.js';
import { parseVersions, type RowCache } from './row-cache.js';
import type { SqlParams } from './sql-params.js';

import { EDGE_SEPARATOR, ItemResult, PageResult, type ChainHead, type EdgesText } from './result.js';

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
  /**
   * Each key column's order walking away from the page's end (backwards display order), when
   * the key's columns run in different directions (GetReferralSetStats); else SqlPlan.probeOrder.
   */
  probeOrders?: readonly ('ASC' | 'DESC')[];
  otherSide: string;
  with?: readonly string[];
  /**
   * Rows whose text the process keeps (RowCache): an `rv` column of the rows names a row's node
   * and cursor for good (a version, migration 012), or within `scope`, an SQL text expression of
   * what else they show (a window, a read model's version). `rows`: the same rows with the key
   * and `rv` only, when computing `sql`'s nodes is work the versions statement must not do.
   */
  versions?: { scope?: string; rows?: string };
}

/**
 * A page's statement, and what the process needs to finish its body: PostgreSQL joins the edges
 * (`{"node":…,"cursor":"…"}`, in display order) into one text value, and the process adds the
 * few bytes around them (see finishPage).
 */
export interface PageSql {
  text: string;
  /**
   * For versioned rows: the same page's statement answering the rows' versions instead of their
   * edges (see RowCache); `text` then answers the versions too. Undefined for rows without versions.
   */
  versionsText: string | undefined;
  /** The connection's field name, e.g. referralSets. */
  key: string;
  limit: number;
  backward: boolean;
}

/**
 * The one statement that answers a page: the edges of the up to limit + 1 rows it selects,
 * joined by string_agg into one text value in display order, their count, whether a row lies on
 * the other side of the cursor, and the chain head for the X-Block-* headers, in the same
 * snapshot. The process then forwards one text value instead of decoding a row per edge.
 *
 * Each row is read once and aggregated as the scan returns it: no CTE copies the page's rows,
 * and no concat() copies the joined edges again (both more than halved a 1,000-row page's
 * backend CPU: most of it was the kernel mapping fresh memory for those copies). The row past
 * the limit, which only says that there is more, is cut off by the process, and the cursors of
 * pageInfo are read from the first and last edges there. string_agg takes the rows in the order
 * its input gives them, so there is no window function and no ORDER BY in an aggregate: each
 * costs a sort of the page per request (PostgreSQL 15 sorts an ordered aggregate's input even
 * when it comes sorted: a 1,001-row page of stored texts took 1.3 to 1.8 times as long).
 * Backwards, display order is the reverse of fetch order, and the rows are sorted back. The order
 * holds because the aggregate's query level reads one subquery and nothing else: its ORDER BY
 * keeps it a plan of its own, whose rows a plain aggregate takes as they come (PostgreSQL's
 * documentation warns of a join or other processing at the aggregate's level).
 * test/operations/page-order.test.ts proves it of every page statement's plans on both stores,
 * and fails if a plan changes it. The chain head is read by uncorrelated scalar subqueries (InitPlans, run once): joined as a table,
 * chain_head (never analyzed, estimated at ~1,000 rows) multiplied the statement's estimated cost
 * past jit_above_cost, and JIT compilation then took longer than the query (≈10 ms).
 *
 * For rows the process keeps (PageRows.versions), a second statement of the same page answers
 * the rows' versions in place of their edges, and the first answers both (see readPage).
 */
export function pageStatement(key: string, req: PageRequest<unknown>, rows: PageRows): PageSql {
  const plan = sqlPlan(req);
  const backward = req.direction === 'backward';
  const edge = `'{"node":' || r.node || ',"cursor":"' || r.cursor || '"}'`;
  const shown = (sql: string, columns: string) =>
    backward
      ? `SELECT ${columns} FROM (${sql}) AS r ORDER BY ${rows.key.map((c, i) => `r.${c} ${rows.probeOrders?.[i] ?? plan.probeOrder}`).join(', ')}`
      : `SELECT ${columns} FROM (${sql}) AS r`;
  // The page size is not in the text (the row limit is a placeholder of rows.sql): the statement
  // stays one of the operation's few shapes, prepared once per connection, whatever the size.
  const statement = (aggregates: string, from: string) => `
    ${rows.with && rows.with.length > 0 ? `WITH ${rows.with.join(',\n    ')}` : ''}
    SELECT (SELECT h.height::text FROM chain_head AS h) AS head_height,
           (SELECT h.block_time::text FROM chain_head AS h) AS head_time,${rows.versions?.scope ? `\n           ${rows.versions.scope} AS scope,` : ''}
           p.*, ${rows.otherSide} AS other_side
      FROM (SELECT ${aggregates}, count(*)::int AS edge_count FROM (${from}) AS e) AS p`;
  const edges = `string_agg(e.edge, ',') AS edges`;
  if (!rows.versions)
    return { text: statement(edges, shown(rows.sql, `${edge} AS edge`)), versionsText: undefined, key, limit: req.limit, backward };
  const versions = `string_agg(e.rv::text, ',') AS versions`;
  return {
    text: statement(`${edges}, ${versions}`, shown(rows.sql, `${edge} AS edge, r.rv`)),
    versionsText: statement(versions, shown(rows.versions.rows ?? rows.sql, 'r.rv')),
    key,
    limit: req.limit,
    backward,
  };
}

/**
 * Page statements made once per shape and reused: making a page's text afresh, and then hashing
 * it to find its statement batch and prepared statement, was 7 to 10% of a lookup's CPU. A shape
 * is everything a text is made of besides constants: its placeholders (registered first, in the
 * order the text uses them; equal values share one, so which are shared is part of it), and the
 * request's direction and order. The page size is a placeholder's value, not part of the text.
 */
export class PageShapes {
  private readonly made = new Map<string, PageSql>();

  /**
   * A few dozen shapes per operation at most (filters × shared placeholders × cursor × direction ×
   * order). With `max` 0 none is kept: every statement is made afresh (what the tests of reuse compare with).
   */
  constructor(private readonly max = 256) {}

  /** The statement of `shape` for `req`, made by `make` the first time. */
  of(shape: string, req: PageRequest<unknown>, make: () => PageSql): PageSql {
    let made = this.made.get(shape);
    if (made === undefined) {
      made = make();
      if (this.made.size < this.max) this.made.set(shape, made);
    }
    // Written out: an object spread here took a microsecond.
    return { text: made.text, versionsText: made.versionsText, key: made.key, limit: req.limit, backward: made.backward };
  }
}

/**
 * The page from the rows fetched (limit + 1 at most, in display order): the row past the limit
 * (last in fetch order, so first in display order backwards) dropped from the store's text (kept
 * edges come without it: see withinLimit), and pageInfo's flags from whether it was there and
 * whether a row lies on the other side of the cursor.
 */
function pageOf(sql: PageSql, fetched: EdgesText, count: number, otherSide: boolean, head: ChainHead | null): PageResult {
  const more = count > sql.limit;
  const [next, previous] = sql.backward ? [otherSide, more] : [more, otherSide];
  let edges = fetched;
  if (more && typeof edges === 'string') {
    edges = sql.backward ? edges.slice(edges.indexOf(EDGE_SEPARATOR) + 1) : edges.slice(0, edges.lastIndexOf(EDGE_SEPARATOR));
  }
  return new PageResult(sql.key, edges, next, previous, head);
}

/** The keys of the rows of the page, without the row past the limit (see pageOf). */
function withinLimit<K>(sql: PageSql, keys: K[]): K[] {
  if (keys.length <= sql.limit) return keys;
  return sql.backward ? keys.slice(1) : keys.slice(0, sql.limit);
}

type PageRow = {
  head_height: string | null;
  head_time: string | null;
  body?: string;
  edges?: string | null;
  versions?: string | null;
  scope?: string | null;
  edge_count?: number;
  other_side?: boolean;
};

/** The RowCache keys of a page's rows: their versions, or their keys within the statement's scope. */
function rowKeys(row: PageRow): (number | string)[] {
  if (row.scope === undefined || row.scope === null) return parseVersions(row.versions);
  return row.versions ? row.versions.split(',').map((v) => `${row.scope}/${v}`) : [];
}

const headOf = (row: PageRow): ChainHead | null => (row.head_height === null ? null : { height: row.head_height, time: row.head_time! });

/** What a statement is read with: an operation's ReadContext. */
export interface Reader {
  store: Pick<Store, 'queryRow'>;
  rows?: RowCache | undefined;
  until?: Until;
}

/**
 * Runs a page statement, with the chain head. With a RowCache, a page of kept rows asks the
 * store for its rows' versions first and joins the texts kept for them; only when one is missing
 * does it ask for the edges, and keeps them.
 */
export async function readPage({ store, rows, until }: Reader, sql: PageSql, params: SqlParams): Promise<PageResult> {
  if (sql.versionsText !== undefined && rows !== undefined) {
    const row = await store.queryRow<PageRow>(sql.versionsText, params.values, until);
    if (!row) throw new Error('a page statement returned no row');
    const keys = rowKeys(row);
    const edges = rows.get(withinLimit(sql, keys));
    if (edges) return pageOf(sql, edges, keys.length, row.other_side!, headOf(row));
  }
  const row = await store.queryRow<PageRow>(sql.text, params.values, until);
  if (!row) throw new Error('a page statement returned no row');
  const edges = row.edges ?? '';
  if (rows !== undefined && row.versions) rows.keepPage(rowKeys(row), edges);
  return pageOf(sql, edges, row.edge_count!, row.other_side!, headOf(row));
}

/** Runs a statement that writes one message (a `body` column), with the chain head. */
export async function readItem({ store, until }: Reader, sql: string, params: SqlParams): Promise<ItemResult> {
  const row = await store.queryRow<PageRow>(sql, params.values, until);
  if (!row) throw new Error('a statement returned no row');
  return new ItemResult(row.body!, headOf(row));
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
  /** The row's version (migration 012), when the table has one. */
  version?: string;
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
  const sql = `SELECT ${k.key.map(([expression, name]) => `${expression} AS ${name}`).join(', ')}, ${k.node} AS node, ${k.cursorText} AS cursor${k.version ? `, ${k.version} AS rv` : ''}
                 FROM ${k.from}
                ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
                ORDER BY ${key.map((c) => `${c} ${plan.fetchOrder}`).join(', ')}
                LIMIT ${params.bigint(plan.fetchLimit)}`;
  return { sql, key: k.key.map(([, name]) => name), otherSide, ...(k.version !== undefined ? { versions: {} } : {}) };
}
