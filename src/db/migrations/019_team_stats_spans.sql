-- ListTeamsStatistics' page of teams: each team's span of epochs with statistics (as team_parties
-- keeps each member's), so that the teams in a window are one range of this key with the spans
-- read from the index, instead of a walk of team_epoch_stats' key with a descent and a probe per
-- team (three times the members' cost per row: the leaderboard's cost was mostly that walk).
CREATE TABLE team_stats_spans (
  team_id      bytea  NOT NULL,
  first_epoch  bigint NOT NULL,
  last_epoch   bigint NOT NULL,
  PRIMARY KEY (team_id) INCLUDE (first_epoch, last_epoch)
);
INSERT INTO team_stats_spans (team_id, first_epoch, last_epoch)
SELECT s.team_id, min(s.epoch), max(s.epoch)
  FROM team_epoch_stats AS s
 GROUP BY s.team_id;
ANALYZE team_stats_spans;
