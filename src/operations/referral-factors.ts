import type { Field, MessageDef } from '../contract/message.js';

/**
 * vega.RewardFactors and vega.DiscountFactors, read from a stored JSON object of the event's
 * strings (family.md §3): ReferralSetStats holds them in columns, a program's benefit tiers in
 * its tiers' JSON. `json` is that object as SQL over the row (SQL NULL or JSON null when the
 * event had none).
 */

/** The object's text, NULL for SQL NULL and for JSON null alike. */
const objectText = (json: string) => `(${json} #>> '{}')`;

function factors(name: string, doc: string, keys: readonly string[], json: (row: string) => string): MessageDef {
  return {
    name,
    doc,
    fields: keys.map(
      (key): Field => ({
        name: key,
        doc: 'As the event gave it; "" when absent.',
        type: 'string',
        sql: (r) => `coalesce(${json(r)} ->> '${key}', '')`,
      }),
    ),
  };
}

const REWARD_KEYS = ['infrastructureRewardFactor', 'liquidityRewardFactor', 'makerRewardFactor'] as const;
const DISCOUNT_KEYS = ['infrastructureDiscountFactor', 'liquidityDiscountFactor', 'makerDiscountFactor'] as const;

/** A vega.RewardFactors field: null when the event had none. */
export function rewardFactorsField(name: string, doc: string, json: (row: string) => string): Field {
  const type = factors('vega.RewardFactors', 'Reward factors, per fee kind.', REWARD_KEYS, json);
  return { name, doc, type, nullable: true, sql: (r) => objectText(json(r)) };
}

/** A vega.DiscountFactors field: null when the event had none, or (`always`) three "" strings then. */
export function discountFactorsField(name: string, doc: string, json: (row: string) => string, always = false): Field {
  const type = factors('vega.DiscountFactors', 'Discount factors, per fee kind.', DISCOUNT_KEYS, json);
  return always
    ? { name, doc, type, sql: (r) => objectText(json(r)) }
    : { name, doc, type, nullable: true, sql: (r) => objectText(json(r)) };
}
