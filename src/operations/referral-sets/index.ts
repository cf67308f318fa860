import { invalidArgument } from '../../contract/errors.js';
import { requireId } from '../../contract/ids.js';
import { parseQuery } from '../../contract/query.js';
import { messageSchema } from '../../pagination/message.js';
import { pageRequest } from '../../pagination/page.js';
import { readPage } from '../../pagination/page-sql.js';
import { pageSchemas } from '../../contract/openapi.js';
import type { Operation } from '../operation.js';
import { decodePosition } from './cursor.js';
import { EXAMPLES } from './examples.js';
import { FIELDS } from './fields.js';
import { REFERRAL_SET } from './node.js';
import { referralSetsPage, type SetFilter } from './sql.js';

/** vega.ErrorDetail code of this operation's errors. */
const ERROR_CODE = 10000;

const checkedId = (text: string | undefined) =>
  text === undefined ? undefined : requireId(text, (message) => invalidArgument(ERROR_CODE, message));

/** GET /api/v2/referral-sets — contract §5 ListReferralSets. */
export const listReferralSets: Operation = {
  name: 'ListReferralSets',
  reads: ['referral-sets'],
  path: '/api/v2/referral-sets',
  tag: 'TradingDataService',
  summary: 'List referral sets',
  description:
    'Referral sets, filtered by one of (in this precedence) `referralSetId`, `referrer`, `referee`. `totalMembers` counts the current referees plus the referrer. ' +
    'Sort key (createdAt, id); unknown ids answer an empty page.',
  errorCode: ERROR_CODE,
  errorMessage: 'failed to list referral sets',
  fields: FIELDS,
  pathParameters: {},
  schemas: {
    [REFERRAL_SET.schemaName]: messageSchema(REFERRAL_SET),
    ...pageSchemas(
      {
        response: 'v2ListReferralSetsResponse',
        connection: 'v2ReferralSetConnection',
        edge: 'v2ReferralSetEdge',
        node: REFERRAL_SET.schemaName,
      },
      'referralSets',
      { one: 'referral set', many: 'referral sets' },
      'ListReferralSets',
    ),
  },
  responseSchema: 'v2ListReferralSetsResponse',
  responseDescription: 'A page of referral sets',
  examples: EXAMPLES,
  async run(store, input, rows) {
    const q = parseQuery(input.query, FIELDS);
    const req = pageRequest(q, decodePosition);
    // Every id given is validated, even one that precedence then ignores.
    const setId = checkedId(q.referralSetId);
    const referrer = checkedId(q.referrer);
    const referee = checkedId(q.referee);
    const filter: SetFilter =
      setId !== undefined ? { setId } : referrer !== undefined ? { referrer } : referee !== undefined ? { referee } : null;
    const { sql, params } = referralSetsPage(filter, req);
    return readPage(store, sql, params, rows);
  },
};
