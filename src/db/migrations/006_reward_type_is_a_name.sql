-- Reward types are vega.AccountType names, as ingestion decodes them: pages write them into JSON
-- text as they are, which this makes safe (no character of a name needs escaping).
ALTER TABLE epoch_reward_summaries ADD CONSTRAINT reward_type_is_a_name CHECK (reward_type ~ '^ACCOUNT_TYPE_[A-Z0-9_]+$');
