-- The chain a store holds: the first chain id ingestion meets, kept so that an input of another
-- chain (a network restarted from height 1) is refused by name instead of being taken, block by
-- block, for blocks already applied (every height at or below the head) and then mixed with the
-- old chain's. NULL until an input names its chain (the JSON form may leave it out).
ALTER TABLE chain_head ADD COLUMN chain_id text;
