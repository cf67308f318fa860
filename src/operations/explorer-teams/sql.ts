import type { PageRequest } from '../../pagination/page.js';
import type { PageSql } from '../../pagination/page-sql.js';
import { SqlParams } from '../../pagination/sql-params.js';
import { type TeamPosition, teamsKeysetPage } from '../list-teams/sql.js';
import { TEAM } from './message.js';

/** `text` as a LIKE pattern that matches it literally. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The page statement of the explorer's team list: ListTeams' keyset; a search filters the rows it walks (there are few teams: thousands). */
export function teamsPage(search: string, req: PageRequest<TeamPosition>): { sql: PageSql; params: SqlParams } {
  const params = new SqlParams();
  const where: string[] = [];
  // PostgreSQL's text holds no NUL (and refuses one as a parameter): no name contains one.
  if (search.includes('\0')) where.push('false');
  else if (search !== '') {
    const byName = `t.name ILIKE ${params.text(`%${likeLiteral(search)}%`)}`;
    where.push(
      /^[0-9a-fA-F]+$/.test(search) ? `(${byName} OR encode(t.id, 'hex') LIKE ${params.text(`${search.toLowerCase()}%`)})` : byName,
    );
  }
  return { sql: teamsKeysetPage(TEAM, where, req, params), params };
}
