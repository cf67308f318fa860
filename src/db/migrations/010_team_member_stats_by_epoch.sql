-- ListTeamMembersStatistics reads a page's rows in one scan: per epoch of the window, the team's
-- rows from the page's first party to its last. A team's rows of one epoch are written together,
-- so they share heap pages; the primary key's (team, party, epoch) order visits a heap page per
-- party and epoch instead.
CREATE INDEX team_member_stats_by_epoch ON team_member_stats (team_id, epoch, party);
