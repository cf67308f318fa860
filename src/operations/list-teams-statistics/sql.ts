import type { PositionOf } from '../../contract/message.js';
import { cursorSql, messageJsonSql } from '../../pagination/message.js';
import { sqlPlan, type PageRequest } from '../../pagination/page.js';
import { pageStatement, type PageSql } from '../../pagination/page-sql.js';
import { SqlParams } from '../../pagination/sql-params.js';
import { withoutEpochLists } from '../team-member-stats/message.js';
import { EPOCH_LISTS_SQL } from '../team-member-stats/sql.js';
import { TEAM_STATISTICS, TEAM_STATISTICS_CURSOR } from './message.js';

type Position = PositionOf<typeof TEAM_STATISTICS_CURSOR>;

/** The teams' statistics without the per-epoch lists, for a door that reads neither (team-member-stats/message.ts). */
const TOTALS = withoutEpochLists(TEAM_STATISTICS);

/**
 * The page statement of ListTeamsStatistics (family.md §5.4, §11): the teams with a
 * team_epoch_stats row in the window, in team id order from the cursor, each aggregated over at
 * most N primary-key entries of team_epoch_stats and a primary-key range of team_games.
 *
 * The window is max(0, L−N+1) … L with L = chain_head.last_ended_epoch (the members' window,
 * contract §5); N = 0 or no L makes its start NULL, so no team is in it: an empty page. Its
 * bounds are uncorrelated scalar subqueries, run once (InitPlans).
 *
 * The page's teams are a range of team_stats_spans' primary key from the cursor, each team's
 * span of epochs with statistics read from the index: a team whose span meets the window has a
 * row in it unless the span runs past the window's end (rows of the epoch in progress), when one
 * probe of team_epoch_stats decides. The LIMIT stops the scan once the page is full.
 *
 * As for members, a team's rendered statistics are kept by the process (RowCache) under the
 * model's version and the window: a page whose teams are all kept costs that range alone.
 * Without `lists`, the nodes leave out the per-epoch lists (the console's leaderboard).
 */
export function teamsStatisticsPage(
  teamId: string | undefined,
  aggregationEpochs: bigint,
  req: PageRequest<Position>,
  lists = true,
): { sql: PageSql; params: SqlParams } {
  const params = new SqlParams();
  const plan = sqlPlan(req);
  const n = params.bigint(aggregationEpochs);
  const team = teamId === undefined ? undefined : params.id(teamId);
  const windowStart = `(SELECT greatest(h.last_ended_epoch - ${n} + 1, 0) FROM chain_head AS h WHERE ${n} > 0)`;
  const windowEnd = `(SELECT h.last_ended_epoch FROM chain_head AS h)`;
  /**
   * Whether the team of span t (team_stats_spans) has a row in the window. The probe is a scalar
   * subquery (LIMIT 1): one primary-key descent per team that needs it, never a hashed scan of
   * the table.
   */
  const inWindow = (t: string) =>
    `${t}.first_epoch <= ${windowEnd} AND ${t}.last_epoch >= ${windowStart}
     AND (${t}.last_epoch <= ${windowEnd}
          OR (SELECT true FROM team_epoch_stats AS x WHERE x.team_id = ${t}.team_id AND x.epoch BETWEEN ${windowStart} AND ${windowEnd} LIMIT 1))`;
  /** The teams in the window (alias t), of the one team asked if any, and `more` conditions. */
  const teams = (columns: string, more: string[]) =>
    `SELECT ${columns} FROM team_stats_spans AS t
      WHERE ${[...(team === undefined ? [] : [`t.team_id = ${team}`]), ...more, inWindow('t')].join(' AND ')}`;
  /**
   * The team's rows of the window aggregated: at most N entries of the primary key, which carries
   * the sums (an index-only scan in epoch order, which the entry lists keep).
   */
  const sums = (t: string) => `(
               SELECT sum(s.quantum_volume)::text AS total_volume,
                      sum(s.quantum_rewards)::text AS total_rewards${lists ? EPOCH_LISTS_SQL : ''}
                 FROM (SELECT s.epoch, s.quantum_volume, s.quantum_rewards FROM team_epoch_stats AS s
                        WHERE s.team_id = ${t} AND s.epoch BETWEEN ${windowStart} AND ${windowEnd} ORDER BY s.epoch) AS s)`;
  const cursor = req.cursor ? params.id(req.cursor.teamId) : undefined;
  // The page's teams (limit + 1 of them in key order), and the key the process keeps a team's
  // statistics by (see scope): the versions statement reads only these.
  const keys = `${teams(`t.team_id, encode(t.team_id, 'hex') AS rv`, cursor ? [`t.team_id ${plan.beyond} ${cursor}`] : [])}
     ORDER BY t.team_id ${plan.fetchOrder} LIMIT ${params.bigint(plan.fetchLimit)}`;
  const otherSide = cursor ? `COALESCE((${teams('true', [`t.team_id ${plan.boundary} ${cursor}`])} LIMIT 1), false)` : 'false';
  const rows = `
    SELECT x.team_id, x.rv, ${messageJsonSql(lists ? TEAM_STATISTICS : TOTALS, 'x')} AS node, ${cursorSql(TEAM_STATISTICS_CURSOR, 'x')} AS cursor
      FROM (SELECT c.team_id, c.rv, m.total_volume, m.total_rewards,${lists ? ' m.rewards, m.volumes,' : ''} g.games, g.games_played
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
  // the team statistics' read model (team_epoch_stats, team_stats_spans and team_games are written with it): within
  // one version of that model and one window, the team names them (RowCache), as members' do,
  // with or without the lists.
  const modelVersion = `(SELECT coalesce(max(v.height), 0) FROM read_model_versions AS v WHERE v.model = 'team-member-stats')`;
  const scope = `'${lists ? 'teams' : 'teams-totals'}/' || ${modelVersion}::text || '/' || coalesce(${windowStart}::text, '') || '/' || coalesce(${windowEnd}::text, '')`;
  return {
    sql: pageStatement('statistics', req, { sql: rows, key: ['team_id'], otherSide, versions: { scope, rows: keys } }),
    params,
  };
}
