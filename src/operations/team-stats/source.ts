import type { SqlParam } from '../../db/store.js';
import { sqlPlan, type PageRequest } from '../../pagination/page.js';
import { pageStatement } from '../../pagination/sql.js';

/**
 * The SQL of ListTeamMembersStatistics (contract §5): a keyset over the team's parties that have
 * rows in the window, each with those rows aggregated from team_member_stats.
 *
 * Parameters: $1 team id (hex), $2 N = aggregationEpochs (≥ 1, ≤ 2^63−1, as text), $3 the
 * partyId filter (hex) when given.
 *
 * The window is L−N+1 … L with L = chain_head.last_ended_epoch. Epochs are never negative, so a
 * window reaching below epoch 0 holds fewer than N epochs and the team cannot be eligible: the
 * window's start is only defined when L ≥ N−1, which is also what keeps L−(N−1) from
 * overflowing for any valid N. Otherwise (or without L) it is NULL and every comparison with it
 * fails, giving an empty page. Both bounds are uncorrelated scalar subqueries: PostgreSQL runs
 * them once per statement (InitPlans).
 */
const WINDOW_START = `(SELECT h.last_ended_epoch - ($2::bigint - 1) FROM chain_head AS h WHERE h.last_ended_epoch >= $2::bigint - 1)`;
const WINDOW_END = `(SELECT h.last_ended_epoch FROM chain_head AS h)`;

/**
 * Eligibility, decided on the whole team: statistics rows in N distinct epochs of the window.
 * A primary-key range of team_epochs holding at most N entries, evaluated once (InitPlan).
 */
const TEAM_ELIGIBLE = `(SELECT count(*) FROM team_epochs AS e
                         WHERE e.team_id = decode($1, 'hex') AND e.epoch BETWEEN ${WINDOW_START} AND ${WINDOW_END}) = $2::bigint`;

/** The page party's rows of the window: a primary-key range of team_member_stats. */
const PARTY_ROWS = `team_member_stats AS s
                    WHERE s.team_id = decode($1, 'hex') AND s.party = c.party AND s.epoch BETWEEN ${WINDOW_START} AND ${WINDOW_END}`;

/**
 * The team's parties with rows in the window. A party's rows span first_epoch … last_epoch, so it
 * has one in the window when that span meets it and, if the span runs past the window's end (rows
 * of the epoch in progress), a row inside it. A range of team_parties_by_last_epoch: its cost is
 * the number of parties active in the window, not the team's history.
 */
const WINDOW_PARTIES = `SELECT tp.party FROM team_parties AS tp
   WHERE tp.team_id = decode($1, 'hex') AND tp.last_epoch >= ${WINDOW_START} AND tp.first_epoch <= ${WINDOW_END}
     AND (tp.last_epoch <= ${WINDOW_END}
          OR EXISTS (SELECT 1 FROM team_member_stats AS x
                      WHERE x.team_id = tp.team_id AND x.party = tp.party AND x.epoch BETWEEN ${WINDOW_START} AND ${WINDOW_END}))
     AND ${TEAM_ELIGIBLE}`;

/**
 * A page row as both drivers return it, all text: the entry lists are JSON text already (the
 * elements of quantumRewards, quantumVolumes and gamesPlayed, comma-separated), written by
 * string_agg in the store: cheaper there than decoding arrays in the driver and encoding them
 * again, and every value in them is a decimal number or hex.
 */
export interface TeamStatsRow {
  party: string;
  total_volume: string;
  total_rewards: string;
  rewards: string;
  volumes: string;
  games: string;
}

/**
 * The page statement (see pageStatement) and its parameters. The window's parties are gathered
 * once (a materialized CTE, also probed for the other side of the cursor); the page takes
 * limit + 1 of them in party order, and only those are aggregated: the aggregation is the costly
 * part, so it must never run for parties outside the page.
 */
export function teamStatsQuery(
  teamId: string,
  aggregationEpochs: bigint,
  partyId: string | undefined,
  req: PageRequest<unknown>,
  cursorParty: string | null,
): { sql: string; params: SqlParam[] } {
  const plan = sqlPlan(req);
  const params: SqlParam[] = [teamId, String(aggregationEpochs)];
  let candidates = WINDOW_PARTIES;
  if (partyId !== undefined) {
    params.push(partyId);
    candidates += ` AND tp.party = decode($${params.length}, 'hex')`;
  }
  let beyond = '';
  let otherSide = 'false';
  if (cursorParty !== null) {
    params.push(cursorParty);
    const at = `decode($${params.length}, 'hex')`;
    beyond = `WHERE w.party ${plan.beyond} ${at}`;
    otherSide = `COALESCE((SELECT true FROM w WHERE w.party ${plan.boundary} ${at} LIMIT 1), false)`;
  }
  params.push(plan.fetchLimit);
  const page = `
    SELECT encode(c.party, 'hex') AS party, m.total_volume, m.total_rewards, m.rewards, m.volumes, g.games
      FROM (SELECT w.party FROM w ${beyond} ORDER BY w.party ${plan.fetchOrder} LIMIT $${params.length}) AS c
     CROSS JOIN LATERAL (
       SELECT sum(s.quantum_volume)::text AS total_volume,
              sum(s.quantum_rewards)::text AS total_rewards,
              string_agg('{"epoch":"' || s.epoch || '","totalQuantumRewards":"' || s.quantum_rewards || '"}', ',' ORDER BY s.epoch) AS rewards,
              string_agg('{"epoch":"' || s.epoch || '","totalQuantumVolumes":"' || s.quantum_volume || '"}', ',' ORDER BY s.epoch) AS volumes
         FROM ${PARTY_ROWS}
     ) AS m
     CROSS JOIN LATERAL (
       -- Distinct by sorting (a hash table per party costs more); quoted lowercase hex sorts as the bytes do.
       SELECT coalesce(string_agg(DISTINCT '"' || encode(u.id, 'hex') || '"', ',' ORDER BY '"' || encode(u.id, 'hex') || '"'), '') AS games
         FROM ${PARTY_ROWS.replace('team_member_stats AS s', 'team_member_stats AS s CROSS JOIN LATERAL unnest(s.games) AS u(id)')}
     ) AS g
     ORDER BY c.party ${plan.fetchOrder}`;
  return { sql: `WITH w AS MATERIALIZED (${candidates})${pageStatement(page, otherSide)}`, params };
}
