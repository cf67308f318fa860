import { keyCompare, sqlPlan, type PageRequest } from '../../pagination/page.js';
import { PageShapes, pageStatement, type PageSql } from '../../pagination/page-sql.js';
import { SqlParams } from '../../pagination/sql-params.js';
import type { PositionOf } from '../../contract/message.js';
import type { EPOCH_REWARD_SUMMARY_CURSOR } from './message.js';

type Position = PositionOf<typeof EPOCH_REWARD_SUMMARY_CURSOR>;

/**
 * The SQL of a summaries page. The sort key is (epoch, asset_id, market_id, reward_type), and
 * every page is read by index range scans of epoch_reward_summaries:
 *
 * - no asset or market filter: the primary key, whose order is the sort key;
 * - an asset and/or market filter: one branch per listed id (or per (asset, market) pair), each
 *   an ordered, LIMITed range scan of the index that starts with the fixed column(s), merged by
 *   UNION ALL and cut to the page. A single `asset_id = ANY(…)` scan could not return rows in key
 *   order, so its cost would grow with the matching rows instead of the page size.
 *
 * Inside a branch the fixed columns are constants, so the cursor comparison over the whole key
 * reduces to a row comparison over the free columns that follow the fixed ones in the branch's
 * index (see branchCompare): an index condition, not a filter.
 * fromEpoch/toEpoch are a range on epoch, the first free column of every branch.
 */
export interface SummaryFilter {
  /** Distinct lowercase hex ids; empty means no filter. */
  assets: readonly string[];
  markets: readonly string[];
  fromEpoch: bigint | undefined;
  toEpoch: bigint | undefined;
}

type Column = 'epoch' | 'asset_id' | 'market_id' | 'reward_type';
type IdColumn = 'asset_id' | 'market_id';
const KEY: readonly Column[] = ['epoch', 'asset_id', 'market_id', 'reward_type'];

/** Above this many (asset, market) pairs, branch on the shorter list and filter on the other. */
export const MAX_PAIR_BRANCHES = 64;

/** One ordered range scan: equality on `fixed` columns, optionally `column IN (values)`. */
interface Branch {
  fixed: Partial<Record<IdColumn, string>>;
  oneOf?: { column: IdColumn; values: readonly string[] };
}

export function planBranches(f: SummaryFilter): Branch[] {
  const { assets, markets } = f;
  if (assets.length === 0 && markets.length === 0) return [{ fixed: {} }];
  if (markets.length === 0) return assets.map((a) => ({ fixed: { asset_id: a } }));
  if (assets.length === 0) return markets.map((m) => ({ fixed: { market_id: m } }));
  // Index (asset_id, market_id, epoch, reward_type).
  if (assets.length * markets.length <= MAX_PAIR_BRANCHES) {
    return assets.flatMap((a) => markets.map((m) => ({ fixed: { asset_id: a, market_id: m } })));
  }
  return assets.length <= markets.length
    ? assets.map((a) => ({ fixed: { asset_id: a }, oneOf: { column: 'market_id', values: markets } }))
    : markets.map((m) => ({ fixed: { market_id: m }, oneOf: { column: 'asset_id', values: assets } }));
}

/** A key column's value at the cursor, as a placeholder. */
function cursorValue(params: SqlParams, c: Column, p: Position): string {
  switch (c) {
    case 'epoch':
      return params.bigint(p.epoch);
    case 'asset_id':
      return params.id(p.assetId);
    case 'market_id':
      return params.id(p.marketId);
    case 'reward_type':
      return params.text(p.rewardType);
  }
}

/** Byte order of two lowercase hex ids (same as comparing their bytes). */
function compareHex(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * `key op cursor` over the whole key, for the rows of a branch. The fixed columns are known, so
 * walking the key in order: a fixed column equal to the cursor's says nothing; the first one that
 * differs decides, and only the free columns before it are compared (non-strictly if the fixed
 * column already lies on the `op` side of the cursor, strictly otherwise). With no deciding fixed
 * column, the free columns are compared with `op` itself.
 */
function branchCompare(branch: Branch, op: '<' | '>' | '<=' | '>=', cursor: Position, params: SqlParams, alias: string): string {
  const upward = op[0] === '>';
  let strict = op.length === 1;
  const free: Column[] = [];
  for (const c of KEY) {
    const fixed = c === 'asset_id' || c === 'market_id' ? branch.fixed[c] : undefined;
    if (fixed === undefined) {
      free.push(c);
      continue;
    }
    const cmp = compareHex(fixed, c === 'asset_id' ? cursor.assetId : cursor.marketId);
    if (cmp === 0) continue;
    strict = cmp > 0 !== upward;
    break;
  }
  if (free.length === 0) return strict ? 'false' : 'true';
  const dir = upward ? '>' : '<';
  return keyCompare(
    free.map((c) => `${alias}.${c}`),
    strict ? dir : `${dir}=`,
    free.map((c) => cursorValue(params, c, cursor)),
  );
}

function branchWhere(branch: Branch, f: SummaryFilter, params: SqlParams, alias: string): string[] {
  const where: string[] = [];
  for (const c of ['asset_id', 'market_id'] as const) {
    const v = branch.fixed[c];
    if (v !== undefined) where.push(`${alias}.${c} = ${params.id(v)}`);
  }
  if (branch.oneOf) where.push(`${alias}.${branch.oneOf.column} IN (${branch.oneOf.values.map((v) => params.id(v)).join(', ')})`);
  if (f.fromEpoch !== undefined) where.push(`${alias}.epoch >= ${params.bigint(f.fromEpoch)}`);
  if (f.toEpoch !== undefined) where.push(`${alias}.epoch <= ${params.bigint(f.toEpoch)}`);
  return where;
}

const whereClause = (conds: readonly string[]) => (conds.length > 0 ? `WHERE ${conds.join(' AND ')}` : '');

const SHAPES = new PageShapes();

/**
 * The page statement and its parameters. Without an asset or market filter (one branch, no
 * fixed column) the text depends only on its placeholders, the direction and the order: it is
 * made once per shape (PageShapes), its placeholders registered first in the order the text
 * uses them. With one, the branches' comparisons depend on the ids' values: made every time.
 */
export function summariesPage(
  f: SummaryFilter,
  req: PageRequest<Position>,
  shapes: PageShapes = SHAPES,
): { sql: PageSql; params: SqlParams } {
  const params = new SqlParams();
  if (f.assets.length > 0 || f.markets.length > 0) return { sql: buildPage(f, req, params), params };
  const c = req.cursor;
  const placeholders = [
    params.bigint(sqlPlan(req).fetchLimit),
    f.fromEpoch === undefined ? '' : params.bigint(f.fromEpoch),
    f.toEpoch === undefined ? '' : params.bigint(f.toEpoch),
    ...(c ? [params.bigint(c.epoch), params.id(c.assetId), params.id(c.marketId), params.text(c.rewardType)] : []),
  ];
  const shape = `${placeholders.join('|')}|${req.direction}|${req.newestFirst}`;
  return { sql: shapes.of(shape, req, () => buildPage(f, req, params)), params };
}

/** The page statement itself, its placeholders registered in `params` as the text uses them. */
function buildPage(f: SummaryFilter, req: PageRequest<Position>, params: SqlParams): PageSql {
  const plan = sqlPlan(req);
  const branches = planBranches(f);
  const order = (alias: string, dir: 'ASC' | 'DESC' = plan.fetchOrder) => KEY.map((c) => `${alias}.${c} ${dir}`).join(', ');
  const limit = params.bigint(plan.fetchLimit);
  const cursor = req.cursor;

  const rowsWhere = (b: Branch, alias: string) => [
    ...branchWhere(b, f, params, alias),
    ...(cursor ? [branchCompare(b, plan.beyond, cursor, params, alias)] : []),
  ];
  // One branch: the range scan itself. Several: each ordered and cut to the page size, merged.
  const from =
    branches.length === 1
      ? `epoch_reward_summaries AS s ${whereClause(rowsWhere(branches[0]!, 's'))}`
      : `(${branches
          .map(
            (b) => `(SELECT t.* FROM epoch_reward_summaries AS t ${whereClause(rowsWhere(b, 't'))} ORDER BY ${order('t')} LIMIT ${limit})`,
          )
          .join('\n UNION ALL ')}) AS s`;

  // Whether a row lies on the other side of the cursor: per branch, one ordered index probe
  // from the cursor outwards. Not EXISTS: PostgreSQL drops ORDER BY and LIMIT inside EXISTS and
  // then may bet on a sequential scan finding a row early, which reads most of the table when
  // the matching rows sit at its far end (seen on 100k rows with a cursor mid-table).
  let otherSide = 'false';
  if (cursor) {
    const probes = branches.map(
      (b) =>
        `(SELECT true AS found FROM epoch_reward_summaries AS t ` +
        `${whereClause([...branchWhere(b, f, params, 't'), branchCompare(b, plan.boundary, cursor, params, 't')])} ` +
        `ORDER BY ${order('t', plan.probeOrder)} LIMIT 1)`,
    );
    otherSide = `COALESCE((SELECT o.found FROM (${probes.join('\n UNION ALL ')}) AS o LIMIT 1), false)`;
  }

  // node and cursor are rendered when the row is written (see operations/rendered-rows.ts); rv is
  // their version (migration 012).
  const rows = `
    SELECT s.epoch, s.asset_id, s.market_id, s.reward_type, s.node, s.cursor, s.rv
      FROM ${from}
     ORDER BY ${order('s')}
     LIMIT ${limit}`;
  return pageStatement('summaries', req, { sql: rows, key: KEY, otherSide, versions: {} });
}
