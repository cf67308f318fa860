import { sqlPlan, type PageRequest } from '../../pagination/page.js';
import { pageStatement } from '../../pagination/page-sql.js';
import { messageJsonSql } from '../../pagination/message.js';
import { sqlId } from '../../pagination/sql-json.js';
import { SqlParams } from '../../pagination/sql-params.js';
import { cursorSql, type Position } from './cursor.js';
import { MEMBER_STATISTICS, rewardsEntrySql, volumesEntrySql } from './node.js';

/**
 * The page statement of ListTeamMembersStatistics (contract §5): a keyset over the team's parties
 * that have rows in the window, each with those rows aggregated from team_member_stats.
 *
 * The window is L−N+1 … L with L = chain_head.last_ended_epoch. Epochs are never negative, so a
 * window reaching below epoch 0 holds fewer than N epochs and the team cannot be eligible: the
 * window's start is only defined when L ≥ N−1, which is also what keeps L−(N−1) from
 * overflowing for any valid N. Otherwise (or without L) it is NULL and every comparison with it
 * fails, giving an empty page. Both bounds are uncorrelated scalar subqueries: PostgreSQL runs
 * them once per statement (InitPlans).
 *
 * The window's parties are gathered once (a materialized CTE, also probed for the other side of
 * the cursor); the page takes limit + 1 of them in party order, and only the rows of the first
 * `limit` are read. Those are read by one scan, not one per party: a party's rows are written an
 * epoch at a time, each epoch's rows of a team together, so the rows of one party lie on a heap
 * page per epoch, and probing them party by party (the primary key's order) touched about
 * parties × window pages. team_member_stats_by_epoch (migration 010) walks the window's epochs
 * instead, each from the page's first party to its last, over pages holding the page's rows
 * side by side. One sort then brings the rows into (party, epoch) order, with each party's
 * distinct games after its rows, and one pass aggregates every party of the page: string_agg
 * takes the rows in that order, no aggregate sorts again.
 */
export function teamStatsPage(teamId: string, aggregationEpochs: bigint, partyId: string | undefined, req: PageRequest<Position>): { sql: string; params: SqlParams } {
  const params = new SqlParams();
  const plan = sqlPlan(req);
  const team = params.id(teamId);
  const n = params.bigint(aggregationEpochs);
  const windowStart = `(SELECT h.last_ended_epoch - (${n} - 1) FROM chain_head AS h WHERE h.last_ended_epoch >= ${n} - 1)`;
  const windowEnd = `(SELECT h.last_ended_epoch FROM chain_head AS h)`;

  // Eligibility, decided on the whole team: statistics rows in N distinct epochs of the window.
  // A primary-key range of team_epochs holding at most N entries, evaluated once (InitPlan).
  const eligible = `(SELECT count(*) FROM team_epochs AS e WHERE e.team_id = ${team} AND e.epoch BETWEEN ${windowStart} AND ${windowEnd}) = ${n}`;

  // The team's parties with rows in the window. A party's rows span first_epoch … last_epoch, so
  // it has one in the window when that span meets it and, if the span runs past the window's end
  // (rows of the epoch in progress), a row inside it. A range of team_parties_by_last_epoch: its
  // cost is the number of parties active in the window, not the team's history.
  const candidates = [
    `tp.team_id = ${team}`,
    `tp.last_epoch >= ${windowStart}`,
    `tp.first_epoch <= ${windowEnd}`,
    `(tp.last_epoch <= ${windowEnd} OR EXISTS (SELECT 1 FROM team_member_stats AS x WHERE x.team_id = ${team} AND x.party = tp.party AND x.epoch BETWEEN ${windowStart} AND ${windowEnd}))`,
    eligible,
    ...(partyId === undefined ? [] : [`tp.party = ${params.id(partyId)}`]),
  ];
  const cursor = req.cursor ? params.id(req.cursor.party) : undefined;
  const otherSide = cursor ? `COALESCE((SELECT true FROM w WHERE w.party ${plan.boundary} ${cursor} LIMIT 1), false)` : 'false';
  const limit = params.bigint(req.limit);
  const ctes = [
    `w AS MATERIALIZED (SELECT tp.party FROM team_parties AS tp WHERE ${candidates.join(' AND ')})`,
    // The page's parties in fetch order, and the one past it that says there is more.
    `page_parties AS MATERIALIZED (SELECT w.party FROM w ${cursor ? `WHERE w.party ${plan.beyond} ${cursor}` : ''}
                                    ORDER BY w.party ${plan.fetchOrder} LIMIT ${params.bigint(plan.fetchLimit)})`,
    `shown_parties AS MATERIALIZED (SELECT p.party FROM page_parties AS p LIMIT ${limit})`,
    // Every row of the window from the first shown party to the last: exactly the shown
    // parties' rows, since every party of the team with a row in the window is in w.
    `page_stats AS MATERIALIZED (
       SELECT s.party, s.epoch, s.quantum_volume, s.quantum_rewards, s.games FROM team_member_stats AS s
        WHERE s.team_id = ${team}
          AND s.epoch = ANY (ARRAY(SELECT generate_series(${windowStart}, ${windowEnd})))
          AND s.party >= (SELECT p.party FROM shown_parties AS p ORDER BY p.party LIMIT 1)
          AND s.party <= (SELECT p.party FROM shown_parties AS p ORDER BY p.party DESC LIMIT 1))`,
  ];
  // One row per statistics row (game NULL), then one per distinct game of the party (epoch NULL).
  const rows = `
    SELECT x.party, ${messageJsonSql(MEMBER_STATISTICS, 'x')} AS node, ${cursorSql(sqlId('x.party'))} AS cursor
      FROM (SELECT y.party,
                   sum(y.quantum_volume)::text AS total_volume,
                   sum(y.quantum_rewards)::text AS total_rewards,
                   string_agg(${rewardsEntrySql('y')}, ',') AS rewards,
                   string_agg(${volumesEntrySql('y')}, ',') AS volumes,
                   -- Game ids are hex: quoted, they need no escaping; bytea order is the hex order.
                   coalesce(string_agg('"' || encode(y.game, 'hex') || '"', ','), '') AS games,
                   count(y.game) AS games_played
              FROM (SELECT s.party, s.epoch, s.quantum_volume, s.quantum_rewards, NULL::bytea AS game FROM page_stats AS s
                    UNION ALL
                    SELECT DISTINCT s.party, NULL::bigint, NULL::numeric, NULL::numeric, g.id FROM page_stats AS s CROSS JOIN LATERAL unnest(s.games) AS g(id)
                    ORDER BY 1, 2, 5) AS y
             GROUP BY y.party) AS x
     ORDER BY x.party ${plan.fetchOrder}`;
  const more = `(SELECT count(*) FROM page_parties) > ${limit}`;
  return { sql: pageStatement('statistics', req, { sql: rows, key: ['party'], otherSide, more, with: ctes }, params), params };
}
