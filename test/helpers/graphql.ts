import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { runNode } from './cli.js';
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

const CLIENT = fileURLToPath(new URL('../graphql/apollo-client.mjs', import.meta.url));

export interface ApolloRequest {
  query: string;
  variables?: Record<string, unknown>;
  errorPolicy?: 'none' | 'all';
}
export interface ApolloResult {
  data?: Record<string, unknown>;
  errors?: unknown[];
  error?: { message: string; graphQLErrors: unknown[] };
}

/** Runs Apollo Client 3 (test/graphql/apollo-client.mjs) in a process of its own against `base`, one query per request, in order. */
export async function apollo(base: string, requests: ApolloRequest[]): Promise<ApolloResult[]> {
  const res = await runNode([CLIENT, base], { stdin: JSON.stringify(requests) });
  assert.equal(res.code, 0, res.stderr);
  return JSON.parse(res.stdout) as ApolloResult[];
}
