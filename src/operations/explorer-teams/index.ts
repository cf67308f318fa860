import { pageSchemas } from '../../contract/openapi.js';
import { parseQuery } from '../../contract/query.js';
import { messageSchema } from '../../pagination/message.js';
import { pageRequest } from '../../pagination/page.js';
import { readPage } from '../../pagination/page-sql.js';
import type { Operation } from '../operation.js';
import { decodePosition } from './cursor.js';
import { FIELDS } from './fields.js';
import { TEAM } from './node.js';
import { teamsPage } from './sql.js';

/** GET /explorer/api/teams — the explorer's team list (the API has none). */
export const explorerListTeams: Operation = {
  name: 'ListTeams',
  reads: ['teams', 'team-member-stats', 'chain-head'],
  path: '/explorer/api/teams',
  tag: 'Explorer',
  summary: 'List teams',
  description:
    'Teams with their members now and how many epochs of statistics they have, optionally searched by name or id. Sort key (createdAt, id), paged like the ' +
    "data-node's lists (the cursor has the referral sets' shape). `eligibleEpochs` tells for which `aggregationEpochs` ListTeamMembersStatistics lists the team.",
  errorCode: 0,
  errorMessage: 'failed to list teams',
  fields: FIELDS,
  pathParameters: {},
  schemas: {
    [TEAM.schemaName]: messageSchema(TEAM),
    ...pageSchemas(
      { response: 'explorerListTeamsResponse', connection: 'explorerTeamConnection', edge: 'explorerTeamEdge', node: TEAM.schemaName },
      'teams',
      { one: 'team', many: 'teams' },
      'ListTeams',
    ),
  },
  responseSchema: 'explorerListTeamsResponse',
  responseDescription: 'A page of teams',
  examples: [],
  async run(store, input) {
    const q = parseQuery(input.query, FIELDS);
    const req = pageRequest(q, decodePosition);
    const { sql, params } = teamsPage(q.search ?? '', req);
    return readPage(store, sql, params);
  },
};
