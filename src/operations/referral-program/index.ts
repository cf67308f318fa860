import { ApiError } from '../../contract/errors.js';
import { readItem } from '../../pagination/page-sql.js';
import { SqlParams } from '../../pagination/sql-params.js';
import type { Operation } from '../operation.js';
import { CURRENT_REFERRAL_PROGRAM } from './message.js';
import { CURRENT_PROGRAM_SQL } from './sql.js';

/** vega.ErrorDetail code and message of this operation's errors. */
const ERROR_CODE = 10000;
const ERROR_MESSAGE = 'failed to get current referral program';

/**
 * (fix) No program yet: 404 NotFound with the reference's detail message and inner (it answers
 * 500 Internal error; family.md §5.7 says why NotFound).
 */
export const noProgram = () =>
  new ApiError(404, 5, 'NotFound error', [
    { '@type': 'type.googleapis.com/vega.ErrorDetail', code: ERROR_CODE, message: ERROR_MESSAGE, inner: 'no rows in result set' },
  ]);

/** GetCurrentReferralProgram (family.md §5.7). It reads no query string at all (keep). */
export const getCurrentReferralProgram: Operation<Record<string, never>> = {
  name: 'GetCurrentReferralProgram',
  service: 'TradingDataService',
  summary: 'Get the current referral program',
  description:
    'The program of the latest program event: started or updated, or the last one with its end (`endedAt`) once ended, until another starts. ' +
    'No program yet: 404 NotFound.',
  reads: ['referral-program'],
  fields: {},
  ignoresQuery: true,
  notFound: 'No program yet: `code` 5 with the detail 10000 `failed to get current referral program`, inner `no rows in result set`.',
  response: { kind: 'item', message: CURRENT_REFERRAL_PROGRAM },
  errorCode: ERROR_CODE,
  errorMessage: ERROR_MESSAGE,
  async run(ctx) {
    const item = await readItem(ctx, CURRENT_PROGRAM_SQL, new SqlParams());
    if (item.json === '') throw noProgram();
    return item;
  },
};
