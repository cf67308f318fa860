import { messageJsonSql } from '../../pagination/message.js';
import { ASSET, LIST_ASSETS_RESPONSE } from './message.js';

/**
 * The statement of the asset list: the body `{"assets":[…]}` by id, and the chain head. The
 * assets are those with an asset event (the assets table) and those with reward summaries, found
 * by a loose index scan of epoch_reward_summaries_by_asset: one probe per asset (PostgreSQL has
 * no skip scan, and PostgreSQL 15 no min(bytea)). Details are NULL for an asset without an event.
 */
export const ASSETS_SQL = `
  WITH RECURSIVE rewarded AS (
    SELECT (SELECT s.asset_id FROM epoch_reward_summaries AS s ORDER BY s.asset_id LIMIT 1) AS id
    UNION ALL
    SELECT (SELECT s.asset_id FROM epoch_reward_summaries AS s WHERE s.asset_id > r.id ORDER BY s.asset_id LIMIT 1) FROM rewarded AS r WHERE r.id IS NOT NULL)
  SELECT (SELECT h.height::text FROM chain_head AS h) AS head_height,
         (SELECT h.block_time::text FROM chain_head AS h) AS head_time,
         ${messageJsonSql(LIST_ASSETS_RESPONSE, 'l')} AS body
    FROM (SELECT coalesce((
           SELECT string_agg(${messageJsonSql(ASSET, 'a')}, ',' ORDER BY a.id)
             FROM (SELECT u.id, d.symbol, d.name, d.decimals, d.quantum, d.status
                     FROM (SELECT r.id FROM rewarded AS r WHERE r.id IS NOT NULL UNION SELECT x.id FROM assets AS x) AS u
                     LEFT JOIN assets AS d ON d.id = u.id) AS a), '') AS assets) AS l`;
