import type { PositionOf } from '../../contract/message.js';
import { cursorSql, messageJsonSql } from '../../pagination/message.js';
import { sqlPlan, type PageRequest } from '../../pagination/page.js';
import { keysetRows, pageStatement, type PageSql } from '../../pagination/page-sql.js';
import { SqlParams } from '../../pagination/sql-params.js';
import { TEAM, TEAM_CURSOR } from './message.js';

type Position = PositionOf<typeof TEAM_CURSOR>;

/** `text` as a LIKE pattern that matches it literally. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The page statement of the team list: a keyset over (created_at, id), a range scan of
 * teams_by_created; a search filters the rows it walks (there are few teams: thousands).
 */
export function teamsPage(search: string, req: PageRequest<Position>): { sql: PageSql; params: SqlParams } {
  const params = new SqlParams();
  const where: string[] = [];
  if (search !== '') {
    const byName = `t.name ILIKE ${params.text(`%${likeLiteral(search)}%`)}`;
    where.push(
      /^[0-9a-fA-F]+$/.test(search) ? `(${byName} OR encode(t.id, 'hex') LIKE ${params.text(`${search.toLowerCase()}%`)})` : byName,
    );
  }
  const rows = keysetRows(
    {
      from: 'teams AS t',
      where,
      key: [
        ['t.created_at', 'created_at'],
        ['t.id', 'id'],
      ],
      cursor: req.cursor ? [params.bigint(req.cursor.createdAt), params.id(req.cursor.id)] : null,
      node: messageJsonSql(TEAM, 't'),
      cursorText: cursorSql(TEAM_CURSOR, 't'),
    },
    sqlPlan(req),
    params,
  );
  return { sql: pageStatement('teams', req, rows), params };
}
