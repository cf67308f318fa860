import { invalidArgument } from '../../contract/errors.js';
import { requireId } from '../../contract/ids.js';
import { decodePosition } from '../../pagination/cursor.js';
import { pageRequest } from '../../pagination/page.js';
import { readPage } from '../../pagination/page-sql.js';
import type { Operation } from '../operation.js';
import { FIELDS } from './fields.js';
import { REFERRAL_SET_STATS, REFERRAL_SET_STATS_CURSOR } from './message.js';
import { setStatsPage } from './sql.js';

/** vega.ErrorDetail code and message of this operation's errors. */
const ERROR_CODE = 10000;
const ERROR_MESSAGE = 'failed to get referral set stats';

const checkedId = (text: string | undefined) =>
  text === undefined ? undefined : requireId(text, (message) => invalidArgument(ERROR_CODE, ERROR_MESSAGE, message));

/** GetReferralSetStats (family.md §5.2). */
export const getReferralSetStats: Operation<typeof FIELDS> = {
  name: 'GetReferralSetStats',
  service: 'TradingDataService',
  summary: 'Get referral set statistics',
  description:
    "Referral sets' statistics per referee for one epoch: `atEpoch`, else the latest epoch with statistics of any set; with both `referralSetId` and `referee` and no " +
    '`atEpoch`, every epoch of that referee in that set. Strings as the events carried them. Base order (atEpoch ↓, setId ↑, partyId ↑), which ' +
    '`newestFirst=true` (the default) shows reversed.',
  reads: ['referral-set-stats'],
  fields: FIELDS,
  response: {
    kind: 'page',
    message: 'datanode.api.v2.GetReferralSetStatsResponse',
    connection: 'datanode.api.v2.ReferralSetStatsConnection',
    edge: 'datanode.api.v2.ReferralSetStatsEdge',
    key: 'stats',
    node: REFERRAL_SET_STATS,
    one: 'referee entry',
    many: 'referee entries',
  },
  errorCode: ERROR_CODE,
  errorMessage: ERROR_MESSAGE,
  async run(ctx, request) {
    const req = pageRequest(request, (cursor) => decodePosition(REFERRAL_SET_STATS_CURSOR, cursor));
    const setId = checkedId(request.referralSetId);
    const referee = checkedId(request.referee);
    const epoch = request.atEpoch ?? null;
    const history = epoch === null && setId !== undefined && referee !== undefined;
    const { sql, params } = setStatsPage({ epoch, history, setId, referee }, req);
    return readPage(ctx, sql, params);
  },
};
