import { described, ID, TIMESTAMP, UINT64 } from '../../contract/openapi.js';
import type { MessageSpec } from '../../pagination/message.js';
import { sqlId, sqlJsonString, sqlPlainString } from '../../pagination/sql-json.js';
import { eligibleEpochsSql } from './eligible.js';

/** A team of the explorer's list, over a teams row: its details, members now, and statistics epochs. */
export const TEAM: MessageSpec = {
  schemaName: 'explorerTeam',
  description: 'A team.',
  fields: [
    { name: 'id', schema: described(ID, "The team's id."), sql: (t) => sqlPlainString(sqlId(`${t}.id`)) },
    { name: 'name', schema: { type: 'string', description: 'Its name, as last set.' }, sql: (t) => sqlJsonString(`${t}.name`) },
    { name: 'referrer', schema: described(ID, 'The party that created it.'), sql: (t) => sqlPlainString(sqlId(`${t}.referrer`)) },
    {
      name: 'totalMembers',
      schema: described(UINT64, 'Its members now, the referrer included (uint64 as a string).'),
      sql: (t) => sqlPlainString(`(SELECT count(*) FROM team_members AS m WHERE m.team_id = ${t}.id)::text`),
    },
    {
      name: 'createdAt',
      schema: described(TIMESTAMP, 'Creation time: Unix nanoseconds (int64 as a string).'),
      sql: (t) => sqlPlainString(`${t}.created_at::text`),
    },
    {
      name: 'closed',
      schema: { type: 'boolean', description: 'Whether it is closed to new members.' },
      sql: (t) => `CASE WHEN ${t}.closed THEN 'true' ELSE 'false' END`,
    },
    {
      name: 'epochsWithStats',
      schema: described(
        UINT64,
        'The epochs with statistics for the team (a member traded or earned a counted reward), over its whole history.',
      ),
      sql: (t) => sqlPlainString(`(SELECT count(*) FROM team_epochs AS e WHERE e.team_id = ${t}.id)::text`),
    },
    {
      name: 'eligibleEpochs',
      schema: described(
        UINT64,
        'The largest `aggregationEpochs` for which ListTeamMembersStatistics lists the team: its run of consecutive epochs with statistics ending at the last ended epoch. `"0"`: listed for none.',
      ),
      sql: (t) => sqlPlainString(`${eligibleEpochsSql(`${t}.id`)}::text`),
    },
  ],
};
