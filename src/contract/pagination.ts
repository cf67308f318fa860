import { CURSOR_INPUT } from './openapi.js';
import type { FieldSpec } from './query.js';

/** The data-node's cursor pagination (contract §4): its page sizes and its query fields. */
export const DEFAULT_PAGE_SIZE = 1000;
export const MAX_PAGE_SIZE = 5000;

/** The pagination fields every operation accepts. */
export const PAGINATION_FIELDS = {
  first: {
    keys: ['pagination.first'],
    protoName: 'first',
    kind: 'int32',
    description: `Forward page: at most this many rows after \`pagination.after\` (from the start without it). Takes precedence over \`pagination.last\` and \`pagination.before\`, which are then ignored (and not validated). Without \`first\` and \`last\` a page holds ${DEFAULT_PAGE_SIZE} rows. Outside 1..${MAX_PAGE_SIZE}: 400 invalid pagination.`,
    schema: { minimum: 1, maximum: MAX_PAGE_SIZE },
  },
  after: {
    keys: ['pagination.after'],
    protoName: 'after',
    kind: 'string',
    description:
      "Cursor (an edge's `cursor` or `pageInfo.endCursor`): the page starts strictly after this position. Must be percent-encoded (`+` decodes to a space). Ignored when `pagination.last` is given without `pagination.first`. With `pagination.before`: 400.",
    schema: CURSOR_INPUT,
  },
  last: {
    keys: ['pagination.last'],
    protoName: 'last',
    kind: 'int32',
    description: `Backward page: the this-many rows immediately before \`pagination.before\` (the last rows without it), returned in display order. Ignored when \`pagination.first\` is given. Outside 1..${MAX_PAGE_SIZE}: 400 invalid pagination.`,
    schema: { minimum: 1, maximum: MAX_PAGE_SIZE },
  },
  before: {
    keys: ['pagination.before'],
    protoName: 'before',
    kind: 'string',
    description:
      "Cursor (an edge's `cursor` or `pageInfo.startCursor`): the page ends strictly before this position. Must be percent-encoded. Ignored when `pagination.first` is given. With `pagination.after`: 400.",
    schema: CURSOR_INPUT,
  },
  newestFirst: {
    keys: ['pagination.newestFirst', 'pagination.newest_first'],
    protoName: 'newest_first',
    kind: 'bool',
    description:
      'Display order: `true` sorts the whole key descending, `false` ascending. Accepts true/false/1/0/t/f/T/F/TRUE/FALSE/True/False.',
    schema: { default: true },
  },
} as const satisfies Record<string, FieldSpec>;
