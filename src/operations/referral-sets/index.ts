import { invalidArgument } from '../../contract/errors.js';
import { requireId } from '../../contract/ids.js';
import { decodePosition } from '../../pagination/cursor.js';
import { pageRequest } from '../../pagination/page.js';
import { readPage } from '../../pagination/page-sql.js';
import type { Operation } from '../operation.js';
import { FIELDS } from './fields.js';
import { REFERRAL_SET, REFERRAL_SET_CURSOR } from './message.js';
import { referralSetsPage, type SetFilter } from './sql.js';

/** vega.ErrorDetail code of this operation's errors. */
const ERROR_CODE = 10000;

const checkedId = (text: string | undefined) =>
  text === undefined ? undefined : requireId(text, (message) => invalidArgument(ERROR_CODE, message));

/** ListReferralSets (contract §5). */
export const listReferralSets: Operation<typeof FIELDS> = {
  name: 'ListReferralSets',
  service: 'TradingDataService',
  summary: 'List referral sets',
  description:
    'Referral sets, filtered by one of (in this precedence) `referralSetId`, `referrer`, `referee`. `totalMembers` counts the current referees plus the referrer. ' +
    'Sort key (createdAt, id); unknown ids answer an empty page.',
  reads: ['referral-sets'],
  fields: FIELDS,
  response: {
    kind: 'page',
    message: 'datanode.api.v2.ListReferralSetsResponse',
    connection: 'datanode.api.v2.ReferralSetConnection',
    edge: 'datanode.api.v2.ReferralSetEdge',
    key: 'referralSets',
    node: REFERRAL_SET,
    one: 'referral set',
    many: 'referral sets',
  },
  errorCode: ERROR_CODE,
  errorMessage: 'failed to list referral sets',
  async run(ctx, request) {
    const req = pageRequest(request, (cursor) => decodePosition(REFERRAL_SET_CURSOR, cursor));
    // Every id given is validated, even one that precedence then ignores.
    const setId = checkedId(request.referralSetId);
    const referrer = checkedId(request.referrer);
    const referee = checkedId(request.referee);
    const filter: SetFilter =
      setId !== undefined ? { setId } : referrer !== undefined ? { referrer } : referee !== undefined ? { referee } : null;
    const { sql, params } = referralSetsPage(filter, req);
    return readPage(ctx, sql, params);
  },
};
