import { invalidArgument } from '../../contract/errors.js';
import { requireId } from '../../contract/ids.js';
import { pageSchemas } from '../../contract/openapi.js';
import { parseQuery } from '../../contract/query.js';
import { messageSchema } from '../../pagination/message.js';
import { pageRequest } from '../../pagination/page.js';
import { readPage } from '../../pagination/page-sql.js';
import type { Operation } from '../operation.js';
import { decodePosition } from './cursor.js';
import { EXAMPLES } from './examples.js';
import { FIELDS } from './fields.js';
import { EPOCH_REWARD_SUMMARY } from './node.js';
import { summariesPage } from './sql.js';

/** vega.ErrorDetail code and message of this operation's errors. */
const ERROR_CODE = 140001;
const ERROR_MESSAGE = 'failed to get summary';

/** The distinct ids of a list, as lowercase hex; the first undecodable one is a 400. */
function checkedIds(texts: readonly string[], what: 'asset' | 'market'): string[] {
  const ids = new Set<string>();
  for (const text of texts) {
    ids.add(requireId(text, (message) => invalidArgument(ERROR_CODE, ERROR_MESSAGE, `could not decode ${what} ID: ${message}`)));
  }
  return [...ids];
}

/** GET /api/v2/rewards/epoch/summaries — contract §5 ListEpochRewardSummaries. */
export const listEpochRewardSummaries: Operation = {
  name: 'ListEpochRewardSummaries',
  reads: ['epoch-reward-summaries'],
  path: '/api/v2/rewards/epoch/summaries',
  tag: 'TradingDataService',
  summary: 'List epoch reward summaries',
  description:
    'One summary per (epoch, asset, market, reward type): the sum of the reward payouts. Payout events carry no market, so `marketId` is `""`. ' +
    'Filters: assets, markets, an epoch range. Sort key (epoch, assetId, marketId, rewardType).',
  errorCode: ERROR_CODE,
  errorMessage: ERROR_MESSAGE,
  fields: FIELDS,
  pathParameters: {},
  schemas: {
    [EPOCH_REWARD_SUMMARY.schemaName]: messageSchema(EPOCH_REWARD_SUMMARY),
    ...pageSchemas(
      {
        response: 'v2ListEpochRewardSummariesResponse',
        connection: 'v2EpochRewardSummaryConnection',
        edge: 'v2EpochRewardSummaryEdge',
        node: EPOCH_REWARD_SUMMARY.schemaName,
      },
      'summaries',
      { one: 'epoch reward summary', many: 'epoch reward summaries' },
      'ListEpochRewardSummaries',
    ),
  },
  responseSchema: 'v2ListEpochRewardSummariesResponse',
  responseDescription: 'A page of epoch reward summaries',
  examples: EXAMPLES,
  async run(store, input, rows) {
    const q = parseQuery(input.query, FIELDS);
    const req = pageRequest(q, decodePosition);
    const filter = {
      assets: checkedIds(q.assetIds, 'asset'),
      markets: checkedIds(q.marketIds, 'market'),
      fromEpoch: q.fromEpoch,
      toEpoch: q.toEpoch,
    };
    const { sql, params } = summariesPage(filter, req);
    return readPage(store, sql, params, rows);
  },
};
