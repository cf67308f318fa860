-- ListTeamMembersStatistics, faster pages of big teams (issue 14, point 4). A page of the largest
-- mainnet team at aggregationEpochs=30 aggregated ~20,000 rows for 1,000 members, and its plan
-- showed where the time went:
--
-- * The games played: each member's rows were unnested game by game and their distinct ids
--   sorted, a subquery per member that cost about half of the statement. team_party_games
--   keeps, per (team, party, game), the epochs in which a counted reward of that game made
--   a row; the members' games in the window are then a range of its primary key, already in
--   game id order: no unnest, no sort.
-- * The rows of a (team, party) lie on as many heap pages as they have epochs (they are
--   written epoch by epoch, with every other party's). The primary key now carries the columns
--   the page reads, so the window's rows come from an index-only scan of adjacent entries.

CREATE TABLE team_party_games (
  team_id  bytea          NOT NULL,
  party    bytea          NOT NULL,
  game_id  bytea          NOT NULL,
  epochs   int8multirange NOT NULL,  -- the epochs of the party's rows whose games hold game_id
  PRIMARY KEY (team_id, party, game_id)
);

INSERT INTO team_party_games (team_id, party, game_id, epochs)
SELECT s.team_id, s.party, u.game_id, range_agg(int8range(s.epoch, s.epoch, '[]'))
  FROM team_member_stats AS s CROSS JOIN LATERAL unnest(s.games) AS u(game_id)
 GROUP BY s.team_id, s.party, u.game_id;

ALTER TABLE team_member_stats
  DROP CONSTRAINT team_member_stats_pkey,
  ADD CONSTRAINT team_member_stats_pkey PRIMARY KEY (team_id, party, epoch) INCLUDE (quantum_volume, quantum_rewards);

-- The planner's statistics of the new table, which ingestion otherwise gathers only later.
ANALYZE team_party_games;
