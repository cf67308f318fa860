import { described, ID, TIMESTAMP, UINT64 } from '../../contract/openapi.js';
import type { MessageSpec } from '../../pagination/message.js';
import { sqlId, sqlPlainString } from '../../pagination/sql-json.js';

/** vega.ReferralSet over a referral_sets row (ids bytea, times bigint ns already µs-truncated). */
export const REFERRAL_SET: MessageSpec = {
  schemaName: 'v2ReferralSet',
  description: 'A referral set.',
  fields: [
    { name: 'id', schema: described(ID, "The set's id."), sql: (s) => sqlPlainString(sqlId(`${s}.id`)) },
    { name: 'referrer', schema: described(ID, "The referrer's party id."), sql: (s) => sqlPlainString(sqlId(`${s}.referrer`)) },
    {
      name: 'createdAt',
      schema: described(TIMESTAMP, 'Creation time: Unix nanoseconds (int64 as a string), truncated to microseconds.'),
      sql: (s) => sqlPlainString(`${s}.created_at::text`),
    },
    {
      name: 'updatedAt',
      schema: described(
        TIMESTAMP,
        'Update time, from the creation event: Unix nanoseconds (int64 as a string), truncated to microseconds.',
      ),
      sql: (s) => sqlPlainString(`${s}.updated_at::text`),
    },
    {
      name: 'totalMembers',
      schema: described(UINT64, 'Current referees of the set plus one (the referrer); uint64 as a string.'),
      sql: (s) => sqlPlainString(`(${s}.referee_count + 1)::text`),
    },
  ],
};
