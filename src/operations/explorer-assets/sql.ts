import { messageJsonSql } from '../../pagination/message.js';
import { ASSET } from './node.js';

/**
 * The statement of the asset list: the body `{"assets":[…]}` by id, and the chain head. The
 * assets are those with reward summaries, found by a loose index scan of
 * epoch_reward_summaries_by_asset: one probe per asset (PostgreSQL has no skip scan, and
 * PostgreSQL 15 no min(bytea)). No asset event is held yet, so their details are NULL.
 */
export const ASSETS_SQL = `
  WITH RECURSIVE ids AS (
    SELECT (SELECT s.asset_id FROM epoch_reward_summaries AS s ORDER BY s.asset_id LIMIT 1) AS id
    UNION ALL
    SELECT (SELECT s.asset_id FROM epoch_reward_summaries AS s WHERE s.asset_id > i.id ORDER BY s.asset_id LIMIT 1) FROM ids AS i WHERE i.id IS NOT NULL)
  SELECT (SELECT h.height::text FROM chain_head AS h) AS head_height,
         (SELECT h.block_time::text FROM chain_head AS h) AS head_time,
         '{"assets":[' || coalesce((
           SELECT string_agg(${messageJsonSql(ASSET, 'a')}, ',' ORDER BY a.id)
             FROM (SELECT i.id, NULL::text AS symbol, NULL::text AS name, NULL::numeric AS decimals, NULL::numeric AS quantum, NULL::text AS status
                     FROM ids AS i WHERE i.id IS NOT NULL) AS a), '') || ']}' AS body`;
