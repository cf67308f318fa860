import type { Store } from '../../src/db/store.js';

/** Every read-model table as ordered text rows, for comparing whole stores. */
const TABLES = {
  chain_head: `SELECT height::text, block_time::text, block_hash, last_ended_epoch::text FROM chain_head`,
  referral_sets: `SELECT encode(id,'hex'), encode(referrer,'hex'), created_at::text, updated_at::text, referee_count::text FROM referral_sets ORDER BY id`,
  referral_set_referees: `SELECT encode(referee,'hex'), encode(set_id,'hex'), at_epoch::text, joined_at::text FROM referral_set_referees ORDER BY referee`,
  teams: `SELECT encode(id,'hex'), encode(referrer,'hex'), name, team_url, avatar_url, created_at::text, closed::text, at_epoch::text, allow_list::text FROM teams ORDER BY id`,
  team_members: `SELECT encode(party,'hex'), encode(team_id,'hex'), joined_at::text, at_epoch::text FROM team_members ORDER BY party`,
  game_scopes: `SELECT encode(game_id,'hex'), team_scoped::text FROM game_scopes ORDER BY game_id`,
  team_member_stats: `SELECT encode(team_id,'hex'), encode(party,'hex'), epoch::text, quantum_volume::text, quantum_rewards::text FROM team_member_stats ORDER BY team_id, party, epoch`,
  team_parties: `SELECT encode(team_id,'hex'), encode(party,'hex'), first_epoch::text, last_epoch::text FROM team_parties ORDER BY team_id, party`,
  team_party_games: `SELECT encode(team_id,'hex'), encode(party,'hex'), encode(game_id,'hex'), epochs::text FROM team_party_games ORDER BY team_id, party, game_id`,
  team_epochs: `SELECT encode(team_id,'hex'), epoch::text FROM team_epochs ORDER BY team_id, epoch`,
  team_epoch_stats: `SELECT encode(team_id,'hex'), epoch::text, quantum_volume::text, quantum_rewards::text FROM team_epoch_stats ORDER BY team_id, epoch`,
  team_stats_spans: `SELECT encode(team_id,'hex'), first_epoch::text, last_epoch::text FROM team_stats_spans ORDER BY team_id`,
  team_games: `SELECT encode(team_id,'hex'), encode(game_id,'hex'), epochs::text FROM team_games ORDER BY team_id, game_id`,
  team_membership_history: `SELECT encode(party,'hex'), joined_at_epoch::text, encode(team_id,'hex'), joined_at::text FROM team_membership_history ORDER BY party, joined_at_epoch`,
  epoch_reward_summaries: `SELECT epoch::text, encode(asset_id,'hex'), encode(market_id,'hex'), reward_type, amount::text FROM epoch_reward_summaries ORDER BY epoch, asset_id, market_id, reward_type`,
  referral_program: `SELECT encode(id,'hex'), version::text, benefit_tiers::text, end_of_program::text, window_length::text, staking_tiers::text, ended_at::text FROM referral_program`,
  referral_set_epochs: `SELECT epoch::text, encode(set_id,'hex'), block_time::text, running_volume, rewards_multiplier, was_eligible::text, referrer_taker_volume, reward_factors::text, reward_factors_multiplier::text FROM referral_set_epochs ORDER BY epoch, set_id`,
  referral_set_referee_stats: `SELECT epoch::text, encode(set_id,'hex'), encode(party,'hex'), volume, volume_value::text, discount_factors::text FROM referral_set_referee_stats ORDER BY epoch, set_id, party`,
  referral_generated_rewards: `SELECT encode(party,'hex'), epoch::text, amount::text FROM referral_generated_rewards ORDER BY party, epoch`,
} satisfies Record<string, string>;

export type ReadModelTable = keyof typeof TABLES;

export async function dumpReadModels(store: Store): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const name of Object.keys(TABLES) as ReadModelTable[]) out[name] = await dumpTable(store, name);
  return out;
}

/** One read-model table as ordered text rows (usable on a schema that lacks the other tables' newer columns). */
export async function dumpTable(store: Store, name: ReadModelTable): Promise<string[]> {
  // Alias every selected value so that no two share a column name.
  let n = 0;
  const aliased = TABLES[name].replace(/^SELECT ([\s\S]*?) FROM (?=[a-z_]+( ORDER BY|$))/, (_, cols: string) => {
    const parts = splitColumns(cols).map((c) => `${c} AS c${n++}`);
    return `SELECT ${parts.join(', ')} FROM `;
  });
  return (await store.query<Record<string, string | null>>(aliased)).map((r) =>
    Object.values(r)
      .map((v) => v ?? 'null')
      .join('|'),
  );
}

/** One value of a query, as text. */
export async function scalar(store: Store, sql: string, params: string[] = []): Promise<string | null> {
  const rows = await store.query<Record<string, string | null>>(sql, params);
  const first = rows[0];
  return first ? (Object.values(first)[0] ?? null) : null;
}

/** Splits a SELECT list on its top-level commas. */
function splitColumns(cols: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < cols.length; i++) {
    const c = cols[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0 && !/^'[^']*$/.test(cols.slice(start, i).replace(/'[^']*'/g, ''))) {
      parts.push(cols.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(cols.slice(start).trim());
  return parts;
}
