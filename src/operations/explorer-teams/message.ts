import type { MessageDef } from '../../contract/message.js';
import { eligibleEpochsSql } from '../team-eligibility.js';

/** A team of the explorer's list, over a teams row: its details, members now, and statistics epochs. */
export const TEAM = {
  name: 'explorer.Team',
  doc: 'A team.',
  fields: [
    { name: 'id', doc: "The team's id.", type: 'id', sql: (t) => `${t}.id` },
    { name: 'name', doc: 'Its name, as last set.', type: 'string', sql: (t) => `${t}.name` },
    { name: 'referrer', doc: 'The party that created it.', type: 'id', sql: (t) => `${t}.referrer` },
    {
      name: 'totalMembers',
      doc: 'Its members now, the referrer included (uint64 as a string).',
      type: 'uint64',
      sql: (t) => `(SELECT count(*) FROM team_members AS m WHERE m.team_id = ${t}.id)`,
    },
    { name: 'createdAt', doc: 'Creation time: Unix nanoseconds (int64 as a string).', type: 'timestamp', sql: (t) => `${t}.created_at` },
    { name: 'closed', doc: 'Whether it is closed to new members.', type: 'bool', sql: (t) => `${t}.closed` },
    {
      name: 'epochsWithStats',
      doc: 'The epochs with statistics for the team (a member traded or earned a counted reward), over its whole history.',
      type: 'uint64',
      sql: (t) => `(SELECT count(*) FROM team_epochs AS e WHERE e.team_id = ${t}.id)`,
    },
    {
      name: 'eligibleEpochs',
      doc: 'The largest `aggregationEpochs` for which ListTeamMembersStatistics lists the team: its run of consecutive epochs with statistics ending at the last ended epoch. `"0"`: listed for none.',
      type: 'uint64',
      sql: (t) => eligibleEpochsSql(`${t}.id`),
    },
  ],
} as const satisfies MessageDef;
