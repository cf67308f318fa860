-- Each read model's version: the height of the last block that changed it, written by ingestion
-- in the transaction of that block (or of the batch it ends). A model without a row has not
-- changed since this table was made, so its answers then are still its answers now.
CREATE TABLE read_model_versions (
  model   text   PRIMARY KEY,
  height  bigint NOT NULL
);

-- The chain head as the response cache needs it, as JSON text: the height and time of the last
-- applied block and the versions of the read models; NULL without a head. The notice of each
-- block carries it, and the head watch reads it, so both are the same state of one snapshot.
CREATE FUNCTION chain_head_state() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
           'height', h.height::text,
           'time', h.block_time::text,
           'models', (SELECT coalesce(json_object_agg(v.model, v.height::text), '{}'::json) FROM read_model_versions AS v))::text
    FROM chain_head AS h
$$;

-- The notice of migration 004, now with the whole state rather than the height alone. The
-- versions are written before the head in a block's transaction, so the trigger sees them.
CREATE OR REPLACE FUNCTION chain_head_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('epochview_head', CASE WHEN TG_OP IN ('INSERT', 'UPDATE') THEN chain_head_state() ELSE '' END);
  RETURN NULL;
END
$$;
