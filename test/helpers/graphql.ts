import { get, type HttpResult } from './server.js';

/** A GraphQL request as Apollo Client sends it: a POST of {operationName, variables, query}. */
export function postGraphql(
  base: string,
  body: { query: string; operationName?: string; variables?: Record<string, unknown> },
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  return get(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: '*/*', ...headers },
    body: JSON.stringify(body),
  });
}

/** Go's RFC3339Nano in UTC of a Unix ns string (graphql.md §3), written apart from the service's. */
function rfc3339NanoOf(ns: string): string | null {
  if (/^0+$/.test(ns)) return null;
  const n = BigInt(ns);
  const ms = Number(n / 1_000_000n);
  const fraction = (n % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${new Date(ms).toISOString().slice(0, 19)}${fraction ? `.${fraction}` : ''}Z`;
}

/** A REST node's values in GraphQL's encodings (graphql.md §3): epochs and counts as numbers, times in RFC3339Nano. */
export function graphqlNode(node: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'epoch' || key === 'totalMembers' || key === 'totalGamesPlayed') out[key] = Number(value);
    else if (key === 'createdAt' || key === 'updatedAt') out[key] = rfc3339NanoOf(value as string);
    else if (Array.isArray(value)) out[key] = value.map((v) => (typeof v === 'object' ? graphqlNode(v as Record<string, unknown>) : v));
    else out[key] = value;
  }
  return out;
}
