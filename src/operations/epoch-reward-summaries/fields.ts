import { ID_INPUT, ID_INPUT_TEXT } from '../../contract/openapi.js';
import { PAGINATION_FIELDS } from '../../contract/pagination.js';
import type { FieldSpec } from '../../contract/query.js';

/** The query fields of ListEpochRewardSummaries (contract §2). */
export const FIELDS = {
  ...PAGINATION_FIELDS,
  assetIds: {
    keys: ['filter.assetIds', 'filter.asset_ids'],
    protoName: 'asset_ids',
    kind: 'string',
    repeated: true,
    description: `Only summaries of these assets (none given: every asset). Repeat the key for more ids; a comma is not a separator. Each id: ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  marketIds: {
    keys: ['filter.marketIds', 'filter.market_ids'],
    protoName: 'market_ids',
    kind: 'string',
    repeated: true,
    description: `Only summaries of these markets (none given: every market). Repeat the key for more ids; \`""\` matches the empty market of reward payouts. Each id: ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  fromEpoch: {
    keys: ['filter.fromEpoch', 'filter.from_epoch'],
    protoName: 'from_epoch',
    kind: 'uint64',
    description: 'Only summaries of this epoch or later (inclusive).',
  },
  toEpoch: {
    keys: ['filter.toEpoch', 'filter.to_epoch'],
    protoName: 'to_epoch',
    kind: 'uint64',
    description: 'Only summaries of this epoch or earlier (inclusive).',
  },
} as const satisfies Record<string, FieldSpec>;
