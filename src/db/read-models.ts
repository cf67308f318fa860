/**
 * The read models by name: ingestion records the height of the last block that changed each
 * (read_model_versions, migration 010), and each operation names the models its answers read,
 * so that a block invalidates only the cached answers of the models it changed.
 */
export const READ_MODELS = [
  /** referral_sets, referral_set_referees */
  'referral-sets',
  /** teams, team_members, team_membership_history */
  'teams',
  /** team_member_stats, team_epochs, team_parties, team_party_games, team_epoch_stats, team_stats_spans, team_games */
  'team-member-stats',
  /** game_scopes (read by ingestion only) */
  'game-scopes',
  /** epoch_reward_summaries */
  'epoch-reward-summaries',
  /** assets */
  'assets',
  /** chain_head.last_ended_epoch: the window of team statistics (its height and time change with every block: see 'block') */
  'chain-head',
  /** referral_program */
  'referral-program',
  /** referral_set_epochs, referral_set_referee_stats */
  'referral-set-stats',
  /** referral_generated_rewards */
  'referral-generated-rewards',
] as const;

export type ReadModel = (typeof READ_MODELS)[number];

/** What an answer may read besides the read models: the block the head is at (its height and time), new with every block. */
export type AnswerSource = ReadModel | 'block';

/** The store's chain head with the version of each read model, as one snapshot saw them. */
export interface HeadState {
  /** The last applied block's height and time (Unix ns), as text. */
  height: string;
  time: string;
  /** The height each source last changed at: '0' for a model unchanged since migration 010. */
  versions: Readonly<Record<AnswerSource, string>>;
}

/** The state from chain_head_state()'s text (a notice's payload, or a read); null without a head. */
export function parseHeadState(text: string | null): HeadState | null {
  if (text === null || text === '') return null;
  const raw = JSON.parse(text) as { height: string; time: string; models: Partial<Record<string, string>> };
  const versions = { block: raw.height } as Record<AnswerSource, string>;
  for (const model of READ_MODELS) versions[model] = raw.models[model] ?? '0';
  return { height: raw.height, time: raw.time, versions };
}
