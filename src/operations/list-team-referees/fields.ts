import { ID_INPUT, ID_INPUT_TEXT } from '../../contract/openapi.js';
import { PAGINATION_FIELDS } from '../../contract/pagination.js';
import type { FieldSpec } from '../../contract/query.js';

/** The request fields of ListTeamReferees (family.md §2). */
export const FIELDS = {
  teamId: {
    // The path names the team: no query key sets it (teamId and team_id are ignored, family.md §1).
    keys: [],
    protoName: 'team_id',
    kind: 'string',
    description: `The team. A \`teamId\` or \`team_id\` query key does not override it. ${ID_INPUT_TEXT} Empty or unknown: an empty page.`,
    schema: ID_INPUT,
  },
  ...PAGINATION_FIELDS,
} as const satisfies Record<string, FieldSpec>;
