import type { PositionOf } from '../../contract/message.js';
import { cursorSql, messageJsonSql } from '../../pagination/message.js';
import { sqlPlan, type PageRequest } from '../../pagination/page.js';
import { pageStatement, type PageSql } from '../../pagination/page-sql.js';
import { SqlParams } from '../../pagination/sql-params.js';
import { REWARDS_ENTRY, VOLUMES_ENTRY } from '../team-member-stats/message.js';
import { TEAM_STATISTICS, TEAM_STATISTICS_CURSOR } from './message.js';

type Position = PositionOf<typeof TEAM_STATISTICS_CURSOR>;

/**
 * The page statement of ListTeamsStatistics (family.md §5.4, §11): the teams with a
 * team_epoch_stats row in the window, in team id order from the cursor, each aggregated over at
 * most N primary-key entries of team_epoch_stats and a primary-key range of team_games.
 *
 * The window is max(0, L−N+1) … L with L = chain_head.last_ended_epoch (the members' window,
 * contract §5); N = 0 or no L makes its start NULL, so no team is in it: an empty page. Its
 * bounds are uncorrelated scalar subqueries, run once (InitPlans).
 *
 * The team ids are walked by a loose index scan of team_epoch_stats' primary key (a recursive
 * CTE: one descent per distinct team, the next id above the last), each kept when a probe finds
 * a row of it in the window. Without ORDER BY over the walk, its LIMIT stops the recursion once
 * the page is full: a small page costs its own teams' probes, not every team's. A recursive CTE
 * yields its rows in the order its iterations make them, which is the walk's key order.
 *
 * As for members, a team's rendered statistics are kept by the process (RowCache) under the
 * model's version and the window: a page whose teams are all kept costs the walk alone.
 */
export function teamsStatisticsPage(
  teamId: string | undefined,
  aggregationEpochs: bigint,
  req: PageRequest<Position>,
): { sql: PageSql; params: SqlParams } {
  const params = new SqlParams();
  const plan = sqlPlan(req);
  const n = params.bigint(aggregationEpochs);
  const team = teamId === undefined ? undefined : params.id(teamId);
  const windowStart = `(SELECT greatest(h.last_ended_epoch - ${n} + 1, 0) FROM chain_head AS h WHERE ${n} > 0)`;
  const windowEnd = `(SELECT h.last_ended_epoch FROM chain_head AS h)`;
  /** Whether the team (SQL) has a row in the window (else NULL): one probe of the primary key (a scalar subquery: never a join over the table). */
  const inWindow = (t: string) =>
    `(SELECT true FROM team_epoch_stats AS x WHERE x.team_id = ${t} AND x.epoch BETWEEN ${windowStart} AND ${windowEnd} LIMIT 1)`;
  /**
   * The team's rows of the window aggregated: at most N entries of the primary key, which carries
   * the sums (an index-only scan in epoch order, which the entry lists keep).
   */
  const sums = (t: string) => `(
               SELECT sum(s.quantum_volume)::text AS total_volume,
                      sum(s.quantum_rewards)::text AS total_rewards,
                      string_agg(${messageJsonSql(REWARDS_ENTRY, 's')}, ',') AS rewards,
                      string_agg(${messageJsonSql(VOLUMES_ENTRY, 's')}, ',') AS volumes
                 FROM (SELECT s.epoch, s.quantum_volume, s.quantum_rewards FROM team_epoch_stats AS s
                        WHERE s.team_id = ${t} AND s.epoch BETWEEN ${windowStart} AND ${windowEnd} ORDER BY s.epoch) AS s)`;
  const cursor = req.cursor ? params.id(req.cursor.teamId) : undefined;
  const order = (op: string) => (op.startsWith('>') ? 'ASC' : 'DESC');

  /** The walk named `name` over the team ids from `from` (compared by `first`, then strictly onwards). */
  const walk = (name: string, first: string, from: string | undefined) => {
    const strict = first.slice(0, 1);
    return `${name}(team_id) AS (
      (SELECT s.team_id FROM team_epoch_stats AS s ${from ? `WHERE s.team_id ${first} ${from}` : ''} ORDER BY s.team_id ${order(first)} LIMIT 1)
      UNION ALL
      SELECT (SELECT s.team_id FROM team_epoch_stats AS s WHERE s.team_id ${strict} w.team_id ORDER BY s.team_id ${order(first)} LIMIT 1)
        FROM ${name} AS w WHERE w.team_id IS NOT NULL)`;
  };
  const withs: string[] = [];
  // The page's teams (those with a row in the window, limit + 1 of them in key order), and the key
  // the process keeps a team's statistics by (see scope): the versions statement reads only these.
  let keys: string;
  let otherSide = 'false';
  if (team !== undefined) {
    keys = `SELECT ${team}::bytea AS team_id, encode(${team}, 'hex') AS rv WHERE ${inWindow(team)}${cursor ? ` AND ${team} ${plan.beyond} ${cursor}` : ''}`;
    if (cursor) otherSide = `(${team} ${plan.boundary} ${cursor} AND ${inWindow(team)} IS NOT NULL)`;
  } else {
    withs.push(walk('page_teams', plan.beyond, cursor));
    keys = `SELECT k.team_id, encode(k.team_id, 'hex') AS rv
              FROM (SELECT w.team_id FROM page_teams AS w WHERE w.team_id IS NOT NULL AND ${inWindow('w.team_id')}
                     LIMIT ${params.bigint(plan.fetchLimit)}) AS k
             ORDER BY k.team_id ${plan.fetchOrder}`;
    if (cursor) {
      withs.push(walk('other_teams', plan.boundary, cursor));
      otherSide = `COALESCE((SELECT true FROM other_teams AS w WHERE w.team_id IS NOT NULL AND ${inWindow('w.team_id')} LIMIT 1), false)`;
    }
  }
  const rows = `
    SELECT x.team_id, x.rv, ${messageJsonSql(TEAM_STATISTICS, 'x')} AS node, ${cursorSql(TEAM_STATISTICS_CURSOR, 'x')} AS cursor
      FROM (SELECT c.team_id, c.rv, m.total_volume, m.total_rewards, m.rewards, m.volumes, g.games, g.games_played
              FROM (${keys}) AS c
             CROSS JOIN LATERAL ${sums('c.team_id')} AS m
             CROSS JOIN LATERAL (
               -- The team's games with a row in the window: a primary-key range of team_games in
               -- game id order (bytea order is the hex order), the epochs read from the index.
               SELECT coalesce(string_agg('"' || encode(tg.game_id, 'hex') || '"', ','), '') AS games, count(*) AS games_played
                 FROM (SELECT tg.game_id FROM team_games AS tg
                        WHERE tg.team_id = c.team_id AND tg.epochs && int8range(${windowStart}, ${windowEnd}, '[]')
                        ORDER BY tg.game_id) AS tg
             ) AS g) AS x
     ORDER BY x.team_id ${plan.fetchOrder}`;
  // A team's statistics are those of its rows in the window, and the store changes them only with
  // the team statistics' read model (team_epoch_stats and team_games are written with it): within
  // one version of that model and one window, the team names them (RowCache), as members' do.
  const modelVersion = `(SELECT coalesce(max(v.height), 0) FROM read_model_versions AS v WHERE v.model = 'team-member-stats')`;
  const scope = `'teams/' || ${modelVersion}::text || '/' || coalesce(${windowStart}::text, '') || '/' || coalesce(${windowEnd}::text, '')`;
  if (withs.length > 0) withs[0] = `RECURSIVE ${withs[0]}`;
  return {
    sql: pageStatement('statistics', req, { sql: rows, key: ['team_id'], otherSide, with: withs, versions: { scope, rows: keys } }),
    params,
  };
}
