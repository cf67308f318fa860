import { ID_INPUT, ID_INPUT_TEXT } from '../../contract/openapi.js';
import { PAGINATION_FIELDS } from '../../contract/pagination.js';
import type { FieldSpec } from '../../contract/query.js';

/** The request fields of ListTeamRefereeHistory (family.md §2). */
export const FIELDS = {
  referee: {
    // The path names the party: the query key referee is ignored (family.md §1).
    keys: [],
    protoName: 'referee',
    kind: 'string',
    description: `The party. ${ID_INPUT_TEXT} Empty or unknown: an empty page.`,
    schema: ID_INPUT,
  },
  ...PAGINATION_FIELDS,
} as const satisfies Record<string, FieldSpec>;
