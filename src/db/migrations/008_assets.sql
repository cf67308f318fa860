-- Assets as their latest asset event describes them: for display only (the explorer shows
-- amounts with symbol and decimals); no API answer reads this table.
CREATE TABLE assets (
  id        bytea   PRIMARY KEY,
  name      text    NOT NULL,
  symbol    text    NOT NULL,
  decimals  numeric NOT NULL,   -- uint64
  quantum   numeric NOT NULL,
  status    text    NOT NULL
);
