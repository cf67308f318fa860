// The JSON bodies of the API's answers, as far as tests read fields of them: the data-node's
// wire shapes (docs/contract.md). `res.body as ReferralSetsBody` says what a test expects; its
// assertions then check the values.

interface Page<T> {
  edges: { node: T; cursor: string }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string; endCursor: string };
}

interface ReferralSet {
  id: string;
  referrer: string;
  createdAt: string;
  updatedAt: string;
  totalMembers: string;
}

interface RewardSummary {
  epoch: string;
  assetId: string;
  marketId: string;
  rewardType: string;
  amount: string;
}

export interface ReferralSetsBody {
  referralSets: Page<ReferralSet>;
}

export interface SummariesBody {
  summaries: Page<RewardSummary>;
}

/** A gRPC-gateway error; a detail carries the data-node's own code, message and inner error. */
export interface ErrorBody {
  code: number;
  message: string;
  details: { '@type': string; code: number; message: string; inner: string }[];
}
