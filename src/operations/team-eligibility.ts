/**
 * SQL for the largest aggregationEpochs N for which ListTeamMembersStatistics lists a team: it
 * needs statistics in each epoch of L−N+1 … L (L = the last ended epoch), so N is the run of
 * consecutive epochs with statistics ending at L. The team's epochs are walked from L down (a
 * primary-key range of team_epochs; at most `cap` of them when given) and counted while each is
 * the next one down. 0 without L or without statistics at L.
 */
export function eligibleEpochsSql(teamId: string, cap?: number): string {
  const floor = cap === undefined ? '' : ` AND e.epoch > h.last_ended_epoch - ${cap}`;
  return `(SELECT count(*) FROM (
      SELECT e.epoch, h.last_ended_epoch - row_number() OVER (ORDER BY e.epoch DESC) + 1 AS expected
        FROM team_epochs AS e, chain_head AS h
       WHERE e.team_id = ${teamId} AND e.epoch <= h.last_ended_epoch${floor}) AS run
    WHERE run.epoch = run.expected)`;
}
