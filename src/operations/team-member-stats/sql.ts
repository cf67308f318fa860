import { sqlPlan, type PageRequest } from '../../pagination/page.js';
import { PageShapes, pageStatement, type PageSql } from '../../pagination/page-sql.js';
import type { PositionOf } from '../../contract/message.js';
import { cursorSql, messageJsonSql } from '../../pagination/message.js';
import { SqlParams } from '../../pagination/sql-params.js';
import { REWARDS_ENTRY, TEAM_MEMBER_CURSOR, TEAM_MEMBER_STATISTICS, VOLUMES_ENTRY, withoutEpochLists } from './message.js';

type Position = PositionOf<typeof TEAM_MEMBER_CURSOR>;

const SHAPES = new PageShapes();

/** The members' statistics without the per-epoch lists, for a door that reads neither (message.ts). */
const TOTALS = withoutEpochLists(TEAM_MEMBER_STATISTICS);

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
 * the cursor); the page takes limit + 1 of them in party order, and only those are aggregated:
 * the aggregation is the costly part, so it must never run for parties outside the page.
 *
 * Its texts are made once per shape (PageShapes): the placeholders, registered first in the order
 * the text uses them. Without `lists`, the nodes leave out the per-epoch lists (message.ts).
 */
export function teamStatsPage(
  teamId: string,
  aggregationEpochs: bigint,
  partyId: string | undefined,
  req: PageRequest<Position>,
  lists = true,
  shapes: PageShapes = SHAPES,
): { sql: PageSql; params: SqlParams } {
  const { p, params } = placeholders(teamId, aggregationEpochs, partyId, req);
  const shape = `${p.team}|${p.n}|${p.party ?? ''}|${p.cursor ?? ''}|${p.limit}|${req.direction}|${req.newestFirst}|${lists}`;
  return { sql: shapes.of(shape, req, () => buildPage(p, req, lists)), params };
}

/** The page's values as placeholders, registered in the order the text uses them. */
function placeholders(teamId: string, aggregationEpochs: bigint, partyId: string | undefined, req: PageRequest<Position>) {
  const params = new SqlParams();
  const p: Placeholders = {
    team: params.id(teamId),
    n: params.bigint(aggregationEpochs),
    party: partyId === undefined ? undefined : params.id(partyId),
    cursor: req.cursor ? params.id(req.cursor.party) : undefined,
    limit: params.bigint(sqlPlan(req).fetchLimit),
  };
  return { p, params };
}

/** The placeholders of a page's values. */
interface Placeholders {
  team: string;
  n: string;
  party: string | undefined;
  cursor: string | undefined;
  limit: string;
}

/** The page statement itself, over its placeholders. */
function buildPage({ team, n, party, cursor, limit }: Placeholders, req: PageRequest<Position>, lists: boolean): PageSql {
  const plan = sqlPlan(req);
  const windowStart = `(SELECT h.last_ended_epoch - (${n} - 1) FROM chain_head AS h WHERE h.last_ended_epoch >= ${n} - 1)`;
  const windowEnd = `(SELECT h.last_ended_epoch FROM chain_head AS h)`;
  /** A statistics row (alias s) of the team in the window, for the party of alias p. */
  const inWindow = (s: string, p: string) =>
    `${s}.team_id = ${team} AND ${s}.party = ${p}.party AND ${s}.epoch BETWEEN ${windowStart} AND ${windowEnd}`;

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
    `(tp.last_epoch <= ${windowEnd} OR EXISTS (SELECT 1 FROM team_member_stats AS x WHERE ${inWindow('x', 'tp')}))`,
    eligible,
    ...(party === undefined ? [] : [`tp.party = ${party}`]),
  ];
  const otherSide = cursor ? `COALESCE((SELECT true FROM w WHERE w.party ${plan.boundary} ${cursor} LIMIT 1), false)` : 'false';

  // The page's parties, and the key the process keeps a party's statistics by (see scope).
  const parties = `SELECT w.party, encode(w.party, 'hex') AS rv FROM w ${cursor ? `WHERE w.party ${plan.beyond} ${cursor}` : ''}
                    ORDER BY w.party ${plan.fetchOrder} LIMIT ${limit}`;
  const rows = `
    SELECT x.party, x.rv, ${messageJsonSql(lists ? TEAM_MEMBER_STATISTICS : TOTALS, 'x')} AS node, ${cursorSql(TEAM_MEMBER_CURSOR, 'x')} AS cursor
      FROM (SELECT c.party, c.rv, m.total_volume, m.total_rewards,${lists ? ' m.rewards, m.volumes,' : ''} g.games, g.games_played
              FROM (${parties}) AS c
             CROSS JOIN LATERAL (
               -- One index-only scan per party (the primary key carries the columns read), in
               -- epoch order, which the entry lists keep: no aggregate sorts (the plans are
               -- checked by test/operations/page-order.test.ts).
               SELECT sum(s.quantum_volume)::text AS total_volume,
                      sum(s.quantum_rewards)::text AS total_rewards${lists ? EPOCH_LISTS_SQL : ''}
                 FROM (SELECT s.epoch, s.quantum_volume, s.quantum_rewards FROM team_member_stats AS s
                        WHERE ${inWindow('s', 'c')} ORDER BY s.epoch) AS s
             ) AS m
             CROSS JOIN LATERAL (
               -- The party's games with a row in the window: a primary-key range of
               -- team_party_games, in game id order (bytea order is the hex order). Game ids are
               -- hex: quoted, they need no escaping.
               -- The ORDER BY costs no sort on that range, and keeps the order whatever the plan.
               SELECT coalesce(string_agg('"' || encode(pg.game_id, 'hex') || '"', ','), '') AS games, count(*) AS games_played
                 FROM (SELECT pg.game_id FROM team_party_games AS pg
                        WHERE pg.team_id = ${team} AND pg.party = c.party AND pg.epochs && int8range(${windowStart}, ${windowEnd}, '[]')
                        ORDER BY pg.game_id) AS pg
             ) AS g) AS x
     ORDER BY x.party ${plan.fetchOrder}`;
  // Its rows have no order: the page's parties are put in order by `parties`, not by the CTE.
  const w = `w AS MATERIALIZED (SELECT tp.party FROM team_parties AS tp WHERE ${candidates.join(' AND ')})`;
  // A member's statistics are those of its rows in the window, and the store changes them only
  // with the team statistics' read model: within one version of that model and one window, the
  // party names them (RowCache), with or without the lists. Ingestion writes the model's version
  // in the block's transaction.
  const modelVersion = `(SELECT coalesce(max(v.height), 0) FROM read_model_versions AS v WHERE v.model = 'team-member-stats')`;
  const scope = `${modelVersion}::text || '/' || coalesce(${windowStart}::text, '') || '/' || coalesce(${windowEnd}::text, '') || '/' || encode(${team}, 'hex')${lists ? '' : ` || '/totals'`}`;
  return pageStatement('statistics', req, { sql: rows, key: ['party'], otherSide, with: [w], versions: { scope, rows: parties } });
}

/**
 * The per-epoch lists of a member's or a team's rows in the window (alias s, in epoch order),
 * as the aggregates' columns `rewards` and `volumes`: JSON elements joined by commas.
 */
export const EPOCH_LISTS_SQL = `,
                      string_agg(${messageJsonSql(REWARDS_ENTRY, 's')}, ',') AS rewards,
                      string_agg(${messageJsonSql(VOLUMES_ENTRY, 's')}, ',') AS volumes`;
