import type { CursorDef, MessageDef } from '../../contract/message.js';
import { discountFactorsField, rewardFactorsField } from '../referral-factors.js';

/** A deprecated string the reference drops at ingestion: always "" (family.md §3, keep). */
const deprecated = (name: string, instead: string) =>
  ({ name, doc: `Deprecated (use \`${instead}\`): always "".`, type: 'string', sql: () => `''` }) as const;

/**
 * datanode.api.v2.ReferralSetStats over a page row (see sql.ts): a referral_set_referee_stats row
 * with its set's referral_set_epochs columns. The strings are the event's, as it carried them.
 */
export const REFERRAL_SET_STATS = {
  name: 'datanode.api.v2.ReferralSetStats',
  doc: "A referee's entry of a referral set's statistics for one epoch, with the set's figures.",
  fields: [
    { name: 'atEpoch', doc: 'The epoch (uint64 as a string).', type: 'uint64', sql: (u) => `${u}.epoch` },
    {
      name: 'referralSetRunningNotionalTakerVolume',
      doc: "The set's running notional taker volume, as the event gave it.",
      type: 'string',
      sql: (u) => `${u}.running_volume`,
    },
    { name: 'partyId', doc: "The referee's party id.", type: 'id', sql: (u) => `${u}.party` },
    deprecated('discountFactor', 'discountFactors'),
    deprecated('rewardFactor', 'rewardFactors'),
    {
      name: 'epochNotionalTakerVolume',
      doc: 'The referee\'s notional taker volume in the epoch, as the event gave it ("" when absent).',
      type: 'string',
      sql: (u) => `${u}.volume`,
    },
    { name: 'rewardsMultiplier', doc: 'As the event gave it.', type: 'string', sql: (u) => `${u}.rewards_multiplier` },
    deprecated('rewardsFactorMultiplier', 'rewardsFactorsMultiplier'),
    { name: 'wasEligible', doc: 'Whether the set was eligible for rewards in the epoch.', type: 'bool', sql: (u) => `${u}.was_eligible` },
    {
      name: 'referrerTakerVolume',
      doc: "The referrer's taker volume, as the event gave it.",
      type: 'string',
      sql: (u) => `${u}.referrer_taker_volume`,
    },
    discountFactorsField(
      'discountFactors',
      'The referee\'s discount factors; three "" when the event had none.',
      (u) => `${u}.discount_factors`,
      true,
    ),
    rewardFactorsField('rewardFactors', "The set's reward factors; null when the event had none.", (u) => `${u}.reward_factors`),
    rewardFactorsField(
      'rewardsFactorsMultiplier',
      "The set's reward factors with the multiplier (the event's rewardFactorsMultiplier); null when the event had none.",
      (u) => `${u}.reward_factors_multiplier`,
    ),
  ],
} as const satisfies MessageDef;

/**
 * A row's position, as the reference writes it: {"VegaTime":"…","AtEpoch":n,"SetID":"<id>","PartyID":"<id>"}.
 * VegaTime (the event's block time) is written but is not part of the position; (fix) SetID is
 * filled (the reference leaves it "").
 */
export const REFERRAL_SET_STATS_CURSOR = {
  fields: [
    { key: 'VegaTime', type: 'time', sql: (u) => `${u}.block_time` },
    { key: 'AtEpoch', type: 'uint64', position: 'epoch', sql: (u) => `${u}.epoch` },
    { key: 'SetID', type: 'id', position: 'setId', sql: (u) => `${u}.set_id` },
    { key: 'PartyID', type: 'id', position: 'party', sql: (u) => `${u}.party` },
  ],
} as const satisfies CursorDef;
