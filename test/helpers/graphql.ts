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
