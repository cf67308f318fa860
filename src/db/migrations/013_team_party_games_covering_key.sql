-- ListTeamMembersStatistics reads, for each member on a page, the games with a row in the window:
-- a range of team_party_games' primary key, and the table row of each game to test its epochs
-- against the window. Those rows lie on a page each (written epoch by epoch with every other
-- party's), so the largest mainnet team's page at aggregationEpochs=30 read 18,000 table pages
-- for 7,000 games. With the epochs in the key's index, the test reads the index entries alone:
-- 9,800 pages in all for that page, from 25,300.
ALTER TABLE team_party_games
  DROP CONSTRAINT team_party_games_pkey,
  ADD CONSTRAINT team_party_games_pkey PRIMARY KEY (team_id, party, game_id) INCLUDE (epochs);
ANALYZE team_party_games;
