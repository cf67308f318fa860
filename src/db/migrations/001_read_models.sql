-- Read models built at ingest time. Ids are bytea so that they sort by byte value (contract §7)
-- and stay compact; every paged table has an index whose column order is its sort key.

-- Ingestion checkpoint and chain head: one row.
CREATE TABLE chain_head (
  singleton          boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  height             bigint  NOT NULL,
  block_time         bigint  NOT NULL,      -- Unix ns of the last applied block
  block_hash         text    NOT NULL,
  last_ended_epoch   bigint                 -- highest epoch seen ending or carrying team stats
);

-- ListReferralSets ---------------------------------------------------------------------------
CREATE TABLE referral_sets (
  id             bytea  PRIMARY KEY,
  referrer       bytea  NOT NULL,
  created_at     bigint NOT NULL,           -- Unix ns truncated to µs
  updated_at     bigint NOT NULL,
  referee_count  bigint NOT NULL DEFAULT 0  -- current referees; totalMembers = this + 1
);
CREATE UNIQUE INDEX referral_sets_by_created ON referral_sets (created_at, id);
CREATE INDEX referral_sets_by_referrer ON referral_sets (referrer, created_at, id);

-- Each referee's current set: the join with the highest at_epoch, the later event on a tie.
CREATE TABLE referral_set_referees (
  referee    bytea  PRIMARY KEY,
  set_id     bytea  NOT NULL,
  at_epoch   bigint NOT NULL,
  joined_at  bigint NOT NULL
);
CREATE INDEX referral_set_referees_by_set ON referral_set_referees (set_id);

-- Teams and games ----------------------------------------------------------------------------
CREATE TABLE teams (
  id          bytea   PRIMARY KEY,
  referrer    bytea   NOT NULL,
  name        text    NOT NULL,
  team_url    text,
  avatar_url  text,
  created_at  bigint  NOT NULL,
  closed      boolean NOT NULL,
  at_epoch    bigint  NOT NULL,
  allow_list  text[]  NOT NULL DEFAULT '{}'
);

-- Each party's current team (absent: in no team).
CREATE TABLE team_members (
  party      bytea  PRIMARY KEY,
  team_id    bytea  NOT NULL,
  joined_at  bigint NOT NULL,
  at_epoch   bigint NOT NULL
);
CREATE INDEX team_members_by_team ON team_members (team_id, party);

-- Per game id: whether its latest recurring transfer is team-scoped.
CREATE TABLE game_scopes (
  game_id      bytea   PRIMARY KEY,
  team_scoped  boolean NOT NULL
);

-- ListTeamMembersStatistics --------------------------------------------------------------------
-- One row per (team, party, epoch): created by a team-statistics entry or a counted reward.
CREATE TABLE team_member_stats (
  team_id          bytea   NOT NULL,
  party            bytea   NOT NULL,
  epoch            bigint  NOT NULL,
  quantum_volume   numeric NOT NULL DEFAULT 0,
  quantum_rewards  numeric NOT NULL DEFAULT 0,
  games            bytea[] NOT NULL DEFAULT '{}',  -- distinct, sorted
  PRIMARY KEY (team_id, party, epoch)
);

-- The parties that ever have rows for a team, with the span of epochs they have rows in: the
-- keyset over partyId walks this, so a page never touches epochs outside the window.
CREATE TABLE team_parties (
  team_id      bytea  NOT NULL,
  party        bytea  NOT NULL,
  first_epoch  bigint NOT NULL,
  last_epoch   bigint NOT NULL,
  PRIMARY KEY (team_id, party)
);

-- The distinct epochs each team has rows in, for the eligibility rule (≤ N index entries).
CREATE TABLE team_epochs (
  team_id  bytea  NOT NULL,
  epoch    bigint NOT NULL,
  PRIMARY KEY (team_id, epoch)
);

-- ListEpochRewardSummaries -------------------------------------------------------------------
CREATE TABLE epoch_reward_summaries (
  epoch        bigint  NOT NULL,
  asset_id     bytea   NOT NULL,
  market_id    bytea   NOT NULL,
  reward_type  text    COLLATE "C" NOT NULL,
  amount       numeric NOT NULL,
  PRIMARY KEY (epoch, asset_id, market_id, reward_type)
);
-- Asset and market filters: the filtered column first, then the rest of the sort key.
CREATE INDEX epoch_reward_summaries_by_asset ON epoch_reward_summaries (asset_id, epoch, market_id, reward_type);
CREATE INDEX epoch_reward_summaries_by_market ON epoch_reward_summaries (market_id, epoch, asset_id, reward_type);

-- Ingestion statistics: events applied per kind and skipped per type, over all runs.
CREATE TABLE ingest_counters (
  name   text   PRIMARY KEY,
  count  bigint NOT NULL
);
