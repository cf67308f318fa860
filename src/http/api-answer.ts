import type { IncomingHttpHeaders } from 'node:http';
import { type ApiError, unavailable } from '../contract/errors.js';
import { goJson } from '../contract/json.js';
import { parseQuery, queryPairs } from '../contract/query.js';
import type { Store } from '../db/store.js';
import { failureOf } from '../operations/failure.js';
import type { AnyOperation, RequestOf } from '../operations/operation.js';
import type { RowCache } from '../pagination/row-cache.js';
import { answerBodies } from '../lib/body-pool.js';
import { gzipAsync, sendsGzip } from './compression.js';
import { type AnsweredUrls, cacheHeaders, entityTag, NO_STORE, notModified } from './http-caching.js';
import type { Until } from '../db/store.js';
import { timeoutMsOf, withDeadline } from '../operations/deadline.js';
import type { Limits } from './limits.js';
import { runOperation } from '../operations/run.js';
import type { ChainHead } from '../pagination/result.js';
import type { Answer, ResponseCache } from './response-cache.js';
import type { AnswerSource } from '../db/read-models.js';
import type { Route } from './routes.js';

/** What an API request gets: its status, its headers in the order they are sent, its body. */
export interface ApiReply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Where warnings about one request go (made only when one is written). */
export type RequestLogger = () => { warn(fields: object, msg: string): void; error(fields: object, msg: string): void };

/** What answering API requests needs, for every request alike. */
export interface ApiAnswers {
  store: Store;
  cache: ResponseCache;
  rows: RowCache | undefined;
  limits: Limits;
  /** The URLs this server has answered (http-caching.ts). */
  answered: AnsweredUrls;
  /** Why the service is not ready yet; undefined once it is. */
  waitingFor: () => string | undefined;
}

/**
 * The contract's error body as a reply (?pretty indents it), kept by no HTTP cache (see
 * http-caching.ts), with the head's headers of the last block applied when one is known (contract
 * §3, as the data-node's interceptor sets them before the call). A Buffer body, so that the
 * content type stays exactly application/json (Fastify appends a charset to a string's).
 */
export function errorReply(err: ApiError, pretty = false, head: ChainHead | null = null): ApiReply {
  const body = err.toBody();
  return {
    status: err.status,
    headers: { ...headHeaders(head), 'content-type': 'application/json', 'cache-control': NO_STORE },
    body: Buffer.from(pretty ? goJson(body, 2) : goJson(body)),
  };
}

/**
 * An error reply gzipped as the compression plugin would (a long one, when the client takes it,
 * with its headers): the fast path's replies never pass the plugin, and one it sees already
 * encoded it leaves as it is, so both paths send the same bytes.
 */
async function compressedError(reply: ApiReply, headers: IncomingHttpHeaders): Promise<ApiReply> {
  if (!sendsGzip(headers, reply.body)) return reply;
  return {
    status: reply.status,
    headers: { ...reply.headers, vary: 'accept-encoding', 'content-encoding': 'gzip' },
    body: await gzipAsync(reply.body),
  };
}

/** The chain head's headers of an answer (none while the store has no head). */
export function headHeaders(head: ChainHead | null): Record<string, string> {
  return head ? { 'x-block-height': head.height, 'x-block-timestamp': head.time } : {};
}

/** The 304 to a request whose If-None-Match names the current answer's tag: the head's and the cache's headers, no body. */
function notModifiedReply(tag: string, head: ChainHead | null): ApiReply {
  return { status: 304, headers: { ...headHeaders(head), ...cacheHeaders(tag) }, body: Buffer.alloc(0) };
}

/**
 * Revalidation before anything is read (http-caching.ts): the 304 to a request whose URL this
 * server has answered and whose If-None-Match names the current tag of what it reads (`sources`,
 * the answers' `scope`: see entityTag); else undefined, and the answer is made.
 */
export function notModifiedUnread(
  a: ApiAnswers,
  sources: readonly AnswerSource[],
  scope: string,
  url: string,
  headers: IncomingHttpHeaders,
): ApiReply | undefined {
  if (headers['if-none-match'] === undefined || !a.answered.has(url)) return undefined;
  const stamp = a.cache.stamp(sources);
  if (stamp === undefined) return undefined;
  const tag = entityTag(scope, stamp, headers);
  return notModified(headers, tag) ? notModifiedReply(tag, a.cache.currentHead) : undefined;
}

/**
 * A made answer's tag, undefined when it is not the answer at the versions the server knows
 * (ResponseCache.stampOfAnswer), and the 304 when the request's If-None-Match names it.
 */
export function validated(
  a: ApiAnswers,
  sources: readonly AnswerSource[],
  scope: string,
  url: string,
  headers: IncomingHttpHeaders,
  answer: Answer,
): { tag: string | undefined; notModified?: ApiReply } {
  const stamp = a.cache.stampOfAnswer(sources, answer);
  if (stamp === undefined) return { tag: undefined };
  const tag = entityTag(scope, stamp, headers);
  if (headers['if-none-match'] === undefined) return { tag };
  // Made by another process or for a POST, or forgotten: known now.
  a.answered.note(url);
  return notModified(headers, tag) ? { tag, notModified: notModifiedReply(tag, answer.head) } : { tag };
}

/** The query string of a request URL (after the first ?), empty when it has none. */
export function queryOf(url: string): string {
  const q = url.indexOf('?');
  return q >= 0 ? url.slice(q + 1) : '';
}

/** ?pretty (any value) indents the JSON answer, errors included. */
function isPretty(query: readonly [string, string][]): boolean {
  return query.some(([k]) => k === 'pretty');
}

export function isPrettyUrl(url: string): boolean {
  try {
    return isPretty(queryPairs(queryOf(url)));
  } catch {
    return false; // A query string that does not parse: its error is not indented.
  }
}

/**
 * The operation's answer to a request URL: the query parsed by the gateway's rules into the
 * operation's request (path parameters set their fields), and its result as the response
 * message's JSON (?pretty indents it), its body from the pool when this request alone sends it.
 */
async function compute(
  a: ApiAnswers,
  route: Route,
  url: string,
  path: Record<string, string>,
  until: Until,
  exclusive: boolean,
): Promise<Answer> {
  const op = route.operation;
  let request: RequestOf<AnyOperation['fields']> = path;
  let pretty: boolean;
  if (op.ignoresQuery) pretty = isPrettyUrl(url);
  else {
    // The query is parsed once, for the fields and ?pretty alike.
    const query = queryPairs(queryOf(url));
    // Path parameters written into the parsed fields, not both spread into a new literal (V8's slow path).
    request = Object.assign(parseQuery(query, op.fields), path);
    pretty = isPretty(query);
  }
  const result = await runOperation(op, { store: a.store, rows: a.rows, until, maxListValues: a.limits.maxFilterValues }, request);
  a.answered.note(url);
  const body = result.responseJson(exclusive ? answerBodies.alloc : undefined);
  if (!pretty) return { body, head: result.head };
  const indented = Buffer.from(goJson(JSON.parse(body.toString()), 2));
  answerBodies.release(body); // read into its indented copy: nothing holds it any more
  return { body: indented, head: result.head };
}

/**
 * The reply to a GET of an API route: the answer from the response cache or the store, with the
 * chain head it is the answer at, gzipped when the client takes that, tagged for HTTP caches
 * (http-caching.ts); a 304 without reading anything when the request names the current tag; or
 * the contract's error.
 */
export async function answerApi(
  a: ApiAnswers,
  route: Route,
  url: string,
  path: Record<string, string>,
  headers: IncomingHttpHeaders,
  log: RequestLogger,
): Promise<ApiReply> {
  if (a.waitingFor() !== undefined) return compressedError(errorReply(unavailable(), isPrettyUrl(url), a.cache.currentHead), headers);
  const op = route.operation;
  // Before parsing the URL.
  const unread = notModifiedUnread(a, op.reads, '', url, headers);
  if (unread) return unread;
  try {
    const answer = await withDeadline(
      (until) => a.cache.answer(url, op.reads, (u, exclusive) => compute(a, route, url, path, u, exclusive), until),
      timeoutMsOf(a.limits.requestTimeoutMs),
    );
    const { tag, notModified } = validated(a, op.reads, '', url, headers, answer);
    if (notModified) {
      answerBodies.release(answer.body);
      return notModified;
    }
    return await answerReply(200, answer, tag, headers, (ans) => a.cache.gzipped(url, ans));
  } catch (err) {
    return compressedError(errorReply(loggedFailure(err, op, a.limits, log), isPrettyUrl(url), a.cache.currentHead), headers);
  }
}

/**
 * An answer's reply: the head's headers, gzipped when the client takes that (by
 * `gzip`: the compression plugin leaves an encoded body as it is), and with `tag` the headers
 * that let HTTP caches keep it, without it no-store. REST's and GraphQL's alike.
 */
export async function answerReply(
  status: number,
  answer: Answer,
  tag: string | undefined,
  headers: IncomingHttpHeaders,
  gzip: (answer: Answer) => Promise<Buffer>,
): Promise<ApiReply> {
  const sent = headHeaders(answer.head);
  sent['content-type'] = 'application/json';
  const gzipped = sendsGzip(headers, answer.body);
  if (gzipped) sent['content-encoding'] = 'gzip';
  if (tag !== undefined) Object.assign(sent, cacheHeaders(tag));
  else {
    sent['cache-control'] = NO_STORE;
    if (gzipped) sent.vary = 'accept-encoding';
  }
  if (!gzipped) return { status, headers: sent, body: answer.body };
  const body = await gzip(answer);
  answerBodies.release(answer.body); // a pooled body is this request's alone: read into its gzipped copy
  return { status, headers: sent, body };
}

/** An operation's failure as the contract's error (operations/failure.ts), its line logged with the request's logger. */
export function loggedFailure(err: unknown, op: AnyOperation, limits: Limits, log: RequestLogger): ApiError {
  const { error, log: line } = failureOf(op, err, limits.requestTimeoutMs);
  if (line) log()[line.level](line.fields, line.msg);
  return error;
}
