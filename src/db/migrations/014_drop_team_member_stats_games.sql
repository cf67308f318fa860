-- team_member_stats.games has not been read since migration 011: the team statistics page reads
-- each member's games from team_party_games. Writing it cost ingestion an array per row with
-- games (43% of the medium chain's rows) and an array merge in every upsert of such a row, and
-- the store 5 MB of the table's 37 MB on the medium chain. (DROP COLUMN only marks it dropped:
-- an upgraded store reclaims the space as rows are rewritten, or at a VACUUM FULL.)
ALTER TABLE team_member_stats DROP COLUMN games;
