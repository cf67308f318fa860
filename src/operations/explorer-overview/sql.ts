import { messageJsonSql } from '../../pagination/message.js';
import { eligibleEpochsSql } from '../team-eligibility.js';
import { OVERVIEW } from './message.js';

/** The example team is listed for as many epochs as possible, up to this many. */
const EXAMPLE_TEAM_EPOCHS = 5;

/**
 * The overview in one statement of uncorrelated subqueries (each run once), in one snapshot with
 * the chain head. Distinct epochs and assets of the reward summaries are found by loose index
 * scans (one probe per distinct value; PostgreSQL has no skip scan), so their cost is the number
 * of epochs and assets, not of summaries. The example team's run is capped, so finding it reads
 * at most a few team_epochs entries per team.
 */
export const OVERVIEW_SQL = `
  WITH RECURSIVE
    epochs AS (
      SELECT (SELECT min(s.epoch) FROM epoch_reward_summaries AS s) AS epoch
      UNION ALL
      SELECT (SELECT min(s.epoch) FROM epoch_reward_summaries AS s WHERE s.epoch > e.epoch) FROM epochs AS e WHERE e.epoch IS NOT NULL),
    rewarded AS (
      SELECT (SELECT s.asset_id FROM epoch_reward_summaries AS s ORDER BY s.asset_id LIMIT 1) AS asset
      UNION ALL
      SELECT (SELECT s.asset_id FROM epoch_reward_summaries AS s WHERE s.asset_id > r.asset ORDER BY s.asset_id LIMIT 1) FROM rewarded AS r WHERE r.asset IS NOT NULL),
    example_team AS (
      SELECT t.id, r.epochs FROM teams AS t CROSS JOIN LATERAL (SELECT ${eligibleEpochsSql('t.id', EXAMPLE_TEAM_EPOCHS)} AS epochs) AS r
       WHERE r.epochs > 0
       ORDER BY r.epochs DESC, (SELECT count(*) FROM team_members AS m WHERE m.team_id = t.id) DESC, t.id
       LIMIT 1),
    o AS (
      SELECT (SELECT h.height FROM chain_head AS h) AS height,
             (SELECT h.block_time FROM chain_head AS h) AS block_time,
             (SELECT h.last_ended_epoch FROM chain_head AS h) AS last_ended_epoch,
             (SELECT count(*) FROM referral_sets) AS referral_sets,
             (SELECT count(*) FROM teams) AS teams,
             (SELECT count(epoch) FROM epochs) AS epochs,
             (SELECT count(*) FROM (SELECT r.asset FROM rewarded AS r WHERE r.asset IS NOT NULL UNION SELECT x.id FROM assets AS x) AS u) AS assets,
             (SELECT s.id FROM referral_sets AS s ORDER BY s.created_at DESC, s.id DESC LIMIT 1) AS referral_set_id,
             (SELECT r.referee FROM referral_set_referees AS r ORDER BY r.referee LIMIT 1) AS referee,
             (SELECT x.id FROM example_team AS x) AS team_id,
             (SELECT x.epochs FROM example_team AS x) AS team_epochs,
             (SELECT s.asset_id FROM epoch_reward_summaries AS s ORDER BY s.epoch DESC, s.asset_id, s.market_id, s.reward_type LIMIT 1) AS asset_id)
  SELECT o.height::text AS head_height, o.block_time::text AS head_time, ${messageJsonSql(OVERVIEW, 'o')} AS body FROM o`;
