import type { MessageDef } from '../../contract/message.js';
import { messageJsonSql } from '../../pagination/message.js';
import { discountFactorsField, rewardFactorsField } from '../referral-factors.js';

/** A tier's string as stored (the served tiers' JSON, see the projection). */
const tierString = (name: string, doc: string) => ({ name, doc, type: 'string', sql: (t: string) => `(${t}.v ->> '${name}')` }) as const;

/** vega.BenefitTier over one element `v` of the program's benefit_tiers JSON array. */
export const BENEFIT_TIER = {
  name: 'vega.BenefitTier',
  doc: 'A tier of the program: what it takes, and its factors.',
  fields: [
    tierString('minimumRunningNotionalTakerVolume', "The set's running notional taker volume the tier needs, as given."),
    tierString('minimumEpochs', 'The epochs in the set the tier needs, as given.'),
    tierString('referralRewardFactor', 'Deprecated (use `referralRewardFactors`), as given: "" from core.'),
    tierString('referralDiscountFactor', 'Deprecated (use `referralDiscountFactors`), as given: "" from core.'),
    rewardFactorsField(
      'referralRewardFactors',
      'The reward factors, as given; null when the event had none.',
      (t) => `(${t}.v -> 'referralRewardFactors')`,
    ),
    discountFactorsField(
      'referralDiscountFactors',
      'The discount factors, as given; null when the event had none.',
      (t) => `(${t}.v -> 'referralDiscountFactors')`,
    ),
    {
      name: 'tierNumber',
      doc: "The tier's position, 1…n (uint64 as a string; a proto3 optional field, always set here).",
      type: 'uint64',
      optional: true,
      sql: (t) => `(${t}.v ->> 'tierNumber')`,
    },
  ],
} as const satisfies MessageDef;

/** vega.StakingTier over one element `v` of the program's staking_tiers JSON array. */
export const STAKING_TIER = {
  name: 'vega.StakingTier',
  doc: 'A staking tier of the program.',
  fields: [
    tierString('minimumStakedTokens', 'The staked tokens the tier needs, as given.'),
    tierString('referralRewardMultiplier', 'The reward multiplier, as given.'),
  ],
} as const satisfies MessageDef;

/** The elements of a JSON array column as message texts joined by commas, in their order ('' when empty). */
const elements = (column: string, def: MessageDef) =>
  `coalesce((SELECT string_agg(${messageJsonSql(def, 't')}, ',' ORDER BY t.n) FROM json_array_elements(${column}) WITH ORDINALITY AS t(v, n)), '')`;

/** datanode.api.v2.ReferralProgram over the referral_program row. */
export const REFERRAL_PROGRAM = {
  name: 'datanode.api.v2.ReferralProgram',
  doc: 'The current referral program: the latest one started or updated, with its end once ended.',
  fields: [
    { name: 'version', doc: "The program's version (uint64 as a string).", type: 'uint64', sql: (p) => `${p}.version` },
    { name: 'id', doc: "The program's id.", type: 'id', sql: (p) => `${p}.id` },
    {
      name: 'benefitTiers',
      doc: 'The benefit tiers, in order.',
      type: BENEFIT_TIER,
      list: true,
      sql: (p) => elements(`${p}.benefit_tiers`, BENEFIT_TIER),
    },
    {
      name: 'endOfProgramTimestamp',
      doc: 'When the program ends: Unix nanoseconds (int64 as a string).',
      type: 'timestamp',
      sql: (p) => `${p}.end_of_program`,
    },
    {
      name: 'windowLength',
      doc: 'The epochs the running volume covers (uint64 as a string).',
      type: 'uint64',
      sql: (p) => `${p}.window_length`,
    },
    {
      name: 'stakingTiers',
      doc: 'The staking tiers, in order.',
      type: STAKING_TIER,
      list: true,
      sql: (p) => elements(`${p}.staking_tiers`, STAKING_TIER),
    },
    {
      name: 'endedAt',
      doc: 'When the program ended: Unix nanoseconds (int64 as a string), truncated to microseconds; left out while it runs.',
      type: 'timestamp',
      optional: true,
      sql: (p) => `${p}.ended_at`,
    },
  ],
} as const satisfies MessageDef;

/** datanode.api.v2.GetCurrentReferralProgramResponse: the program, over the same row. */
export const CURRENT_REFERRAL_PROGRAM = {
  name: 'datanode.api.v2.GetCurrentReferralProgramResponse',
  doc: 'The current referral program.',
  fields: [{ name: 'currentReferralProgram', doc: 'The current referral program.', type: REFERRAL_PROGRAM, sql: (p) => p }],
} as const satisfies MessageDef;
