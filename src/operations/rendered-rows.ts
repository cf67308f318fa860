import type { CursorDef, MessageDef } from '../contract/message.js';
import type { RepeatableStep } from '../db/migrate.js';
import { cursorSql, messageJsonSql } from '../pagination/message.js';
import { EPOCH_REWARD_SUMMARY, EPOCH_REWARD_SUMMARY_CURSOR } from './epoch-reward-summaries/message.js';
import { REFERRAL_SET, REFERRAL_SET_CURSOR } from './referral-sets/message.js';

/**
 * The tables whose rows carry their page's node and cursor as text (migration 009), rendered by
 * a BEFORE trigger whenever a row is written, from the operation's message and cursor definitions.
 */
export const RENDERED_TABLES: readonly { table: string; node: MessageDef; cursor: CursorDef }[] = [
  { table: 'referral_sets', node: REFERRAL_SET, cursor: REFERRAL_SET_CURSOR },
  { table: 'epoch_reward_summaries', node: EPOCH_REWARD_SUMMARY, cursor: EPOCH_REWARD_SUMMARY_CURSOR },
];

/** The body of a table's render function: its node and cursor over NEW. */
export function renderFunctionBody(t: (typeof RENDERED_TABLES)[number]): string {
  return `\nBEGIN\n  NEW.node := ${messageJsonSql(t.node, 'NEW')};\n  NEW.cursor := ${cursorSql(t.cursor, 'NEW')};\n  RETURN NEW;\nEND\n`;
}

/**
 * For each rendered table, the step of `migrate` that (re)makes its render function from the
 * definitions and renders every row with it; run again whenever a definition changes. A row whose
 * text comes out the same keeps its version (migration 012), and with it the text processes keep.
 */
export function renderSteps(): RepeatableStep[] {
  return RENDERED_TABLES.map((t) => ({
    name: `${t.table}_render`,
    statements: [
      `CREATE OR REPLACE FUNCTION ${t.table}_render() RETURNS trigger LANGUAGE plpgsql AS $$${renderFunctionBody(t)}$$`,
      // The trigger renders: setting the column to anything makes it write both.
      `UPDATE ${t.table} SET node = NULL`,
      `ALTER TABLE ${t.table} ALTER COLUMN node SET NOT NULL, ALTER COLUMN cursor SET NOT NULL`,
    ],
  }));
}
