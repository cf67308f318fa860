import { DECIMAL, described, ID, UINT64 } from '../../contract/openapi.js';
import type { MessageSpec } from '../../pagination/message.js';
import { sqlId, sqlPlainString } from '../../pagination/sql-json.js';

/** vega.EpochRewardSummary over an epoch_reward_summaries row. */
export const EPOCH_REWARD_SUMMARY: MessageSpec = {
  schemaName: 'vegaEpochRewardSummary',
  description: 'The rewards of one type paid in one asset (and market) in one epoch.',
  fields: [
    { name: 'epoch', schema: described(UINT64, 'The epoch (uint64 as a string).'), sql: (s) => sqlPlainString(`${s}.epoch::text`) },
    { name: 'assetId', schema: described(ID, 'The asset of the rewards.'), sql: (s) => sqlPlainString(sqlId(`${s}.asset_id`)) },
    {
      name: 'marketId',
      schema: described(ID, 'The market; `""` for reward payouts, which carry no market.'),
      sql: (s) => sqlPlainString(sqlId(`${s}.market_id`)),
    },
    {
      name: 'rewardType',
      schema: {
        type: 'string',
        pattern: '^ACCOUNT_TYPE_[A-Z0-9_]+$',
        description: 'The reward account type (a vega.AccountType name).',
        examples: ['ACCOUNT_TYPE_GLOBAL_REWARD'],
      },
      // A name by the table's CHECK constraint (migration 006): nothing to escape.
      sql: (s) => sqlPlainString(`${s}.reward_type`),
    },
    {
      name: 'amount',
      schema: described(DECIMAL, "Sum of the payouts, in the asset's base unit."),
      sql: (s) => sqlPlainString(`${s}.amount::text`),
    },
  ],
};
