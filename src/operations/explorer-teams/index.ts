import { decodePosition } from '../../pagination/cursor.js';
import { pageRequest } from '../../pagination/page.js';
import { readPage } from '../../pagination/page-sql.js';
import type { Operation } from '../operation.js';
import { FIELDS } from './fields.js';
import { TEAM_CURSOR } from '../list-teams/message.js';
import { TEAM } from './message.js';
import { teamsPage } from './sql.js';

/** The explorer's team list (the data-node's API at v0.79 has none the explorer can use). */
export const explorerListTeams: Operation<typeof FIELDS> = {
  name: 'ListTeams',
  service: 'Explorer',
  summary: 'List teams',
  description:
    'Teams with their members now and how many epochs of statistics they have, optionally searched by name or id. Sort key (createdAt, id), paged like the ' +
    "data-node's lists (the cursor is ListTeams'). `eligibleEpochs` tells for which `aggregationEpochs` ListTeamMembersStatistics lists the team.",
  reads: ['teams', 'team-member-stats', 'chain-head'],
  fields: FIELDS,
  response: {
    kind: 'page',
    message: 'explorer.ListTeamsResponse',
    connection: 'explorer.TeamConnection',
    edge: 'explorer.TeamEdge',
    key: 'teams',
    node: TEAM,
    one: 'team',
    many: 'teams',
  },
  errorCode: 0,
  errorMessage: 'failed to list teams',
  async run({ store, until }, request) {
    const req = pageRequest(request, (cursor) => decodePosition(TEAM_CURSOR, cursor));
    const { sql, params } = teamsPage(request.search ?? '', req);
    return readPage({ store, until }, sql, params);
  },
};
