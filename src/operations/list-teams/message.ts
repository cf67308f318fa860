import type { CursorDef, MessageDef } from '../../contract/message.js';

/** datanode.api.v2.Team over a teams row (times already µs-truncated, family.md §3). */
export const TEAM = {
  name: 'datanode.api.v2.Team',
  doc: 'A team.',
  fields: [
    { name: 'teamId', doc: "The team's id.", type: 'id', sql: (t) => `${t}.id` },
    { name: 'referrer', doc: 'The party that created it.', type: 'id', sql: (t) => `${t}.referrer` },
    { name: 'name', doc: 'Its name, as last set.', type: 'string', sql: (t) => `${t}.name` },
    {
      name: 'teamUrl',
      doc: 'Its URL, as last set; left out when the last creation or update event had none.',
      type: 'string',
      optional: true,
      sql: (t) => `${t}.team_url`,
    },
    {
      name: 'avatarUrl',
      doc: "Its avatar's URL, as last set; left out when the last creation or update event had none.",
      type: 'string',
      optional: true,
      sql: (t) => `${t}.avatar_url`,
    },
    {
      name: 'createdAt',
      doc: 'Creation time: Unix nanoseconds (int64 as a string), truncated to microseconds.',
      type: 'timestamp',
      sql: (t) => `${t}.created_at`,
    },
    { name: 'closed', doc: 'Whether only the parties of `allowList` may join.', type: 'bool', sql: (t) => `${t}.closed` },
    { name: 'createdAtEpoch', doc: 'The epoch it was created in (uint64 as a string).', type: 'uint64', sql: (t) => `${t}.at_epoch` },
    {
      name: 'allowList',
      doc: 'The parties allowed to join a closed team, as given, in their order.',
      type: 'string',
      list: true,
      // The allow list holds ids (checked at ingest), which need no escaping: PostgreSQL's JSON array
      // of them without its brackets is the elements' JSON texts joined by commas, in their order.
      sql: (t) => `btrim(array_to_json(${t}.allow_list)::text, '[]')`,
    },
    {
      name: 'totalMembers',
      doc: 'The parties whose current team it is, the creator included (uint64 as a string); `"0"` when none is left.',
      type: 'uint64',
      // An index-only count of team_members_by_team: the team's members now, never its history.
      sql: (t) => `(SELECT count(*) FROM team_members AS m WHERE m.team_id = ${t}.id)`,
    },
  ],
} as const satisfies MessageDef;

/** A team's position in the sort key (createdAt, teamId), as the reference writes it: {"CreatedAt":"<RFC3339Nano UTC>","ID":"<id>"}. */
export const TEAM_CURSOR = {
  fields: [
    { key: 'CreatedAt', type: 'time', position: 'createdAt', sql: (t) => `${t}.created_at` },
    { key: 'ID', type: 'id', position: 'id', sql: (t) => `${t}.id` },
  ],
} as const satisfies CursorDef;
