import type { CursorDef, MessageDef } from '../../contract/message.js';
import { REWARDS_ENTRY, VOLUMES_ENTRY } from '../team-member-stats/message.js';

/**
 * datanode.api.v2.TeamStatistics over a page row (see sql.ts): `team_id` (bytea), the totals as
 * text, and the entry lists already written as JSON text (comma-separated elements).
 */
export const TEAM_STATISTICS = {
  name: 'datanode.api.v2.TeamStatistics',
  doc: "A team's statistics over the aggregation window.",
  fields: [
    { name: 'teamId', doc: "The team's id.", type: 'id', sql: (c) => `${c}.team_id` },
    { name: 'totalQuantumVolume', doc: 'Sum of `quantumVolumes`.', type: 'decimal', sql: (c) => `${c}.total_volume` },
    { name: 'totalQuantumRewards', doc: 'Sum of `quantumRewards`.', type: 'decimal', sql: (c) => `${c}.total_rewards` },
    {
      name: 'quantumRewards',
      doc: "One entry per epoch of the window with statistics, epoch ascending: the sum of the team's rows of that epoch.",
      type: REWARDS_ENTRY,
      list: true,
      sql: (c) => `${c}.rewards`,
    },
    { name: 'totalGamesPlayed', doc: 'The number of `gamesPlayed` (uint64 as a string).', type: 'uint64', sql: (c) => `${c}.games_played` },
    {
      name: 'gamesPlayed',
      doc: "Distinct game ids played by the team's rows in the window, ascending.",
      type: 'hex',
      list: true,
      sql: (c) => `${c}.games`,
    },
    {
      name: 'quantumVolumes',
      doc: "One entry per epoch of the window with statistics, epoch ascending: the sum of the team's rows of that epoch.",
      type: VOLUMES_ENTRY,
      list: true,
      sql: (c) => `${c}.volumes`,
    },
  ],
} as const satisfies MessageDef;

/** A team's position in the sort key teamId, as the reference writes it: {"ID":"<team>"}. */
export const TEAM_STATISTICS_CURSOR = {
  fields: [{ key: 'ID', type: 'id', position: 'teamId', sql: (c) => `${c}.team_id` }],
} as const satisfies CursorDef;
