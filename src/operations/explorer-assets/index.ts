import { readItem } from '../../pagination/page-sql.js';
import { SqlParams } from '../../pagination/sql-params.js';
import type { Operation } from '../operation.js';
import { LIST_ASSETS_RESPONSE } from './message.js';
import { ASSETS_SQL } from './sql.js';

/** Every asset the explorer can show amounts of, with its symbol and decimals when known. */
export const explorerListAssets: Operation<Record<string, never>> = {
  name: 'ListAssets',
  service: 'Explorer',
  summary: 'List assets',
  description:
    "Every asset with reward summaries or an asset event, by id (not paged: a chain has tens of assets). Symbol, name, decimals, quantum and status come from the asset's latest event and are null while none was seen.",
  reads: ['epoch-reward-summaries', 'assets'],
  fields: {},
  response: { kind: 'item', message: LIST_ASSETS_RESPONSE },
  errorCode: 0,
  errorMessage: 'failed to list assets',
  run: (ctx) => readItem(ctx, ASSETS_SQL, new SqlParams()),
};
