import { arrayOf, DECIMAL, described, HEX, ID, ref, UINT64 } from '../../contract/openapi.js';
import { messageJsonSql, type MessageSpec } from '../../pagination/message.js';
import { sqlId, sqlPlainString } from '../../pagination/sql-json.js';

/** v2QuantumRewardsPerEpoch over a team_member_stats row. */
export const REWARDS_ENTRY: MessageSpec = {
  schemaName: 'v2QuantumRewardsPerEpoch',
  description: "A member's quantum rewards in one epoch.",
  fields: [
    { name: 'epoch', schema: described(UINT64, 'The epoch (uint64 as a string).'), sql: (s) => sqlPlainString(`${s}.epoch::text`) },
    {
      name: 'totalQuantumRewards',
      schema: described(DECIMAL, 'Rewards in quantum units, each reward rounded half away from zero.'),
      sql: (s) => sqlPlainString(`${s}.quantum_rewards::text`),
    },
  ],
};

/** v2QuantumVolumesPerEpoch over a team_member_stats row. */
export const VOLUMES_ENTRY: MessageSpec = {
  schemaName: 'v2QuantumVolumesPerEpoch',
  description: "A member's quantum volume in one epoch.",
  fields: [
    { name: 'epoch', schema: described(UINT64, 'The epoch (uint64 as a string).'), sql: (s) => sqlPlainString(`${s}.epoch::text`) },
    {
      name: 'totalQuantumVolumes',
      schema: described(DECIMAL, 'Notional volume in quantum units.'),
      sql: (s) => sqlPlainString(`${s}.quantum_volume::text`),
    },
  ],
};

/**
 * v2TeamMemberStatistics over a page row: `party` (bytea), the totals as text, and the entry
 * lists already written as JSON text (comma-separated elements) by the page's aggregates.
 */
export const MEMBER_STATISTICS: MessageSpec = {
  schemaName: 'v2TeamMemberStatistics',
  description: "A team member's statistics over the aggregation window.",
  fields: [
    { name: 'partyId', schema: described(ID, "The member's party id."), sql: (c) => sqlPlainString(sqlId(`${c}.party`)) },
    { name: 'totalQuantumVolume', schema: described(DECIMAL, 'Sum of `quantumVolumes`.'), sql: (c) => sqlPlainString(`${c}.total_volume`) },
    {
      name: 'totalQuantumRewards',
      schema: described(DECIMAL, 'Sum of `quantumRewards`.'),
      sql: (c) => sqlPlainString(`${c}.total_rewards`),
    },
    {
      name: 'quantumRewards',
      schema: arrayOf(ref(REWARDS_ENTRY.schemaName), 'One entry per epoch with statistics, epoch ascending.'),
      sql: (c) => `'[' || ${c}.rewards || ']'`,
    },
    {
      name: 'totalGamesPlayed',
      schema: described(UINT64, 'The number of `gamesPlayed` (uint64 as a string).'),
      sql: (c) => sqlPlainString(`${c}.games_played::text`),
    },
    {
      name: 'gamesPlayed',
      schema: arrayOf(HEX, 'Distinct game ids played in the window, ascending.'),
      sql: (c) => `'[' || ${c}.games || ']'`,
    },
    {
      name: 'quantumVolumes',
      schema: arrayOf(ref(VOLUMES_ENTRY.schemaName), 'One entry per epoch with statistics, epoch ascending.'),
      sql: (c) => `'[' || ${c}.volumes || ']'`,
    },
  ],
};

/** The JSON text of the entries of a statistics row, for the page's aggregates. */
export const rewardsEntrySql = (s: string) => messageJsonSql(REWARDS_ENTRY, s);
export const volumesEntrySql = (s: string) => messageJsonSql(VOLUMES_ENTRY, s);
