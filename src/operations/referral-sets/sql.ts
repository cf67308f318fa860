import type { PageRequest } from '../../pagination/page.js';
import { sqlPlan } from '../../pagination/page.js';
import { keysetRows, PageShapes, pageStatement, type PageSql } from '../../pagination/page-sql.js';
import { SqlParams } from '../../pagination/sql-params.js';
import type { PositionOf } from '../../contract/message.js';
import type { REFERRAL_SET_CURSOR } from './message.js';

type Position = PositionOf<typeof REFERRAL_SET_CURSOR>;

/** The one filter that applies (contract §5): the set, else the referrer's sets, else the referee's current set. */
export type SetFilter = { setId: string } | { referrer: string } | { referee: string } | null;

const SHAPES = new PageShapes();

/**
 * The page statement of ListReferralSets: a keyset over (created_at, id), an index range scan of
 * referral_sets_by_created (or _by_referrer) reading no more than limit + 2 rows.
 *
 * Its texts are made once per shape (PageShapes); the placeholders name the filter's kind too.
 */
export function referralSetsPage(
  filter: SetFilter,
  req: PageRequest<Position>,
  shapes: PageShapes = SHAPES,
): { sql: PageSql; params: SqlParams } {
  const { params, where, cursor } = placeholders(filter, req);
  const limit = params.bigint(sqlPlan(req).fetchLimit);
  const shape = `${where.join(' AND ')}|${cursor?.join(', ') ?? ''}|${limit}|${req.direction}|${req.newestFirst}`;
  return { sql: shapes.of(shape, req, () => buildPage(where, cursor, req, params)), params };
}

/** The filter's and the cursor's placeholders, registered in the order the text uses them. */
function placeholders(filter: SetFilter, req: PageRequest<Position>): { params: SqlParams; where: string[]; cursor: string[] | null } {
  const params = new SqlParams();
  const where = filterWhere(filter, params);
  const cursor = req.cursor ? [params.bigint(req.cursor.createdAt), params.id(req.cursor.id)] : null;
  return { params, where, cursor };
}

/** The one filter's condition (contract §5). */
function filterWhere(filter: SetFilter, params: SqlParams): string[] {
  if (filter === null) return [];
  if ('setId' in filter) return [`s.id = ${params.id(filter.setId)}`];
  if ('referrer' in filter) return [`s.referrer = ${params.id(filter.referrer)}`];
  return [`s.id = (SELECT r.set_id FROM referral_set_referees AS r WHERE r.referee = ${params.id(filter.referee)})`];
}

/** The page statement itself, over placeholders already registered in `params`. */
function buildPage(where: string[], cursor: string[] | null, req: PageRequest<Position>, params: SqlParams): PageSql {
  const rows = keysetRows(
    {
      from: 'referral_sets AS s',
      where,
      key: [
        ['s.created_at', 'created_at'],
        ['s.id', 'id'],
      ],
      cursor,
      // Rendered when the row is written (see operations/rendered-rows.ts); rv is their version
      // (migration 012).
      node: 's.node',
      cursorText: 's.cursor',
      version: 's.rv',
    },
    sqlPlan(req),
    params,
  );
  return pageStatement('referralSets', req, rows);
}
