-- The explorer's team list: newest first, a keyset over (created_at, id) as for referral sets.
CREATE UNIQUE INDEX teams_by_created ON teams (created_at, id);
