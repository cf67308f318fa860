import { invalidArgument } from '../../contract/errors.js';
import { requireId } from '../../contract/ids.js';
import { decodePosition } from '../../pagination/cursor.js';
import { pageRequest } from '../../pagination/page.js';
import { readPage } from '../../pagination/page-sql.js';
import type { Operation } from '../operation.js';
import { FIELDS } from './fields.js';
import { EPOCH_REWARD_SUMMARY, EPOCH_REWARD_SUMMARY_CURSOR } from './message.js';
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

/** ListEpochRewardSummaries (contract §5). */
export const listEpochRewardSummaries: Operation<typeof FIELDS> = {
  name: 'ListEpochRewardSummaries',
  service: 'TradingDataService',
  summary: 'List epoch reward summaries',
  description:
    'One summary per (epoch, asset, market, reward type): the sum of the reward payouts. Payout events carry no market, so `marketId` is `""`. ' +
    'Filters: assets, markets, an epoch range. Sort key (epoch, assetId, marketId, rewardType).',
  reads: ['epoch-reward-summaries'],
  fields: FIELDS,
  response: {
    kind: 'page',
    message: 'datanode.api.v2.ListEpochRewardSummariesResponse',
    connection: 'datanode.api.v2.EpochRewardSummaryConnection',
    edge: 'datanode.api.v2.EpochRewardSummaryEdge',
    key: 'summaries',
    node: EPOCH_REWARD_SUMMARY,
    one: 'epoch reward summary',
    many: 'epoch reward summaries',
  },
  errorCode: ERROR_CODE,
  errorMessage: ERROR_MESSAGE,
  async run(ctx, request) {
    const req = pageRequest(request, (cursor) => decodePosition(EPOCH_REWARD_SUMMARY_CURSOR, cursor));
    const filter = {
      assets: checkedIds(request.assetIds, 'asset'),
      markets: checkedIds(request.marketIds, 'market'),
      fromEpoch: request.fromEpoch,
      toEpoch: request.toEpoch,
    };
    const { sql, params } = summariesPage(filter, req);
    return readPage(ctx, sql, params);
  },
};
