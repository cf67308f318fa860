import type { CursorDef, MessageDef } from '../../contract/message.js';

/** datanode.api.v2.ReferralSet over a referral_sets row (ids bytea, times bigint ns already µs-truncated). */
export const REFERRAL_SET = {
  name: 'datanode.api.v2.ReferralSet',
  doc: 'A referral set.',
  fields: [
    { name: 'id', doc: "The set's id.", type: 'id', sql: (s) => `${s}.id` },
    { name: 'referrer', doc: "The referrer's party id.", type: 'id', sql: (s) => `${s}.referrer` },
    {
      name: 'createdAt',
      doc: 'Creation time: Unix nanoseconds (int64 as a string), truncated to microseconds.',
      type: 'timestamp',
      sql: (s) => `${s}.created_at`,
    },
    {
      name: 'updatedAt',
      doc: 'Update time, from the creation event: Unix nanoseconds (int64 as a string), truncated to microseconds.',
      type: 'timestamp',
      sql: (s) => `${s}.updated_at`,
    },
    {
      name: 'totalMembers',
      doc: 'Current referees of the set plus one (the referrer); uint64 as a string.',
      type: 'uint64',
      sql: (s) => `(${s}.referee_count + 1)`,
    },
  ],
} as const satisfies MessageDef;

/** A set's position in the sort key (createdAt, id), as the reference writes it: {"CreatedAt":"<RFC3339Nano UTC>","ID":"<id>"}. */
export const REFERRAL_SET_CURSOR = {
  fields: [
    { key: 'CreatedAt', type: 'time', position: 'createdAt', sql: (s) => `${s}.created_at` },
    { key: 'ID', type: 'id', position: 'id', sql: (s) => `${s}.id` },
  ],
} as const satisfies CursorDef;
