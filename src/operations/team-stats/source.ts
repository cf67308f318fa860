import type { KeysetSource } from '../../pagination/sql.js';

/**
 * The SQL of ListTeamMembersStatistics (contract §5): a keyset over a team's parties, each with
 * its rows of the window aggregated from team_member_stats.
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

/** The party's rows of the window: a primary-key range of team_member_stats. */
const PARTY_ROWS = `team_member_stats AS s
                    WHERE s.team_id = tp.team_id AND s.party = tp.party AND s.epoch BETWEEN ${WINDOW_START} AND ${WINDOW_END}`;

/** A page row as both drivers return it: every value text or an array of text. */
export interface TeamStatsRow {
  party: string;
  total_volume: string;
  total_rewards: string;
  epochs: string[];
  volumes: string[];
  rewards: string[];
  games: string[];
}

export function teamStatsSource(teamId: string, aggregationEpochs: bigint, partyId: string | undefined): KeysetSource {
  return {
    // Games are gathered only for the rows of the page (the select list is computed for the
    // rows the LIMIT takes, not for every row the keyset scan looks at).
    columns: `encode(tp.party, 'hex') AS party, m.total_volume, m.total_rewards, m.epochs, m.volumes, m.rewards,
              ARRAY(SELECT encode(g.id, 'hex')
                      FROM (SELECT DISTINCT unnest(s.games) AS id FROM ${PARTY_ROWS}) AS g
                     ORDER BY g.id) AS games`,
    // Parties whose span of epochs meets the window, in (team_id, party) order from the primary
    // key, each with its window rows aggregated; one without rows in the window (a gap) is left out.
    from: `team_parties AS tp
           CROSS JOIN LATERAL (
             SELECT count(*) AS row_count,
                    sum(s.quantum_volume)::text AS total_volume,
                    sum(s.quantum_rewards)::text AS total_rewards,
                    array_agg(s.epoch::text ORDER BY s.epoch) AS epochs,
                    array_agg(s.quantum_volume::text ORDER BY s.epoch) AS volumes,
                    array_agg(s.quantum_rewards::text ORDER BY s.epoch) AS rewards
               FROM ${PARTY_ROWS}
           ) AS m`,
    where: [
      `tp.team_id = decode($1, 'hex')`,
      TEAM_ELIGIBLE,
      `tp.last_epoch >= ${WINDOW_START}`,
      `tp.first_epoch <= ${WINDOW_END}`,
      `m.row_count > 0`,
      ...(partyId === undefined ? [] : [`tp.party = decode($3, 'hex')`]),
    ],
    params: [teamId, String(aggregationEpochs), ...(partyId === undefined ? [] : [partyId])],
    key: ['tp.party'],
    keyTypes: ['bytea'],
  };
}
