import { ID_INPUT, ID_INPUT_TEXT } from '../../contract/openapi.js';
import { PAGINATION_FIELDS } from '../../contract/pagination.js';
import type { FieldSpec } from '../../contract/query.js';

/** The query fields of ListReferralSets (contract §2). */
export const FIELDS = {
  ...PAGINATION_FIELDS,
  referralSetId: {
    keys: ['referralSetId', 'referral_set_id'],
    protoName: 'referral_set_id',
    kind: 'string',
    description: `Only this set. Takes precedence over \`referrer\` and \`referee\` (which are still validated). Given empty, it matches nothing. ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  referrer: {
    keys: ['referrer'],
    protoName: 'referrer',
    kind: 'string',
    description: `Only the sets of this referrer (unless \`referralSetId\` is given). ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  referee: {
    keys: ['referee'],
    protoName: 'referee',
    kind: 'string',
    description: `Only the set this referee currently belongs to (unless \`referralSetId\` or \`referrer\` is given). ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
} as const satisfies Record<string, FieldSpec>;
