import { arrayOf, message, ref } from '../../contract/openapi.js';
import { messageSchema } from '../../pagination/message.js';
import { readPage } from '../../pagination/page-sql.js';
import { SqlParams } from '../../pagination/sql-params.js';
import type { Operation } from '../operation.js';
import { ASSET } from './node.js';
import { ASSETS_SQL } from './sql.js';

/** GET /explorer/api/assets — every asset the explorer can show amounts of, with its symbol and decimals when known. */
export const explorerListAssets: Operation = {
  name: 'ListAssets',
  reads: ['epoch-reward-summaries', 'assets'],
  path: '/explorer/api/assets',
  tag: 'Explorer',
  summary: 'List assets',
  description:
    "Every asset with reward summaries or an asset event, by id (not paged: a chain has tens of assets). Symbol, name, decimals, quantum and status come from the asset's latest event and are null while none was seen.",
  errorCode: 0,
  errorMessage: 'failed to list assets',
  fields: {},
  pathParameters: {},
  schemas: {
    [ASSET.schemaName]: messageSchema(ASSET),
    explorerListAssetsResponse: message('ListAssets response.', [['assets', arrayOf(ref(ASSET.schemaName))]]),
  },
  responseSchema: 'explorerListAssetsResponse',
  responseDescription: 'The assets',
  examples: [],
  run: (store) => readPage(store, ASSETS_SQL, new SqlParams()),
};
