import type { CursorDef, MessageDef } from '../../contract/message.js';

/** datanode.api.v2.TeamReferee over a team_members row (joined_at µs-truncated). */
export const TEAM_REFEREE = {
  name: 'datanode.api.v2.TeamReferee',
  doc: 'A member of a team other than its creator, as its current membership says.',
  fields: [
    { name: 'teamId', doc: 'The team.', type: 'id', sql: (m) => `${m}.team_id` },
    { name: 'referee', doc: "The member's party id.", type: 'id', sql: (m) => `${m}.party` },
    {
      name: 'joinedAt',
      doc: 'When the membership began (the join, or the start of the epoch a switch took effect in): Unix nanoseconds (int64 as a string), truncated to microseconds.',
      type: 'timestamp',
      sql: (m) => `${m}.joined_at`,
    },
    { name: 'joinedAtEpoch', doc: 'The epoch it began in (uint64 as a string).', type: 'uint64', sql: (m) => `${m}.at_epoch` },
  ],
} as const satisfies MessageDef;

/** A member's position in the sort key referee, as the reference writes it: {"PartyID":"<party>"}. */
export const TEAM_REFEREE_CURSOR = {
  fields: [{ key: 'PartyID', type: 'id', position: 'referee', sql: (m) => `${m}.party` }],
} as const satisfies CursorDef;
