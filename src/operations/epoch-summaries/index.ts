import { formatId, requireId } from '../../contract/ids.js';
import { DETAIL, invalidArgument } from '../../contract/errors.js';
import { PAGINATION_FIELDS, parseQuery, type FieldSpec } from '../../contract/query.js';
import { pageJson, pageRequest, type PaginationParams } from '../../pagination/page.js';
import { jsonString } from '../../contract/json.js';
import type { Operation } from '../operation.js';
import { decodePosition, encodePosition } from './cursor.js';
import { fetchSummaryPage, type SummaryFilter } from './sql.js';

/** GET /api/v2/rewards/epoch/summaries — contract §5 ListEpochRewardSummaries. */
const FIELDS = {
  ...PAGINATION_FIELDS,
  assetIds: { keys: ['filter.assetIds', 'filter.asset_ids'], protoName: 'asset_ids', kind: 'string', repeated: true },
  marketIds: { keys: ['filter.marketIds', 'filter.market_ids'], protoName: 'market_ids', kind: 'string', repeated: true },
  fromEpoch: { keys: ['filter.fromEpoch', 'filter.from_epoch'], protoName: 'from_epoch', kind: 'uint64' },
  toEpoch: { keys: ['filter.toEpoch', 'filter.to_epoch'], protoName: 'to_epoch', kind: 'uint64' },
} as const satisfies Record<string, FieldSpec>;

const ERROR_MESSAGE = 'failed to get summary';

/** The distinct ids of a list, as lowercase hex; the first undecodable one is a 400. */
function checkedIds(texts: readonly string[], what: 'asset' | 'market'): string[] {
  const ids = new Set<string>();
  for (const text of texts) {
    ids.add(requireId(text, (message) => invalidArgument(DETAIL.epochSummaries, ERROR_MESSAGE, `could not decode ${what} ID: ${message}`)));
  }
  return [...ids];
}

export const listEpochRewardSummaries: Operation = {
  name: 'ListEpochRewardSummaries',
  path: '/api/v2/rewards/epoch/summaries',
  errorCode: DETAIL.epochSummaries,
  errorMessage: ERROR_MESSAGE,
  fields: FIELDS,
  async run(store, input) {
    const q = parseQuery(input.query, FIELDS);
    const req = pageRequest(q as PaginationParams, decodePosition);
    const filter: SummaryFilter = {
      assets: checkedIds(q.assetIds as string[], 'asset'),
      markets: checkedIds(q.marketIds as string[], 'market'),
      fromEpoch: q.fromEpoch as bigint | undefined,
      toEpoch: q.toEpoch as bigint | undefined,
    };
    const page = await fetchSummaryPage(store, filter, req);
    const body = pageJson('summaries', req, page.rows, page.otherSide, (r) => {
      const assetId = formatId(r.asset_id);
      const marketId = formatId(r.market_id);
      const rewardType = jsonString(r.reward_type);
      return {
        node: `{"epoch":"${r.epoch}","assetId":"${assetId}","marketId":"${marketId}","rewardType":${rewardType},"amount":"${r.amount}"}`,
        cursor: encodePosition(r.epoch, assetId, marketId, rewardType, r.amount),
      };
    });
    return { body, head: page.head };
  },
};
