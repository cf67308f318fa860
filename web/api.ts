// The explorer's data: the API operations (/api/v2/…) and the explorer's own endpoints
// (/explorer/api/…), fetched from the server that served the page. URLs are relative to the
// page's <base>, so the explorer also works behind a proxy that adds a path prefix.

import type { EPOCH_REWARD_SUMMARY } from '../src/operations/epoch-reward-summaries/message.js';
import type { ASSET } from '../src/operations/explorer-assets/message.js';
import type { OVERVIEW } from '../src/operations/explorer-overview/message.js';
import type { TEAM } from '../src/operations/explorer-teams/message.js';
import type { TEAM as DATA_NODE_TEAM } from '../src/operations/list-teams/message.js';
import type { TEAM_STATISTICS } from '../src/operations/list-teams-statistics/message.js';
import type { REFERRAL_SET } from '../src/operations/referral-sets/message.js';
import type { TEAM_MEMBER_STATISTICS } from '../src/operations/team-member-stats/message.js';
import type { REFERRAL_SET_REFEREE } from '../src/operations/referral-set-referees/message.js';
import type { REFERRAL_SET_STATS } from '../src/operations/referral-set-stats/message.js';
import type { Connection, MessageJson } from '../src/contract/message.js';

export type { Connection, PageInfo } from '../src/contract/message.js';

// The nodes' types come from the service's message definitions (src/operations/*/message.ts).
export type ReferralSet = MessageJson<typeof REFERRAL_SET>;
export type TeamMemberStatistics = MessageJson<typeof TEAM_MEMBER_STATISTICS>;
export type RewardSummary = MessageJson<typeof EPOCH_REWARD_SUMMARY>;
export type ReferralSetReferee = MessageJson<typeof REFERRAL_SET_REFEREE>;
export type ReferralSetStats = MessageJson<typeof REFERRAL_SET_STATS>;
/** GET /explorer/api/assets: symbol, name, decimals, quantum and status are null when no asset event was seen. */
export type Asset = MessageJson<typeof ASSET>;
/** A node of GET /explorer/api/teams. */
export type Team = MessageJson<typeof TEAM>;
/** A node of GET /api/v2/teams (ListTeams). */
export type DataNodeTeam = MessageJson<typeof DATA_NODE_TEAM>;
/** A node of GET /api/v2/teams/stats (ListTeamsStatistics). */
export type TeamStatistics = MessageJson<typeof TEAM_STATISTICS>;
/** GET /explorer/api/overview. */
export type Overview = MessageJson<typeof OVERVIEW>;

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
