import type { CursorDef, FieldsRead, MessageDef } from '../../contract/message.js';

/** datanode.api.v2.QuantumRewardsPerEpoch over a team_member_stats row. */
export const REWARDS_ENTRY = {
  name: 'datanode.api.v2.QuantumRewardsPerEpoch',
  doc: 'Quantum rewards in one epoch.',
  fields: [
    { name: 'epoch', doc: 'The epoch (uint64 as a string).', type: 'uint64', sql: (s) => `${s}.epoch` },
    {
      name: 'totalQuantumRewards',
      doc: 'Rewards in quantum units, each reward rounded half away from zero.',
      type: 'decimal',
      sql: (s) => `${s}.quantum_rewards`,
    },
  ],
} as const satisfies MessageDef;

/** datanode.api.v2.QuantumVolumesPerEpoch over a team_member_stats row. */
export const VOLUMES_ENTRY = {
  name: 'datanode.api.v2.QuantumVolumesPerEpoch',
  doc: 'Quantum volume in one epoch.',
  fields: [
    { name: 'epoch', doc: 'The epoch (uint64 as a string).', type: 'uint64', sql: (s) => `${s}.epoch` },
    { name: 'totalQuantumVolumes', doc: 'Notional volume in quantum units.', type: 'decimal', sql: (s) => `${s}.quantum_volume` },
  ],
} as const satisfies MessageDef;

/**
 * datanode.api.v2.TeamMemberStatistics over a page row (see sql.ts): `party` (bytea), the totals
 * as text, and the entry lists already written as JSON text (comma-separated elements) by the
 * page's aggregates.
 */
export const TEAM_MEMBER_STATISTICS = {
  name: 'datanode.api.v2.TeamMemberStatistics',
  doc: "A team member's statistics over the aggregation window.",
  fields: [
    { name: 'partyId', doc: "The member's party id.", type: 'id', sql: (c) => `${c}.party` },
    { name: 'totalQuantumVolume', doc: 'Sum of `quantumVolumes`.', type: 'decimal', sql: (c) => `${c}.total_volume` },
    { name: 'totalQuantumRewards', doc: 'Sum of `quantumRewards`.', type: 'decimal', sql: (c) => `${c}.total_rewards` },
    {
      name: 'quantumRewards',
      doc: 'One entry per epoch with statistics, epoch ascending.',
      type: REWARDS_ENTRY,
      list: true,
      sql: (c) => `${c}.rewards`,
    },
    { name: 'totalGamesPlayed', doc: 'The number of `gamesPlayed` (uint64 as a string).', type: 'uint64', sql: (c) => `${c}.games_played` },
    { name: 'gamesPlayed', doc: 'Distinct game ids played in the window, ascending.', type: 'hex', list: true, sql: (c) => `${c}.games` },
    {
      name: 'quantumVolumes',
      doc: 'One entry per epoch with statistics, epoch ascending.',
      type: VOLUMES_ENTRY,
      list: true,
      sql: (c) => `${c}.volumes`,
    },
  ],
} as const satisfies MessageDef;

/** A member's position in the sort key partyId, as the reference writes it: {"ID":"<party>"}. */
export const TEAM_MEMBER_CURSOR = {
  fields: [{ key: 'ID', type: 'id', position: 'party', sql: (c) => `${c}.party` }],
} as const satisfies CursorDef;

/**
 * The statistics messages' per-epoch lists: an entry per epoch of the window, most of a node's
 * bytes and of its making (a leaderboard of every team at N=192 is megabytes of them). The
 * console's leaderboard and team page select the totals only (TeamsStatistics.graphql,
 * Team.graphql's members): for a door that reads neither list, the statistics are made without.
 */
const EPOCH_LISTS: readonly string[] = ['quantumRewards', 'quantumVolumes'];

/** Whether a door reading `reads` (Operation.run's; undefined: every field) reads a per-epoch list. */
export const readsEpochLists = (reads: FieldsRead): boolean => reads === undefined || EPOCH_LISTS.some((f) => reads.has(f));

/** A statistics message without its per-epoch lists (see EPOCH_LISTS). */
export const withoutEpochLists = (message: MessageDef): MessageDef => ({
  ...message,
  fields: message.fields.filter((f) => !EPOCH_LISTS.includes(f.name)),
});
