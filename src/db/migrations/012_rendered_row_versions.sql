-- A version for each rendered row (migration 009): a number drawn from one sequence whenever the
-- row's node or cursor is written with new text, so it names that text for good. A 1,000-row page
-- was 0.44 MB of text that PostgreSQL joined and sent on every request, and that transfer alone
-- (measured with pgbench, without HTTP) held the page under 1,500 requests/s on two cores. Page
-- statements can now return the versions of their rows instead (a few bytes each), and the
-- process keeps the rows' text by version (src/pagination/row-cache.ts): an answer is still the
-- rows of the store's snapshot, in its order, and only the text of rows it has not seen yet, or
-- that changed, comes over the wire.
CREATE SEQUENCE rendered_row_version;

-- A BEFORE trigger fires after the render triggers (triggers fire in name order), so the node
-- and cursor it compares are the new ones.
CREATE FUNCTION rendered_row_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.node IS DISTINCT FROM OLD.node OR NEW.cursor IS DISTINCT FROM OLD.cursor THEN
    NEW.rv := nextval('rendered_row_version');
  END IF;
  RETURN NEW;
END
$$;

ALTER TABLE referral_sets ADD COLUMN rv bigint;
UPDATE referral_sets SET rv = nextval('rendered_row_version');
ALTER TABLE referral_sets ALTER COLUMN rv SET NOT NULL;
CREATE TRIGGER referral_sets_rendered_version BEFORE INSERT OR UPDATE ON referral_sets
  FOR EACH ROW EXECUTE FUNCTION rendered_row_version();

ALTER TABLE epoch_reward_summaries ADD COLUMN rv bigint;
UPDATE epoch_reward_summaries SET rv = nextval('rendered_row_version');
ALTER TABLE epoch_reward_summaries ALTER COLUMN rv SET NOT NULL;
CREATE TRIGGER epoch_reward_summaries_rendered_version BEFORE INSERT OR UPDATE ON epoch_reward_summaries
  FOR EACH ROW EXECUTE FUNCTION rendered_row_version();

-- The versions of a page's rows come from an index-only scan of the index that orders them:
-- with the row's version in the index, a 1,000-row page reads no table page that VACUUM has
-- marked all-visible (pgbench on mainnet's 54,000 summaries: ×3.8 statements per second).
ALTER TABLE epoch_reward_summaries
  DROP CONSTRAINT epoch_reward_summaries_pkey,
  ADD CONSTRAINT epoch_reward_summaries_pkey PRIMARY KEY (epoch, asset_id, market_id, reward_type) INCLUDE (rv);
DROP INDEX referral_sets_by_created;
CREATE UNIQUE INDEX referral_sets_by_created ON referral_sets (created_at, id) INCLUDE (rv);
ANALYZE referral_sets, epoch_reward_summaries;
