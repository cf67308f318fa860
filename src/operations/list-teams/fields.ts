import { ID_INPUT, ID_INPUT_TEXT } from '../../contract/openapi.js';
import { PAGINATION_FIELDS } from '../../contract/pagination.js';
import type { FieldSpec } from '../../contract/query.js';

/** The query fields of ListTeams (family.md §2). */
export const FIELDS = {
  teamId: {
    keys: ['teamId', 'team_id'],
    protoName: 'team_id',
    kind: 'string',
    description: `Only this team: at most one edge, and \`pagination.*\` is ignored (not validated). Takes precedence over \`partyId\` (which is still validated) unless empty; every given key empty: an empty page. ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  partyId: {
    keys: ['partyId', 'party_id'],
    protoName: 'party_id',
    kind: 'string',
    description: `Only the team this party belongs to now, as its creator or a member (unless a non-empty \`teamId\` is given); \`pagination.*\` is ignored. ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  ...PAGINATION_FIELDS,
} as const satisfies Record<string, FieldSpec>;
