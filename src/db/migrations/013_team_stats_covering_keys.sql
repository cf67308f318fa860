-- ListTeamMembersStatistics reads, for each member on a page, the games with a row in the window:
-- a range of team_party_games' primary key, and the table row of each game to test its epochs
-- against the window. Those rows lie on a page each (written epoch by epoch with every other
-- party's), so the largest mainnet team's page at aggregationEpochs=30 read 18,000 table pages
-- for 7,000 games. With the epochs in the key's index, the test reads the index entries alone:
-- 9,800 pages in all for that page, from 25,300.
ALTER TABLE team_party_games
  DROP CONSTRAINT team_party_games_pkey,
  ADD CONSTRAINT team_party_games_pkey PRIMARY KEY (team_id, party, game_id) INCLUDE (epochs);

-- The window's parties (team_parties_by_last_epoch, migration 003) are read from that index
-- alone too: the largest team's 1,487 lay on 338 table pages, a third of a 50-row page's time.
-- Its entries are then distinct and no longer deduplicated: 5 MB for mainnet's 68,000 rows.
DROP INDEX team_parties_by_last_epoch;
CREATE INDEX team_parties_by_last_epoch ON team_parties (team_id, last_epoch) INCLUDE (party, first_epoch);
ANALYZE team_party_games, team_parties;
