import type { MessageDef, PositionOf } from '../../contract/message.js';
import { cursorSql, messageJsonSql } from '../../pagination/message.js';
import { sqlPlan, type PageRequest } from '../../pagination/page.js';
import { keysetRows, pageStatement, type PageSql } from '../../pagination/page-sql.js';
import { SqlParams } from '../../pagination/sql-params.js';
import { TEAM, TEAM_CURSOR } from './message.js';

export type TeamPosition = PositionOf<typeof TEAM_CURSOR>;

/** Which teams (family.md §5.3): all (the list path), one by id, the party's current team, or none (every given key empty). */
export type TeamFilter = null | { teamId: string } | { partyId: string } | 'none';

/**
 * A page of teams in their sort key (created_at, id), each row `node` over `t`, the rows kept by
 * `where` (conditions on `t`, their parameters already in `params`): a keyset range scan of
 * teams_by_created. The (fix) of family.md §4: the cursor compares the whole key, so teams
 * created in one block neither repeat nor vanish across pages. ListTeams and the explorer's team
 * list both page this way.
 */
export function teamsKeysetPage(node: MessageDef, where: string[], req: PageRequest<TeamPosition>, params: SqlParams): PageSql {
  const rows = keysetRows(
    {
      from: 'teams AS t',
      where,
      key: [
        ['t.created_at', 'created_at'],
        ['t.id', 'id'],
      ],
      cursor: req.cursor ? [params.bigint(req.cursor.createdAt), params.id(req.cursor.id)] : null,
      node: messageJsonSql(node, 't'),
      cursorText: cursorSql(TEAM_CURSOR, 't'),
    },
    sqlPlan(req),
    params,
  );
  return pageStatement('teams', req, rows);
}

/** The page statement of ListTeams; the single path a primary-key read of teams (through team_members for a party). */
export function teamsPage(filter: TeamFilter, req: PageRequest<TeamPosition>): { sql: PageSql; params: SqlParams } {
  const params = new SqlParams();
  const where =
    filter === null
      ? []
      : filter === 'none'
        ? ['false']
        : 'teamId' in filter
          ? [`t.id = ${params.id(filter.teamId)}`]
          : [`t.id = (SELECT m.team_id FROM team_members AS m WHERE m.party = ${params.id(filter.partyId)})`];
  return { sql: teamsKeysetPage(TEAM, where, req, params), params };
}
