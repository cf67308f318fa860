// The explorer's data: the three API operations (/api/v2/…) and the explorer's own endpoints
// (/explorer/api/…), fetched from the server that served the page. URLs are relative to the
// page's <base>, so the explorer also works behind a proxy that adds a path prefix.

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string;
  endCursor: string;
}

export interface Connection<T> {
  edges: { node: T; cursor: string }[];
  pageInfo: PageInfo;
}

export interface ReferralSet {
  id: string;
  referrer: string;
  createdAt: string;
  updatedAt: string;
  totalMembers: string;
}

export interface TeamMemberStatistics {
  partyId: string;
  totalQuantumVolume: string;
  totalQuantumRewards: string;
  quantumRewards: { epoch: string; totalQuantumRewards: string }[];
  totalGamesPlayed: string;
  gamesPlayed: string[];
  quantumVolumes: { epoch: string; totalQuantumVolumes: string }[];
}

export interface RewardSummary {
  epoch: string;
  assetId: string;
  marketId: string;
  rewardType: string;
  amount: string;
}

/** GET /explorer/api/assets: symbol, name, decimals, quantum and status are null when no asset event was seen. */
export interface Asset {
  id: string;
  symbol: string | null;
  name: string | null;
  decimals: string | null;
  quantum: string | null;
  status: string | null;
}

/** A node of GET /explorer/api/teams. */
export interface Team {
  id: string;
  name: string;
  referrer: string;
  totalMembers: string;
  createdAt: string;
  closed: boolean;
  /** Distinct epochs with statistics rows for the team. */
  epochsWithStats: string;
  /** The largest aggregationEpochs for which the team's statistics are listed (0: none). */
  eligibleEpochs: string;
}

/** GET /explorer/api/overview. */
export interface Overview {
  chainHead: { height: string; blockTime: string } | null;
  counts: { referralSets: string; teams: string; epochs: string; assets: string };
  lastEndedEpoch: string | null;
  examples: {
    referralSetId: string | null;
    referee: string | null;
    teamId: string | null;
    teamEpochs: string | null;
    assetId: string | null;
  };
}

/** An answer other than 200, with the message of the contract's error body. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type Params = readonly (readonly [string, string])[];

/** The URL of an API path with its query, relative to the page's base. */
export function apiUrl(path: string, params: Params = []): string {
  const query = new URLSearchParams(params.map(([k, v]) => [k, v])).toString();
  return query ? `${path}?${query}` : path;
}

export async function getJson<T>(path: string, params: Params, signal: AbortSignal): Promise<T> {
  const res = await fetch(new URL(apiUrl(path, params), document.baseURI), { signal, headers: { accept: 'application/json' } });
  const body = (await res.json().catch(() => null)) as unknown;
  if (!res.ok) {
    const error = body as { message?: string; details?: { message?: string; inner?: string }[] } | null;
    const detail = error?.details?.[0];
    const text = [error?.message, detail?.message, detail?.inner].filter((t) => t).join(': ');
    throw new ApiFailure(res.status, text || `HTTP ${res.status}`);
  }
  return body as T;
}

/** A page position in the URL: after or before a cursor, or the first page. */
export interface PagePosition {
  after?: string;
  before?: string;
}

/** The pagination parameters of a page of `size` rows at `at`. */
export function pageParams(at: PagePosition, size: number): Params {
  if (at.before)
    return [
      ['pagination.last', String(size)],
      ['pagination.before', at.before],
    ];
  const params: [string, string][] = [['pagination.first', String(size)]];
  if (at.after) params.push(['pagination.after', at.after]);
  return params;
}

/** The API's largest page. */
const MAX_PAGE = 5000;

/** Every node of a connection, following its cursors page by page. */
export async function getAll<T>(path: string, params: Params, key: string, signal: AbortSignal): Promise<T[]> {
  const nodes: T[] = [];
  let after: string | undefined;
  for (;;) {
    const body = await getJson<Record<string, Connection<T>>>(path, [...params, ...pageParams({ after }, MAX_PAGE)], signal);
    const page = body[key]!;
    for (const edge of page.edges) nodes.push(edge.node);
    if (!page.pageInfo.hasNextPage) return nodes;
    after = page.pageInfo.endCursor;
  }
}
