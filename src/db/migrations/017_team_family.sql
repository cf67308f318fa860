-- The team operations of the family (family.md §11): ListTeams, ListTeamsStatistics,
-- ListTeamReferees, ListTeamRefereeHistory. Their pages are keyset range scans of these tables
-- or bounded aggregations over them, never a walk of a team's members' history.

-- ListTeamsStatistics: a team's volume and reward sums per epoch, kept in the same fold as
-- team_member_stats (each change to a member row adds its delta). A team's page then aggregates
-- at most N primary-key entries, where summing its members' rows read one per (member, epoch).
CREATE TABLE team_epoch_stats (
  team_id          bytea   NOT NULL,
  epoch            bigint  NOT NULL,
  quantum_volume   numeric NOT NULL DEFAULT 0,
  quantum_rewards  numeric NOT NULL DEFAULT 0,
  PRIMARY KEY (team_id, epoch) INCLUDE (quantum_volume, quantum_rewards)
);
INSERT INTO team_epoch_stats (team_id, epoch, quantum_volume, quantum_rewards)
SELECT s.team_id, s.epoch, sum(s.quantum_volume), sum(s.quantum_rewards)
  FROM team_member_stats AS s
 GROUP BY s.team_id, s.epoch;

-- The epochs in which any of a team's rows played each game, as team_party_games keeps them per
-- party: a team's games in the window are a range of the primary key, epochs read from the index.
CREATE TABLE team_games (
  team_id  bytea          NOT NULL,
  game_id  bytea          NOT NULL,
  epochs   int8multirange NOT NULL,
  PRIMARY KEY (team_id, game_id) INCLUDE (epochs)
);
INSERT INTO team_games (team_id, game_id, epochs)
SELECT pg.team_id, pg.game_id, range_agg(r.epochs)
  FROM team_party_games AS pg CROSS JOIN LATERAL unnest(pg.epochs) AS r(epochs)
 GROUP BY pg.team_id, pg.game_id;

-- ListTeamRefereeHistory: a party's memberships, one per epoch it joined a team in. Its events
-- were not kept before, so a store made before this migration has none until re-ingested.
CREATE TABLE team_membership_history (
  party            bytea  NOT NULL,
  joined_at_epoch  bigint NOT NULL,
  team_id          bytea  NOT NULL,
  joined_at        bigint NOT NULL,
  PRIMARY KEY (party, joined_at_epoch)
);

ANALYZE team_epoch_stats, team_games;

-- Team times are shown and compared truncated to microseconds (contract §3, family.md §11), as
-- referral sets' always were: stored so from now on, and the stored ones truncated here.
UPDATE teams SET created_at = created_at - created_at % 1000 WHERE created_at % 1000 <> 0;
UPDATE team_members SET joined_at = joined_at - joined_at % 1000 WHERE joined_at % 1000 <> 0;
