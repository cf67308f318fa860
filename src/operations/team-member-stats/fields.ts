import { ID_INPUT, ID_INPUT_TEXT, ID_PATH_INPUT } from '../../contract/openapi.js';
import { PAGINATION_FIELDS } from '../../contract/pagination.js';
import type { FieldSpec } from '../../contract/query.js';

/** N when aggregationEpochs is absent or 0. */
export const DEFAULT_AGGREGATION_EPOCHS = 10n;

/** The request fields of ListTeamMembersStatistics (contract §2). */
export const FIELDS = {
  ...PAGINATION_FIELDS,
  teamId: {
    // The path names the team: no query key sets it (teamId and team_id are ignored there).
    keys: [],
    protoName: 'team_id',
    kind: 'string',
    description: `The team. A \`teamId\` or \`team_id\` query key does not override it. ${ID_INPUT_TEXT} An unknown team answers an empty page.`,
    schema: ID_PATH_INPUT,
  },
  partyId: {
    keys: ['partyId', 'party_id'],
    protoName: 'party_id',
    kind: 'string',
    description: `Only this member (team eligibility is still decided on the whole team). Given empty, it matches nothing. ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  aggregationEpochs: {
    keys: ['aggregationEpochs', 'aggregation_epochs'],
    protoName: 'aggregation_epochs',
    kind: 'uint64',
    description: `N, the number of most recent ended epochs to aggregate (0 means ${DEFAULT_AGGREGATION_EPOCHS}). A team with statistics in fewer than N of them is left out (an empty page).`,
    schema: { default: String(DEFAULT_AGGREGATION_EPOCHS) },
  },
} as const satisfies Record<string, FieldSpec>;
