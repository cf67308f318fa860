import { ID_INPUT, ID_INPUT_TEXT } from '../../contract/openapi.js';
import { PAGINATION_FIELDS } from '../../contract/pagination.js';
import type { FieldSpec } from '../../contract/query.js';

/** N when aggregationEpochs is absent (0 is kept: an empty window). */
export const DEFAULT_AGGREGATION_EPOCHS = 30;

/** The query fields of ListReferralSetReferees (family.md §2). */
export const FIELDS = {
  ...PAGINATION_FIELDS,
  referralSetId: {
    keys: ['referralSetId', 'referral_set_id'],
    protoName: 'referral_set_id',
    kind: 'string',
    description: `Only the referees of this set. Takes precedence over \`referrer\` and \`referee\` (which are still validated). Given empty, it matches nothing. ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  referrer: {
    keys: ['referrer'],
    protoName: 'referrer',
    kind: 'string',
    description: `Only the referees of this referrer's sets (unless \`referralSetId\` is given). ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  referee: {
    keys: ['referee'],
    protoName: 'referee',
    kind: 'string',
    description: `Only this referee's own row, if they are in a set (unless \`referralSetId\` or \`referrer\` is given). ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  aggregationEpochs: {
    keys: ['aggregationEpochs', 'aggregation_epochs'],
    protoName: 'aggregation_epochs',
    kind: 'uint32',
    description: `N, the number of most recent ended epochs the totals cover (epoch 0 never counts). 0 is an empty window: every total is "0". The rows are listed whatever the window.`,
    schema: { default: DEFAULT_AGGREGATION_EPOCHS, minimum: 0, maximum: 4294967295 },
  },
} as const satisfies Record<string, FieldSpec>;
