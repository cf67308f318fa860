import type { PositionOf } from '../../contract/message.js';
import { cursorSql, messageJsonSql } from '../../pagination/message.js';
import { sqlPlan, type PageRequest } from '../../pagination/page.js';
import { keysetRows, pageStatement, type PageSql } from '../../pagination/page-sql.js';
import { SqlParams } from '../../pagination/sql-params.js';
import { REFERRAL_SET_REFEREE, REFERRAL_SET_REFEREE_CURSOR, WINDOW } from './message.js';

type Position = PositionOf<typeof REFERRAL_SET_REFEREE_CURSOR>;

/** The one filter that applies (family.md §5.1): the set's referees, else the referrer's sets', else the referee's own row. */
export type RefereeFilter = { setId: string } | { referrer: string } | { referee: string } | null;

/**
 * The page statement of ListReferralSetReferees: a keyset over (joined_at, referee), an index
 * range scan of referral_set_referees_by_joined (or _by_set_joined under a set; a primary-key
 * point for a referee), LIMIT n + 1, each row joined to its set by primary key (a referee of a set
 * never created is not listed). Each row's two totals are bounded aggregations over the window
 * max(L − N, 0) < epoch ≤ L (see message.ts), L = chain_head.last_ended_epoch.
 */
export function refereesPage(
  filter: RefereeFilter,
  aggregationEpochs: number,
  req: PageRequest<Position>,
): { sql: PageSql; params: SqlParams } {
  const params = new SqlParams();
  // One row, NULL bounds (an empty window) without an ended epoch.
  const window = `(SELECT greatest(h.last_ended_epoch - ${params.bigint(aggregationEpochs)}, 0) AS lo, h.last_ended_epoch AS hi
                     FROM (SELECT NULL) AS one LEFT JOIN chain_head AS h ON true) AS ${WINDOW}`;
  const where = filterWhere(filter, params);
  const cursor = req.cursor ? [params.bigint(req.cursor.joinedAt), params.id(req.cursor.referee)] : null;
  const rows = keysetRows(
    {
      from: `referral_set_referees AS r JOIN referral_sets AS s ON s.id = r.set_id CROSS JOIN ${window}`,
      where,
      key: [
        ['r.joined_at', 'joined_at'],
        ['r.referee', 'referee'],
      ],
      cursor,
      node: messageJsonSql(REFERRAL_SET_REFEREE, 'r'),
      cursorText: cursorSql(REFERRAL_SET_REFEREE_CURSOR, 'r'),
    },
    sqlPlan(req),
    params,
  );
  return { sql: pageStatement('referralSetReferees', req, rows), params };
}

function filterWhere(filter: RefereeFilter, params: SqlParams): string[] {
  if (filter === null) return [];
  if ('setId' in filter) return [`r.set_id = ${params.id(filter.setId)}`];
  // Core allows one set per referrer: the referrer's sets are one probe of referral_sets_by_referrer.
  if ('referrer' in filter) return [`r.set_id IN (SELECT x.id FROM referral_sets AS x WHERE x.referrer = ${params.id(filter.referrer)})`];
  // At most one row: pinned to its place in (joined_at, referee) by a primary-key point, so that
  // the scan is an index range whatever the planner makes of the ORDER BY and LIMIT.
  const referee = params.id(filter.referee);
  return [`r.joined_at = (SELECT x.joined_at FROM referral_set_referees AS x WHERE x.referee = ${referee})`, `r.referee = ${referee}`];
}
