-- The referral family's read models (family.md §11): the current referral program, each set's
-- statistics per epoch and its referees' entries, and the rewards each party generated for its
-- referrer per epoch. Their events were skipped until now: a store built before this migration
-- must be re-ingested from the start to have them.

-- GetCurrentReferralProgram: one row, the program of the latest program event. The tiers are
-- JSON arrays of the served BenefitTier and StakingTier objects (strings as given, tier numbers
-- 1…n); a factors object the event lacked is null.
CREATE TABLE referral_program (
  singleton       boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  id              bytea   NOT NULL,
  version         bigint  NOT NULL,
  benefit_tiers   json    NOT NULL,
  end_of_program  bigint  NOT NULL,           -- Unix ns (the event gives seconds)
  window_length   bigint  NOT NULL,
  staking_tiers   json    NOT NULL,
  ended_at        bigint                      -- Unix ns truncated to µs; NULL while it runs
);

-- GetReferralSetStats: one row per ReferralSetStatsUpdated, the set-level fields as received.
-- E* (the latest epoch with statistics) is max(epoch), one read at the end of the key.
CREATE TABLE referral_set_epochs (
  epoch                      bigint  NOT NULL,
  set_id                     bytea   NOT NULL,
  block_time                 bigint  NOT NULL, -- the cursor's VegaTime
  running_volume             text    NOT NULL,
  rewards_multiplier         text    NOT NULL,
  was_eligible               boolean NOT NULL,
  referrer_taker_volume      text    NOT NULL,
  reward_factors             json,            -- {infrastructureRewardFactor, liquidityRewardFactor, makerRewardFactor}, NULL when absent
  reward_factors_multiplier  json,
  PRIMARY KEY (epoch, set_id)
);

-- One row per referee entry of a set's statistics: the pages of GetReferralSetStats are ranges
-- of the key under one epoch; the referee filter and the referees' volume totals use the party's
-- index, which carries the volume (an index-only sum over the window).
CREATE TABLE referral_set_referee_stats (
  epoch             bigint  NOT NULL,
  set_id            bytea   NOT NULL,
  party             bytea   NOT NULL,
  volume            text    NOT NULL,         -- epochNotionalTakerVolume as received ('' when absent)
  volume_value      numeric NOT NULL,         -- its value, 0 when absent
  discount_factors  json,                     -- {infrastructureDiscountFactor, …}, NULL when absent
  PRIMARY KEY (epoch, set_id, party)
);
CREATE INDEX referral_set_referee_stats_by_party ON referral_set_referee_stats (party, epoch, set_id) INCLUDE (volume_value);

-- ListReferralSetReferees' generated rewards: the sum of the quantum amounts a party generated
-- for referrers in an epoch, over every market, asset and referrer.
CREATE TABLE referral_generated_rewards (
  party   bytea   NOT NULL,
  epoch   bigint  NOT NULL,
  amount  numeric NOT NULL,
  PRIMARY KEY (party, epoch)
);

-- ListReferralSetReferees pages: every referee, or a set's, in (joined_at, referee) order.
CREATE INDEX referral_set_referees_by_joined ON referral_set_referees (joined_at, referee);
CREATE INDEX referral_set_referees_by_set_joined ON referral_set_referees (set_id, joined_at, referee);

-- joinedAt is served truncated to µs, as every time, and the key sorts by the stored value: the
-- joins stored whole until now are truncated (ingestion truncates from now on).
UPDATE referral_set_referees SET joined_at = joined_at - joined_at % 1000 WHERE joined_at % 1000 <> 0;
