-- ListTeamMembersStatistics: the parties of a team with rows in the window (the last N epochs)
-- are those whose last_epoch reaches into it, a range of this index. Walking the primary key
-- instead filters every party the team ever had, a cost that grows with the team's history.
-- No INCLUDE columns: the active parties of a team share one last_epoch, and without them
-- B-tree deduplication keeps the index small although every epoch moves each active party.
CREATE INDEX team_parties_by_last_epoch ON team_parties (team_id, last_epoch);
