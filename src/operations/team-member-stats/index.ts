import { invalidArgument } from '../../contract/errors.js';
import { requireId } from '../../contract/ids.js';
import { pageSchemas } from '../../contract/openapi.js';
import { parseQuery } from '../../contract/query.js';
import { messageSchema } from '../../pagination/message.js';
import { pageRequest } from '../../pagination/page.js';
import { readPage } from '../../pagination/page-sql.js';
import type { Operation } from '../operation.js';
import { decodePosition } from './cursor.js';
import { EXAMPLES } from './examples.js';
import { DEFAULT_AGGREGATION_EPOCHS, FIELDS, PATH_PARAMETERS } from './fields.js';
import { MEMBER_STATISTICS, REWARDS_ENTRY, VOLUMES_ENTRY } from './node.js';
import { teamStatsPage } from './sql.js';

/** vega.ErrorDetail code and message of this operation's errors ("team referees", sic, as the reference says). */
const ERROR_CODE = 10000;
const ERROR_MESSAGE = 'failed to list team referees';

const checkedId = (text: string) => requireId(text, (message) => invalidArgument(ERROR_CODE, ERROR_MESSAGE, message));

/** GET /api/v2/teams/{teamId}/stats — contract §5 ListTeamMembersStatistics. */
export const listTeamMembersStatistics: Operation = {
  name: 'ListTeamMembersStatistics',
  reads: ['team-member-stats', 'chain-head'],
  path: '/api/v2/teams/:teamId/stats',
  tag: 'TradingDataService',
  summary: "List team members' statistics",
  description:
    'Per member of the team: quantum volumes and rewards per epoch and the games played, over the last N ended epochs (`aggregationEpochs`, default 10). ' +
    'A team with statistics in fewer than N of those epochs is left out (an empty page), as the interface documents it. Members who left the team still appear ' +
    'for the epochs they have statistics for. Sort key partyId.',
  errorCode: ERROR_CODE,
  errorMessage: ERROR_MESSAGE,
  fields: FIELDS,
  pathParameters: PATH_PARAMETERS,
  schemas: {
    [REWARDS_ENTRY.schemaName]: messageSchema(REWARDS_ENTRY),
    [VOLUMES_ENTRY.schemaName]: messageSchema(VOLUMES_ENTRY),
    [MEMBER_STATISTICS.schemaName]: messageSchema(MEMBER_STATISTICS),
    ...pageSchemas(
      {
        response: 'v2ListTeamMembersStatisticsResponse',
        connection: 'v2TeamMembersStatisticsConnection',
        edge: 'v2TeamMemberStatisticsEdge',
        node: MEMBER_STATISTICS.schemaName,
      },
      'statistics',
      { one: "member's statistics", many: "members' statistics" },
      'ListTeamMembersStatistics',
    ),
  },
  responseSchema: 'v2ListTeamMembersStatisticsResponse',
  responseDescription: "A page of members' statistics",
  examples: EXAMPLES,
  async run(store, input, rows) {
    // Faults in the contract's order: query parsing, pagination, ids.
    const q = parseQuery(input.query, FIELDS);
    const req = pageRequest(q, decodePosition);
    const teamId = checkedId(input.path.teamId ?? '');
    const partyId = q.partyId === undefined ? undefined : checkedId(q.partyId);
    const n = q.aggregationEpochs || DEFAULT_AGGREGATION_EPOCHS;
    const { sql, params } = teamStatsPage(teamId, n, partyId, req);
    return readPage(store, sql, params, rows);
  },
};
