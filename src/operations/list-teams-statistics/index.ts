import { invalidArgument } from '../../contract/errors.js';
import { requireId } from '../../contract/ids.js';
import { decodePosition } from '../../pagination/cursor.js';
import { pageRequest } from '../../pagination/page.js';
import { readPage } from '../../pagination/page-sql.js';
import type { Operation } from '../operation.js';
import { DEFAULT_AGGREGATION_EPOCHS, FIELDS } from './fields.js';
import { readsEpochLists } from '../team-member-stats/message.js';
import { TEAM_STATISTICS, TEAM_STATISTICS_CURSOR } from './message.js';
import { teamsStatisticsPage } from './sql.js';

/** vega.ErrorDetail code and message of this operation's errors (family.md §6). */
const ERROR_CODE = 10000;
const ERROR_MESSAGE = 'failed to list team statistics';

/** ListTeamsStatistics (family.md §5.4). */
export const listTeamsStatistics: Operation<typeof FIELDS> = {
  name: 'ListTeamsStatistics',
  service: 'TradingDataService',
  summary: "List teams' statistics",
  description:
    'Per team with statistics in any of the last N ended epochs (`aggregationEpochs`, default 10; 0 answers an empty page): its quantum volumes and rewards ' +
    'summed per epoch, their totals, and the games its rows played. No eligibility rule: a team with data in fewer than N epochs is listed. Sort key teamId.',
  reads: ['team-member-stats', 'chain-head'],
  fields: FIELDS,
  response: {
    kind: 'page',
    message: 'datanode.api.v2.ListTeamsStatisticsResponse',
    connection: 'datanode.api.v2.TeamsStatisticsConnection',
    edge: 'datanode.api.v2.TeamStatisticsEdge',
    key: 'statistics',
    node: TEAM_STATISTICS,
    one: "team's statistics",
    many: "teams' statistics",
  },
  errorCode: ERROR_CODE,
  errorMessage: ERROR_MESSAGE,
  async run(ctx, request, reads) {
    // Faults in the contract's order: pagination, then ids.
    const req = pageRequest(request, (cursor) => decodePosition(TEAM_STATISTICS_CURSOR, cursor));
    const teamId =
      request.teamId === undefined
        ? undefined
        : requireId(request.teamId, (message) => invalidArgument(ERROR_CODE, ERROR_MESSAGE, message));
    const n = request.aggregationEpochs ?? DEFAULT_AGGREGATION_EPOCHS;
    const { sql, params } = teamsStatisticsPage(teamId, n, req, readsEpochLists(reads));
    return readPage(ctx, sql, params);
  },
};
