import type { PageRequest } from '../../pagination/page.js';
import { sqlPlan } from '../../pagination/page.js';
import { keysetRows, pageStatement, type PageSql } from '../../pagination/page-sql.js';
import { SqlParams } from '../../pagination/sql-params.js';
import type { Position } from './cursor.js';

/** The one filter that applies (contract §5): the set, else the referrer's sets, else the referee's current set. */
export type SetFilter = { setId: string } | { referrer: string } | { referee: string } | null;

/**
 * The page statement of ListReferralSets: a keyset over (created_at, id), an index range scan of
 * referral_sets_by_created (or _by_referrer) reading no more than limit + 2 rows.
 */
export function referralSetsPage(filter: SetFilter, req: PageRequest<Position>): { sql: PageSql; params: SqlParams } {
  const params = new SqlParams();
  const where =
    filter === null
      ? []
      : 'setId' in filter
        ? [`s.id = ${params.id(filter.setId)}`]
        : 'referrer' in filter
          ? [`s.referrer = ${params.id(filter.referrer)}`]
          : [`s.id = (SELECT r.set_id FROM referral_set_referees AS r WHERE r.referee = ${params.id(filter.referee)})`];
  const rows = keysetRows(
    {
      from: 'referral_sets AS s',
      where,
      key: [
        ['s.created_at', 'created_at'],
        ['s.id', 'id'],
      ],
      cursor: req.cursor ? [params.bigint(req.cursor.createdAt), params.id(req.cursor.id)] : null,
      // Rendered when the row is written (migration 009): REFERRAL_SET and cursorSql over the row;
      // rv is their version (migration 012).
      node: 's.node',
      cursorText: 's.cursor',
      version: 's.rv',
    },
    sqlPlan(req),
    params,
  );
  return { sql: pageStatement('referralSets', req, rows), params };
}
