-- Every change of the chain head is announced on the channel epochview_head, with the new height
-- as payload ('' when the head is removed). NOTIFY is delivered when the transaction commits, so
-- a listener hears of a block only once readers can see it. The HTTP layer's response cache
-- listens: the data only changes with the head, so a cached page is valid until it moves.
CREATE FUNCTION chain_head_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('epochview_head', CASE WHEN TG_OP IN ('INSERT', 'UPDATE') THEN NEW.height::text ELSE '' END);
  RETURN NULL;
END
$$;

CREATE TRIGGER chain_head_changed AFTER INSERT OR UPDATE OR DELETE ON chain_head
  FOR EACH ROW EXECUTE FUNCTION chain_head_notify();
CREATE TRIGGER chain_head_truncated AFTER TRUNCATE ON chain_head
  FOR EACH STATEMENT EXECUTE FUNCTION chain_head_notify();
