import type { CursorDef, MessageDef } from '../../contract/message.js';

/** The alias of the page statement's window of epochs (sql.ts): lo < epoch ≤ hi, NULL without an ended epoch. */
export const WINDOW = 'w';

/**
 * A referee's total over the window from one of the per-(party, epoch) tables: an index range of
 * at most N rows (the party's key), decimals with no trailing fractional zeros, "0" when none.
 */
const windowSum = (table: string, column: string, party: string) =>
  `(SELECT trim_scale(coalesce(sum(t.${column}), 0))::text FROM ${table} AS t
     WHERE t.party = ${party} AND t.epoch > ${WINDOW}.lo AND t.epoch <= ${WINDOW}.hi)`;

/**
 * datanode.api.v2.ReferralSetReferee over a referral_set_referees row, the page's window (WINDOW)
 * in scope.
 */
export const REFERRAL_SET_REFEREE = {
  name: 'datanode.api.v2.ReferralSetReferee',
  doc: 'A referee of a referral set, with their totals over the last aggregationEpochs ended epochs.',
  fields: [
    { name: 'referralSetId', doc: "The set's id.", type: 'id', sql: (r) => `${r}.set_id` },
    { name: 'referee', doc: "The referee's party id.", type: 'id', sql: (r) => `${r}.referee` },
    {
      name: 'joinedAt',
      doc: 'When the referee joined the set: Unix nanoseconds (int64 as a string), truncated to microseconds.',
      type: 'timestamp',
      sql: (r) => `${r}.joined_at`,
    },
    {
      name: 'atEpoch',
      doc: 'The epoch in which the referee joined the set (uint64 as a string).',
      type: 'uint64',
      sql: (r) => `${r}.at_epoch`,
    },
    {
      name: 'totalRefereeNotionalTakerVolume',
      doc: "The referee's notional taker volume over the window, in any set.",
      type: 'decimal',
      sql: (r) => windowSum('referral_set_referee_stats', 'volume_value', `${r}.referee`),
    },
    {
      name: 'totalRefereeGeneratedRewards',
      doc: 'The quantum amounts of the referrer rewards the referee generated over the window, in every market, asset and referrer.',
      type: 'decimal',
      sql: (r) => windowSum('referral_generated_rewards', 'amount', `${r}.referee`),
    },
  ],
} as const satisfies MessageDef;

/** A referee's position in the sort key (joinedAt, referee), as the reference writes it: {"JoinedAt":"<RFC3339Nano UTC>","Referee":"<id>"}. */
export const REFERRAL_SET_REFEREE_CURSOR = {
  fields: [
    { key: 'JoinedAt', type: 'time', position: 'joinedAt', sql: (r) => `${r}.joined_at` },
    { key: 'Referee', type: 'id', position: 'referee', sql: (r) => `${r}.referee` },
  ],
} as const satisfies CursorDef;
