import { ID_INPUT, ID_INPUT_TEXT } from '../../contract/openapi.js';
import { PAGINATION_FIELDS } from '../../contract/pagination.js';
import type { FieldSpec } from '../../contract/query.js';

/** The query fields of GetReferralSetStats (family.md §2). */
export const FIELDS = {
  ...PAGINATION_FIELDS,
  referralSetId: {
    keys: ['referralSetId', 'referral_set_id'],
    protoName: 'referral_set_id',
    kind: 'string',
    description: `Only this set's statistics. Given empty, it matches nothing. ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  atEpoch: {
    keys: ['atEpoch', 'at_epoch'],
    protoName: 'at_epoch',
    kind: 'uint64',
    description:
      'The epoch. When absent: the latest epoch with statistics of any set, or every epoch when both `referralSetId` and `referee` are given.',
  },
  referee: {
    keys: ['referee'],
    protoName: 'referee',
    kind: 'string',
    description: `Only this referee's entries. ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
} as const satisfies Record<string, FieldSpec>;
