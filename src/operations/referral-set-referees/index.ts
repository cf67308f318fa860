import { invalidArgument } from '../../contract/errors.js';
import { requireId } from '../../contract/ids.js';
import { decodePosition } from '../../pagination/cursor.js';
import { pageRequest } from '../../pagination/page.js';
import { readPage } from '../../pagination/page-sql.js';
import type { Operation } from '../operation.js';
import { DEFAULT_AGGREGATION_EPOCHS, FIELDS } from './fields.js';
import { REFERRAL_SET_REFEREE, REFERRAL_SET_REFEREE_CURSOR } from './message.js';
import { refereesPage, type RefereeFilter } from './sql.js';

/** vega.ErrorDetail code of this operation's errors. */
const ERROR_CODE = 10000;

const checkedId = (text: string | undefined) =>
  text === undefined ? undefined : requireId(text, (message) => invalidArgument(ERROR_CODE, message));

/** ListReferralSetReferees (family.md §5.1). */
export const listReferralSetReferees: Operation<typeof FIELDS> = {
  name: 'ListReferralSetReferees',
  service: 'TradingDataService',
  summary: 'List referral set referees',
  description:
    "Referees in their current set, filtered by one of (in this precedence) `referralSetId`, `referrer`, `referee`, with each referee's notional taker volume " +
    'and generated rewards over the last N ended epochs (`aggregationEpochs`, default 30). Sort key (joinedAt, referee); unknown ids answer an empty page.',
  reads: ['referral-sets', 'referral-set-stats', 'referral-generated-rewards', 'chain-head'],
  fields: FIELDS,
  response: {
    kind: 'page',
    message: 'datanode.api.v2.ListReferralSetRefereesResponse',
    connection: 'datanode.api.v2.ReferralSetRefereeConnection',
    edge: 'datanode.api.v2.ReferralSetRefereeEdge',
    key: 'referralSetReferees',
    node: REFERRAL_SET_REFEREE,
    one: 'referral set referee',
    many: 'referral set referees',
  },
  errorCode: ERROR_CODE,
  // The reference has no message of its own here (family.md §6).
  errorMessage: 'failed to list referral set referees',
  async run(ctx, request) {
    const req = pageRequest(request, (cursor) => decodePosition(REFERRAL_SET_REFEREE_CURSOR, cursor));
    // Every id given is validated, even one that precedence then ignores.
    const setId = checkedId(request.referralSetId);
    const referrer = checkedId(request.referrer);
    const referee = checkedId(request.referee);
    const filter: RefereeFilter =
      setId !== undefined ? { setId } : referrer !== undefined ? { referrer } : referee !== undefined ? { referee } : null;
    const { sql, params } = refereesPage(filter, request.aggregationEpochs ?? DEFAULT_AGGREGATION_EPOCHS, req);
    return readPage(ctx, sql, params);
  },
};
