import type { IncomingHttpHeaders } from 'node:http';
import { type ApiError, unavailable } from '../contract/errors.js';
import { goJson } from '../contract/json.js';
import { parseQuery, queryPairs } from '../contract/query.js';
import type { Store } from '../db/store.js';
import { failureOf } from '../operations/failure.js';
import type { AnyOperation, RequestOf } from '../operations/operation.js';
import type { RowCache } from '../pagination/row-cache.js';
import { answerBodies } from '../lib/body-pool.js';
import { sendsGzip } from './compression.js';
import { cacheHeaders, entityTag, NO_STORE, notModified, notModifiedUnread, noteAnswered } from './http-caching.js';
import type { Until } from '../db/store.js';
import { timeoutMsOf, withDeadline } from '../operations/deadline.js';
import type { Limits } from './limits.js';
import { runOperation } from '../operations/run.js';
import type { ChainHead } from '../pagination/result.js';
import type { Answer, ResponseCache } from './response-cache.js';
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
  /** Why the service is not ready yet; undefined once it is. */
  waitingFor: () => string | undefined;
}

/**
 * The contract's error body as a reply (?pretty indents it), kept by no HTTP cache (see
 * http-caching.ts). A Buffer body, so that the content type stays exactly application/json
 * (Fastify appends a charset to a string's).
 */
export function errorReply(err: ApiError, pretty = false): ApiReply {
  const body = err.toBody();
  return {
    status: err.status,
    headers: { 'content-type': 'application/json', 'cache-control': NO_STORE },
    body: Buffer.from(pretty ? goJson(body, 2) : goJson(body)),
  };
}

/** The chain head's headers of an answer (none while the store has no head). */
export function headHeaders(head: ChainHead | null): Record<string, string> {
  return head ? { 'x-block-height': head.height, 'x-block-timestamp': head.time } : {};
}

/** The 304 to a request whose If-None-Match names the current answer's tag: the head's and the cache's headers, no body. */
export function notModifiedReply(tag: string, head: ChainHead | null): ApiReply {
  return { status: 304, headers: { ...headHeaders(head), ...cacheHeaders(tag) }, body: Buffer.alloc(0) };
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
  noteAnswered(url);
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
  if (a.waitingFor() !== undefined) return errorReply(unavailable(), isPrettyUrl(url));
  const op = route.operation;
  const revalidating = headers['if-none-match'] !== undefined;
  if (revalidating) {
    // Before parsing the URL, when it is one this process answered (http-caching.ts).
    const stamp = a.cache.stamp(op.reads);
    const tag = stamp === undefined ? undefined : entityTag('', stamp, headers);
    if (tag !== undefined && notModifiedUnread(url, headers, tag)) return notModifiedReply(tag, a.cache.currentHead);
  }
  try {
    const answer = await withDeadline(
      (until) => a.cache.answer(url, op.reads, (u, exclusive) => compute(a, route, url, path, u, exclusive), until),
      timeoutMsOf(a.limits.requestTimeoutMs),
    );
    const stamp = a.cache.stampOfAnswer(op.reads, answer);
    const tag = stamp === undefined ? undefined : entityTag('', stamp, headers);
    if (revalidating && tag !== undefined) {
      // Made by another process, or forgotten: known now.
      noteAnswered(url);
      if (notModified(headers, tag)) {
        answerBodies.release(answer.body);
        return notModifiedReply(tag, answer.head);
      }
    }
    return await answerReply(200, answer, tag, headers, (ans) => a.cache.gzipped(url, ans));
  } catch (err) {
    return errorReply(loggedFailure(err, op, a.limits, log), isPrettyUrl(url));
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
