import { invalidArgument } from '../../contract/errors.js';
import { requireId } from '../../contract/ids.js';
import { decodePosition } from '../../pagination/cursor.js';
import { pageRequest } from '../../pagination/page.js';
import { readPage } from '../../pagination/page-sql.js';
import type { Operation } from '../operation.js';
import { FIELDS } from './fields.js';
import { TEAM, TEAM_CURSOR } from './message.js';
import { type TeamFilter, teamsPage } from './sql.js';

/** vega.ErrorDetail code and message of this operation's errors (family.md §6). */
const ERROR_CODE = 10000;
const ERROR_MESSAGE = 'failed to list teams';

const checkedId = (text: string | undefined) =>
  text === undefined ? undefined : requireId(text, (message) => invalidArgument(ERROR_CODE, ERROR_MESSAGE, message));

/** ListTeams (family.md §5.3). */
export const listTeams: Operation<typeof FIELDS> = {
  name: 'ListTeams',
  service: 'TradingDataService',
  summary: 'List teams',
  description:
    'Every team, sort key (createdAt, teamId); or, with `teamId` or `partyId`, the one team (at most one edge, pagination ignored). ' +
    '`totalMembers` counts the parties whose current team it is, the creator included.',
  reads: ['teams'],
  fields: FIELDS,
  response: {
    kind: 'page',
    message: 'datanode.api.v2.ListTeamsResponse',
    connection: 'datanode.api.v2.TeamConnection',
    edge: 'datanode.api.v2.TeamEdge',
    key: 'teams',
    node: TEAM,
    one: 'team',
    many: 'teams',
  },
  errorCode: ERROR_CODE,
  errorMessage: ERROR_MESSAGE,
  async run(ctx, request) {
    const single = request.teamId !== undefined || request.partyId !== undefined;
    // The single path ignores pagination, unvalidated (family.md §2, kept): its page is the default one.
    const req = pageRequest(single ? {} : request, (cursor) => decodePosition(TEAM_CURSOR, cursor));
    // Both ids are validated, even one that precedence then ignores.
    const teamId = checkedId(request.teamId);
    const partyId = checkedId(request.partyId);
    const filter: TeamFilter = !single ? null : teamId ? { teamId } : partyId ? { partyId } : 'none';
    const { sql, params } = teamsPage(filter, req);
    return readPage(ctx, sql, params);
  },
};
