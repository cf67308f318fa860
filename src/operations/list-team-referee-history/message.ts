import type { CursorDef, MessageDef } from '../../contract/message.js';

/** datanode.api.v2.TeamRefereeHistory over a team_membership_history row (joined_at µs-truncated). */
export const TEAM_REFEREE_HISTORY = {
  name: 'datanode.api.v2.TeamRefereeHistory',
  doc: "One of a party's team memberships: a team it created, joined, or switched to.",
  fields: [
    { name: 'teamId', doc: 'The team.', type: 'id', sql: (h) => `${h}.team_id` },
    {
      name: 'joinedAt',
      doc: 'When the membership began (creation, join, or the start of the epoch a switch took effect in): Unix nanoseconds (int64 as a string), truncated to microseconds.',
      type: 'timestamp',
      sql: (h) => `${h}.joined_at`,
    },
    { name: 'joinedAtEpoch', doc: 'The epoch it began in (uint64 as a string).', type: 'uint64', sql: (h) => `${h}.joined_at_epoch` },
  ],
} as const satisfies MessageDef;

/** A membership's position in the sort key joinedAtEpoch, as the reference writes it: {"JoinedAtEpoch":<n>}. */
export const TEAM_REFEREE_HISTORY_CURSOR = {
  fields: [{ key: 'JoinedAtEpoch', type: 'uint64', position: 'joinedAtEpoch', sql: (h) => `${h}.joined_at_epoch` }],
} as const satisfies CursorDef;
