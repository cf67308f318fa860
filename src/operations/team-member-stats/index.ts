import { invalidArgument } from '../../contract/errors.js';
import { requireId } from '../../contract/ids.js';
import { decodePosition } from '../../pagination/cursor.js';
import { pageRequest } from '../../pagination/page.js';
import { readPage } from '../../pagination/page-sql.js';
import type { Operation } from '../operation.js';
import { DEFAULT_AGGREGATION_EPOCHS, FIELDS } from './fields.js';
import { readsEpochLists, TEAM_MEMBER_CURSOR, TEAM_MEMBER_STATISTICS } from './message.js';
import { teamStatsPage } from './sql.js';

/** vega.ErrorDetail code and message of this operation's errors ("team referees", sic, as the reference says). */
const ERROR_CODE = 10000;
const ERROR_MESSAGE = 'failed to list team referees';

const checkedId = (text: string) => requireId(text, (message) => invalidArgument(ERROR_CODE, ERROR_MESSAGE, message));

/** ListTeamMembersStatistics (contract §5). */
export const listTeamMembersStatistics: Operation<typeof FIELDS> = {
  name: 'ListTeamMembersStatistics',
  service: 'TradingDataService',
  summary: "List team members' statistics",
  description:
    'Per member of the team: quantum volumes and rewards per epoch and the games played, over the last N ended epochs (`aggregationEpochs`, default 10). ' +
    'A team with statistics in fewer than N of those epochs is left out (an empty page), as the interface documents it. Members who left the team still appear ' +
    'for the epochs they have statistics for. Sort key partyId.',
  reads: ['team-member-stats', 'chain-head'],
  fields: FIELDS,
  response: {
    kind: 'page',
    message: 'datanode.api.v2.ListTeamMembersStatisticsResponse',
    connection: 'datanode.api.v2.TeamMembersStatisticsConnection',
    edge: 'datanode.api.v2.TeamMemberStatisticsEdge',
    key: 'statistics',
    node: TEAM_MEMBER_STATISTICS,
    one: "member's statistics",
    many: "members' statistics",
  },
  errorCode: ERROR_CODE,
  errorMessage: ERROR_MESSAGE,
  async run(ctx, request, reads) {
    // Faults in the contract's order: pagination, then ids.
    const req = pageRequest(request, (cursor) => decodePosition(TEAM_MEMBER_CURSOR, cursor));
    const teamId = checkedId(request.teamId ?? '');
    const partyId = request.partyId === undefined ? undefined : checkedId(request.partyId);
    const n = request.aggregationEpochs || DEFAULT_AGGREGATION_EPOCHS;
    const { sql, params } = teamStatsPage(teamId, n, partyId, req, readsEpochLists(reads));
    return readPage(ctx, sql, params);
  },
};
