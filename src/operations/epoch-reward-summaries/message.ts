import type { CursorDef, MessageDef } from '../../contract/message.js';

/** vega.EpochRewardSummary over an epoch_reward_summaries row. */
export const EPOCH_REWARD_SUMMARY = {
  name: 'vega.EpochRewardSummary',
  doc: 'The rewards of one type paid in one asset (and market) in one epoch.',
  fields: [
    { name: 'epoch', doc: 'The epoch (uint64 as a string).', type: 'uint64', sql: (s) => `${s}.epoch` },
    { name: 'assetId', doc: 'The asset of the rewards.', type: 'id', sql: (s) => `${s}.asset_id` },
    { name: 'marketId', doc: 'The market; `""` for reward payouts, which carry no market.', type: 'id', sql: (s) => `${s}.market_id` },
    {
      name: 'rewardType',
      doc: 'The reward account type (a vega.AccountType name).',
      // A name by the table's CHECK constraint (migration 006): nothing to escape.
      type: 'enum',
      schema: { pattern: '^ACCOUNT_TYPE_[A-Z0-9_]+$', examples: ['ACCOUNT_TYPE_GLOBAL_REWARD'] },
      sql: (s) => `${s}.reward_type`,
    },
    { name: 'amount', doc: "Sum of the payouts, in the asset's base unit.", type: 'decimal', sql: (s) => `${s}.amount` },
  ],
} as const satisfies MessageDef;

/**
 * A summary's position in the sort key (epoch, assetId, marketId, rewardType), as the reference's
 * EpochRewardSummaryCursor writes it: {"epoch_id":<number>,"asset_id":"…","market_id":"…","reward_type":"…","amount":"…"}.
 */
export const EPOCH_REWARD_SUMMARY_CURSOR = {
  fields: [
    { key: 'epoch_id', type: 'uint64', position: 'epoch', sql: (s) => `${s}.epoch` },
    { key: 'asset_id', type: 'id', position: 'assetId', sql: (s) => `${s}.asset_id` },
    { key: 'market_id', type: 'id', position: 'marketId', sql: (s) => `${s}.market_id` },
    { key: 'reward_type', type: 'enum', position: 'rewardType', sql: (s) => `${s}.reward_type` },
    { key: 'amount', type: 'decimal', sql: (s) => `${s}.amount` },
  ],
} as const satisfies CursorDef;
