-- ListEpochRewardSummaries with both an asset and a market filter: one ordered range scan per
-- (asset, market) pair, the two fixed columns first, then the rest of the sort key.
CREATE INDEX epoch_reward_summaries_by_asset_market ON epoch_reward_summaries (asset_id, market_id, epoch, reward_type);
