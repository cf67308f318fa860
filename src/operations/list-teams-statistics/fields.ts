import { ID_INPUT, ID_INPUT_TEXT } from '../../contract/openapi.js';
import { PAGINATION_FIELDS } from '../../contract/pagination.js';
import type { FieldSpec } from '../../contract/query.js';

/** N when aggregationEpochs is absent (0 is kept: an empty page, family.md §5.4). */
export const DEFAULT_AGGREGATION_EPOCHS = 10n;

/** The query fields of ListTeamsStatistics (family.md §2). */
export const FIELDS = {
  teamId: {
    keys: ['teamId', 'team_id'],
    protoName: 'team_id',
    kind: 'string',
    description: `Only this team. Given empty, it matches nothing. ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  aggregationEpochs: {
    keys: ['aggregationEpochs', 'aggregation_epochs'],
    protoName: 'aggregation_epochs',
    kind: 'uint64',
    description: `N, the number of most recent ended epochs to aggregate (default ${DEFAULT_AGGREGATION_EPOCHS}; 0 answers an empty page). A team with statistics in any of them is listed.`,
    schema: { default: String(DEFAULT_AGGREGATION_EPOCHS) },
  },
  ...PAGINATION_FIELDS,
} as const satisfies Record<string, FieldSpec>;
