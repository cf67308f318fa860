// The JSON bodies of the API's answers, as far as tests read fields of them: the response
// messages, their nodes typed by the service's message definitions. `res.body as
// ReferralSetsBody` says what a test expects; its assertions then check the values.
import type { Connection, MessageJson } from '../../src/contract/message.js';
import type { ErrorDetail } from '../../src/contract/errors.js';
import type { EPOCH_REWARD_SUMMARY } from '../../src/operations/epoch-reward-summaries/message.js';
import type { REFERRAL_SET } from '../../src/operations/referral-sets/message.js';

export interface ReferralSetsBody {
  referralSets: Connection<MessageJson<typeof REFERRAL_SET>>;
}

export interface SummariesBody {
  summaries: Connection<MessageJson<typeof EPOCH_REWARD_SUMMARY>>;
}

/** A gRPC-gateway error; a detail carries the data-node's own code, message and inner error. */
export interface ErrorBody {
  code: number;
  message: string;
  details: ErrorDetail[];
}
