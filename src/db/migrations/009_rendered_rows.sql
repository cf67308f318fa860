-- Each row of a paged table carries its page node (the JSON object of the operation's message)
-- and its cursor (Go's padded base64), as text: a page then concatenates stored text instead of
-- rendering every row per request (ids shown, timestamps in RFC3339, base64), which was most of
-- a 1,000-row page's SQL time. A BEFORE trigger renders them whenever the row is written, so
-- they change in the same statement, and the same transaction, as the columns they show (a
-- referee joining moves totalMembers). The trigger bodies are the operations' SQL: the node is
-- messageJsonSql of the message spec in the operation's node.ts, the cursor its cursor.ts's
-- cursorSql, both over NEW; test/operations/rendered-rows.test.ts checks that they still are.

ALTER TABLE referral_sets ADD COLUMN node text, ADD COLUMN cursor text;

CREATE FUNCTION referral_sets_render() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.node := '{"id":' || '"' || (CASE WHEN length(NEW.id) = 1 THEN CASE get_byte(NEW.id, 0) WHEN 0 THEN 'VOTE' WHEN 3 THEN 'network' WHEN 4 THEN 'XYZalpha' WHEN 5 THEN 'XYZbeta' WHEN 6 THEN 'XYZdelta' WHEN 7 THEN 'XYZepsilon' WHEN 8 THEN 'XYZgamma' WHEN 9 THEN 'fBTC' WHEN 10 THEN 'fDAI' WHEN 11 THEN 'fEURO' WHEN 12 THEN 'fUSDC' ELSE encode(NEW.id, 'hex') END ELSE encode(NEW.id, 'hex') END) || '"' || ',"referrer":' || '"' || (CASE WHEN length(NEW.referrer) = 1 THEN CASE get_byte(NEW.referrer, 0) WHEN 0 THEN 'VOTE' WHEN 3 THEN 'network' WHEN 4 THEN 'XYZalpha' WHEN 5 THEN 'XYZbeta' WHEN 6 THEN 'XYZdelta' WHEN 7 THEN 'XYZepsilon' WHEN 8 THEN 'XYZgamma' WHEN 9 THEN 'fBTC' WHEN 10 THEN 'fDAI' WHEN 11 THEN 'fEURO' WHEN 12 THEN 'fUSDC' ELSE encode(NEW.referrer, 'hex') END ELSE encode(NEW.referrer, 'hex') END) || '"' || ',"createdAt":' || '"' || NEW.created_at::text || '"' || ',"updatedAt":' || '"' || NEW.updated_at::text || '"' || ',"totalMembers":' || '"' || (NEW.referee_count + 1)::text || '"' || '}';
  NEW.cursor := translate(encode(convert_to('{"CreatedAt":"' || to_char(to_timestamp(floor(NEW.created_at::numeric / 1000000000)::float8) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || CASE WHEN ((NEW.created_at % 1000000000 + 1000000000) % 1000000000) = 0 THEN '' ELSE '.' || rtrim(lpad(((NEW.created_at % 1000000000 + 1000000000) % 1000000000)::text, 9, '0'), '0') END || 'Z' || '","ID":"' || (CASE WHEN length(NEW.id) = 1 THEN CASE get_byte(NEW.id, 0) WHEN 0 THEN 'VOTE' WHEN 3 THEN 'network' WHEN 4 THEN 'XYZalpha' WHEN 5 THEN 'XYZbeta' WHEN 6 THEN 'XYZdelta' WHEN 7 THEN 'XYZepsilon' WHEN 8 THEN 'XYZgamma' WHEN 9 THEN 'fBTC' WHEN 10 THEN 'fDAI' WHEN 11 THEN 'fEURO' WHEN 12 THEN 'fUSDC' ELSE encode(NEW.id, 'hex') END ELSE encode(NEW.id, 'hex') END) || '"}', 'UTF8'), 'base64'), E'\n', '');
  RETURN NEW;
END
$$;

CREATE TRIGGER referral_sets_rendered BEFORE INSERT OR UPDATE ON referral_sets
  FOR EACH ROW EXECUTE FUNCTION referral_sets_render();

UPDATE referral_sets SET node = NULL;
ALTER TABLE referral_sets ALTER COLUMN node SET NOT NULL, ALTER COLUMN cursor SET NOT NULL;

ALTER TABLE epoch_reward_summaries ADD COLUMN node text, ADD COLUMN cursor text;

CREATE FUNCTION epoch_reward_summaries_render() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.node := '{"epoch":' || '"' || NEW.epoch::text || '"' || ',"assetId":' || '"' || (CASE WHEN length(NEW.asset_id) = 1 THEN CASE get_byte(NEW.asset_id, 0) WHEN 0 THEN 'VOTE' WHEN 3 THEN 'network' WHEN 4 THEN 'XYZalpha' WHEN 5 THEN 'XYZbeta' WHEN 6 THEN 'XYZdelta' WHEN 7 THEN 'XYZepsilon' WHEN 8 THEN 'XYZgamma' WHEN 9 THEN 'fBTC' WHEN 10 THEN 'fDAI' WHEN 11 THEN 'fEURO' WHEN 12 THEN 'fUSDC' ELSE encode(NEW.asset_id, 'hex') END ELSE encode(NEW.asset_id, 'hex') END) || '"' || ',"marketId":' || '"' || (CASE WHEN length(NEW.market_id) = 1 THEN CASE get_byte(NEW.market_id, 0) WHEN 0 THEN 'VOTE' WHEN 3 THEN 'network' WHEN 4 THEN 'XYZalpha' WHEN 5 THEN 'XYZbeta' WHEN 6 THEN 'XYZdelta' WHEN 7 THEN 'XYZepsilon' WHEN 8 THEN 'XYZgamma' WHEN 9 THEN 'fBTC' WHEN 10 THEN 'fDAI' WHEN 11 THEN 'fEURO' WHEN 12 THEN 'fUSDC' ELSE encode(NEW.market_id, 'hex') END ELSE encode(NEW.market_id, 'hex') END) || '"' || ',"rewardType":' || '"' || NEW.reward_type || '"' || ',"amount":' || '"' || NEW.amount::text || '"' || '}';
  NEW.cursor := translate(encode(convert_to('{"epoch_id":' || NEW.epoch::text || ',"asset_id":"' || (CASE WHEN length(NEW.asset_id) = 1 THEN CASE get_byte(NEW.asset_id, 0) WHEN 0 THEN 'VOTE' WHEN 3 THEN 'network' WHEN 4 THEN 'XYZalpha' WHEN 5 THEN 'XYZbeta' WHEN 6 THEN 'XYZdelta' WHEN 7 THEN 'XYZepsilon' WHEN 8 THEN 'XYZgamma' WHEN 9 THEN 'fBTC' WHEN 10 THEN 'fDAI' WHEN 11 THEN 'fEURO' WHEN 12 THEN 'fUSDC' ELSE encode(NEW.asset_id, 'hex') END ELSE encode(NEW.asset_id, 'hex') END) || '","market_id":"' || (CASE WHEN length(NEW.market_id) = 1 THEN CASE get_byte(NEW.market_id, 0) WHEN 0 THEN 'VOTE' WHEN 3 THEN 'network' WHEN 4 THEN 'XYZalpha' WHEN 5 THEN 'XYZbeta' WHEN 6 THEN 'XYZdelta' WHEN 7 THEN 'XYZepsilon' WHEN 8 THEN 'XYZgamma' WHEN 9 THEN 'fBTC' WHEN 10 THEN 'fDAI' WHEN 11 THEN 'fEURO' WHEN 12 THEN 'fUSDC' ELSE encode(NEW.market_id, 'hex') END ELSE encode(NEW.market_id, 'hex') END) || '","reward_type":' || '"' || NEW.reward_type || '"' || ',"amount":"' || NEW.amount::text || '"}', 'UTF8'), 'base64'), E'\n', '');
  RETURN NEW;
END
$$;

CREATE TRIGGER epoch_reward_summaries_rendered BEFORE INSERT OR UPDATE ON epoch_reward_summaries
  FOR EACH ROW EXECUTE FUNCTION epoch_reward_summaries_render();

UPDATE epoch_reward_summaries SET node = NULL;
ALTER TABLE epoch_reward_summaries ALTER COLUMN node SET NOT NULL, ALTER COLUMN cursor SET NOT NULL;
