import { invalidArgument } from '../../contract/errors.js';
import { requireId } from '../../contract/ids.js';
import { decodePosition } from '../../pagination/cursor.js';
import { pageRequest } from '../../pagination/page.js';
import { readPage } from '../../pagination/page-sql.js';
import type { Operation } from '../operation.js';
import { FIELDS } from './fields.js';
import { TEAM_REFEREE, TEAM_REFEREE_CURSOR } from './message.js';
import { teamRefereesPage } from './sql.js';

/** vega.ErrorDetail code and message of this operation's errors (family.md §6). */
const ERROR_CODE = 10000;
const ERROR_MESSAGE = 'failed to list team referees';

/** ListTeamReferees (family.md §5.5). */
export const listTeamReferees: Operation<typeof FIELDS> = {
  name: 'ListTeamReferees',
  service: 'TradingDataService',
  summary: "List a team's referees",
  description:
    'The parties whose current team it is, except its creator; `joinedAt`/`joinedAtEpoch` are those of the current membership. Sort key referee. ' +
    'An unknown team, one with no creation event, or the empty id answers an empty page.',
  reads: ['teams'],
  fields: FIELDS,
  response: {
    kind: 'page',
    message: 'datanode.api.v2.ListTeamRefereesResponse',
    connection: 'datanode.api.v2.TeamRefereeConnection',
    edge: 'datanode.api.v2.TeamRefereeEdge',
    key: 'teamReferees',
    node: TEAM_REFEREE,
    one: 'team referee',
    many: 'team referees',
  },
  errorCode: ERROR_CODE,
  errorMessage: ERROR_MESSAGE,
  async run(ctx, request) {
    // Faults in the contract's order: pagination, then ids.
    const req = pageRequest(request, (cursor) => decodePosition(TEAM_REFEREE_CURSOR, cursor));
    const teamId = requireId(request.teamId ?? '', (message) => invalidArgument(ERROR_CODE, ERROR_MESSAGE, message));
    const { sql, params } = teamRefereesPage(teamId, req);
    return readPage(ctx, sql, params);
  },
};
