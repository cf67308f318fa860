import type { PositionOf } from '../../contract/message.js';
import { cursorSql, messageJsonSql } from '../../pagination/message.js';
import { sqlPlan, type PageRequest } from '../../pagination/page.js';
import { keysetRows, pageStatement, type PageSql } from '../../pagination/page-sql.js';
import { SqlParams } from '../../pagination/sql-params.js';
import { TEAM_REFEREE, TEAM_REFEREE_CURSOR } from './message.js';

type Position = PositionOf<typeof TEAM_REFEREE_CURSOR>;

/**
 * The page statement of ListTeamReferees (family.md §5.5, §11): a keyset over the team's
 * members, a range of team_members_by_team (team_id, party), without the team's creator. The
 * creator is one primary-key read of teams (an uncorrelated subquery, run once); a team with no
 * creation event has none, and comparing with NULL keeps no row: an empty page.
 */
export function teamRefereesPage(teamId: string, req: PageRequest<Position>): { sql: PageSql; params: SqlParams } {
  const params = new SqlParams();
  const team = params.id(teamId);
  const rows = keysetRows(
    {
      from: 'team_members AS m',
      where: [`m.team_id = ${team}`, `m.party <> (SELECT t.referrer FROM teams AS t WHERE t.id = ${team})`],
      key: [['m.party', 'party']],
      cursor: req.cursor ? [params.id(req.cursor.referee)] : null,
      node: messageJsonSql(TEAM_REFEREE, 'm'),
      cursorText: cursorSql(TEAM_REFEREE_CURSOR, 'm'),
    },
    sqlPlan(req),
    params,
  );
  return { sql: pageStatement('teamReferees', req, rows), params };
}
