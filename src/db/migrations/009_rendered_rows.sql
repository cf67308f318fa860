-- Each row of a paged table carries its page node (the JSON object of the operation's message)
-- and its cursor (Go's padded base64), as text: a page then concatenates stored text instead of
-- rendering every row per request (ids shown, timestamps in RFC3339, base64), which was most of
-- a 1,000-row page's SQL time. A BEFORE trigger renders them whenever the row is written, so
-- they change in the same statement, and the same transaction, as the columns they show (a
-- referee joining moves totalMembers).
--
-- The render functions are made by `migrate` from the messages' definitions (a repeatable step,
-- src/operations/rendered-rows.ts), which also renders the rows already there and makes the
-- columns NOT NULL. Here they are placeholders that the step replaces in the same transaction.
-- (This file once held the generated function bodies; a store migrated with that text gets the
-- same functions from the step.)

ALTER TABLE referral_sets ADD COLUMN node text, ADD COLUMN cursor text;

CREATE FUNCTION referral_sets_render() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RETURN NEW;
END
$$;

CREATE TRIGGER referral_sets_rendered BEFORE INSERT OR UPDATE ON referral_sets
  FOR EACH ROW EXECUTE FUNCTION referral_sets_render();

ALTER TABLE epoch_reward_summaries ADD COLUMN node text, ADD COLUMN cursor text;

CREATE FUNCTION epoch_reward_summaries_render() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RETURN NEW;
END
$$;

CREATE TRIGGER epoch_reward_summaries_rendered BEFORE INSERT OR UPDATE ON epoch_reward_summaries
  FOR EACH ROW EXECUTE FUNCTION epoch_reward_summaries_render();
