import { invalidArgument } from '../../contract/errors.js';
import { requireId } from '../../contract/ids.js';
import { decodePosition } from '../../pagination/cursor.js';
import { pageRequest } from '../../pagination/page.js';
import { readPage } from '../../pagination/page-sql.js';
import type { Operation } from '../operation.js';
import { FIELDS } from './fields.js';
import { TEAM_REFEREE_HISTORY, TEAM_REFEREE_HISTORY_CURSOR } from './message.js';
import { teamRefereeHistoryPage } from './sql.js';

/** vega.ErrorDetail code and message of this operation's errors (family.md §6). */
const ERROR_CODE = 10000;
const ERROR_MESSAGE = 'failed to list team referee history';

/** ListTeamRefereeHistory (family.md §5.6). */
export const listTeamRefereeHistory: Operation<typeof FIELDS> = {
  name: 'ListTeamRefereeHistory',
  service: 'TradingDataService',
  summary: "List a party's team history",
  description:
    'The teams the party created, joined or switched to, one per epoch. Creating a team, and being removed from a closed team, erase the earlier rows ' +
    '(as the reference does). Sort key joinedAtEpoch. An unknown party or the empty id answers an empty page.',
  reads: ['teams'],
  fields: FIELDS,
  response: {
    kind: 'page',
    message: 'datanode.api.v2.ListTeamRefereeHistoryResponse',
    connection: 'datanode.api.v2.TeamRefereeHistoryConnection',
    edge: 'datanode.api.v2.TeamRefereeHistoryEdge',
    key: 'teamRefereeHistory',
    node: TEAM_REFEREE_HISTORY,
    one: 'team membership',
    many: 'team memberships',
  },
  errorCode: ERROR_CODE,
  errorMessage: ERROR_MESSAGE,
  async run(ctx, request) {
    // Faults in the contract's order: pagination, then ids.
    const req = pageRequest(request, (cursor) => decodePosition(TEAM_REFEREE_HISTORY_CURSOR, cursor));
    const referee = requireId(request.referee ?? '', (message) => invalidArgument(ERROR_CODE, ERROR_MESSAGE, message));
    const { sql, params } = teamRefereeHistoryPage(referee, req);
    return readPage(ctx, sql, params);
  },
};
