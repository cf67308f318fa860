import { PAGINATION_FIELDS } from '../../contract/pagination.js';
import type { FieldSpec } from '../../contract/query.js';

/** The query fields of the explorer's team list. */
export const FIELDS = {
  ...PAGINATION_FIELDS,
  search: {
    keys: ['search'],
    protoName: 'search',
    kind: 'string',
    description:
      'Only the teams whose name contains this text (case-insensitive, taken literally: `%` and `_` are plain characters) or whose id starts with it (hex, either case). Empty: every team. With a NUL character: none (no name holds one).',
  },
} as const satisfies Record<string, FieldSpec>;
