import type { PositionOf } from '../../contract/message.js';
import { cursorSql, messageJsonSql } from '../../pagination/message.js';
import { sqlPlan, type PageRequest } from '../../pagination/page.js';
import { keysetRows, pageStatement, type PageSql } from '../../pagination/page-sql.js';
import { SqlParams } from '../../pagination/sql-params.js';
import { TEAM_REFEREE_HISTORY, TEAM_REFEREE_HISTORY_CURSOR } from './message.js';

type Position = PositionOf<typeof TEAM_REFEREE_HISTORY_CURSOR>;

/**
 * The page statement of ListTeamRefereeHistory (family.md §5.6, §11): a range of
 * team_membership_history's primary key (party, joined_at_epoch) from the cursor. (party, epoch)
 * is unique there, so the reference's one-field cursor is a whole position.
 */
export function teamRefereeHistoryPage(party: string, req: PageRequest<Position>): { sql: PageSql; params: SqlParams } {
  const params = new SqlParams();
  const rows = keysetRows(
    {
      from: 'team_membership_history AS h',
      where: [`h.party = ${params.id(party)}`],
      key: [['h.joined_at_epoch', 'joined_at_epoch']],
      cursor: req.cursor ? [params.bigint(req.cursor.joinedAtEpoch)] : null,
      node: messageJsonSql(TEAM_REFEREE_HISTORY, 'h'),
      cursorText: cursorSql(TEAM_REFEREE_HISTORY_CURSOR, 'h'),
    },
    sqlPlan(req),
    params,
  );
  return { sql: pageStatement('teamRefereeHistory', req, rows), params };
}
