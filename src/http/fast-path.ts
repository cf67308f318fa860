import type { IncomingMessage, ServerResponse } from 'node:http';
import { internalError } from '../contract/errors.js';
import { type ApiAnswers, type ApiReply, answerApi, errorReply, type RequestLogger } from './api-answer.js';
import { releaseWhenSent } from '../lib/body-pool.js';
import { acceptedEncoding } from './compression.js';
import type { GraphqlGet } from '../graphql/http.js';
import type { Route } from './routes.js';

/** A route's path as a pattern over request paths, its `:params` as named groups (segments without escapes). */
export function routePattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/:([A-Za-z]+)/g, '(?<$1>[^/]+)')}$`);
}

/**
 * The routes in the order a path is tried against them: at the first segment where two differ, a
 * static one before a parameter, as Fastify's router (and the reference's gateway, family.md §1)
 * decides: /api/v2/teams/referees/stats is /api/v2/teams/referees/:teamId, not
 * /api/v2/teams/:teamId/stats. Otherwise the table's order.
 */
export function byPriority(routes: readonly Route[]): Route[] {
  // Each path's segments as 0 (static) or 1 (parameter), compared as strings: a total order (a
  // comparator that only looked at the first difference would not be one, and sort needs one).
  const rank = (route: Route) =>
    route.path
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '1' : '0'))
      .join('');
  return [...routes].sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0));
}

export interface FastPathOptions {
  routes: readonly Route[];
  answers: ApiAnswers;
  /** Whether every request must go through Fastify for now (a rate limit counts them; shutdown). */
  bypass: () => boolean;
  maxUrlLength: number;
  /** The headers of an API answer before its own (CORS, as Fastify's plugin sends it) and after (Fastify's onSend hooks'). */
  headers: { leading: Record<string, string>; trailing: () => Record<string, string> };
  /** A request id from Fastify's sequence (its genReqId). */
  nextRequestId: () => string;
  /** Warnings and errors about one request (a child logger with its id). */
  requestLogger: (reqId: string) => ReturnType<RequestLogger>;
  /** The request's log line and metrics, as Fastify's onResponse hook writes them: its operation and route path. */
  record: (reqId: string, operation: string, path: string, url: string, status: number, ms: number) => void;
  /** GET /graphql with a document (no GraphiQL page), answered as its Fastify route does (graphql/http.ts), with its CORS headers. */
  graphql?: { path: string; leading: Record<string, string>; answer: GraphqlGet };
}

/**
 * API GETs answered straight from Node's request event, with the function Fastify's route calls
 * (answerApi) and the same route table: without it, Fastify's request and reply objects, child
 * logger, hooks and router took answers from the response cache down to ×0.69 to ×0.91 of their
 * req/s (medium chain, c=32; docs/performance.md). A request is taken only when its answer is
 * all it needs and Fastify would send it alike, header for header and byte for byte
 * (test/operations/fixtures.test.ts asks every fixture request both ways): a GET of a route's
 * path with no escape in it, no body, a URL within the limit, and not deflate-only; and only
 * while no rate limit is set and the server is not closing. CORS, compression and the trailing
 * headers come from the settings and functions Fastify's plugins and hooks use. Everything else
 * goes to Fastify.
 *
 * Returns whether it took the request.
 */
export function apiFastPath(o: FastPathOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  // A path equal to a route's without parameters is that route's: a parameter ranks after a
  // static segment, so no other route comes first. The others are tried in priority order.
  const exact = new Map(o.routes.filter((route) => !route.path.includes(':')).map((route) => [route.path, route]));
  const patterns = byPriority(o.routes.filter((route) => route.path.includes(':'))).map(
    (route) => [route, routePattern(route.path)] as const,
  );
  /** The route of a path and its parameters; undefined when none matches. */
  const match = (path: string): [Route, Record<string, string>] | undefined => {
    const route = exact.get(path);
    if (route !== undefined) return [route, {}];
    for (const [route, pattern] of patterns) {
      const m = pattern.exec(path);
      if (m) return [route, m.groups ?? {}];
    }
    return undefined;
  };
  const leading = Object.entries(o.headers.leading).flat();
  const graphqlLeading = Object.entries(o.graphql?.leading ?? {}).flat();
  /** Writes a reply, its headers in Fastify's order: CORS (its onRequest hook), the answer's, the onSend hooks', the length. */
  const write = (res: ServerResponse, first: readonly string[], reply: ApiReply) => {
    // As a flat list of names and values, which Node sends as it is (merged objects cost ~2%).
    const sent = [...first];
    for (const headers of [reply.headers, o.headers.trailing()]) for (const name in headers) sent.push(name, headers[name]!);
    // A 304 has no body, and no length (RFC 9110 §8.6: it would be the full answer's), as Fastify sends it.
    if (reply.status !== 304) sent.push('content-length', String(reply.body.length));
    res.writeHead(reply.status, sent);
    res.end(reply.body);
    releaseWhenSent(res, reply.body);
  };
  return (req, res) => {
    const url = req.url ?? '';
    if (req.method !== 'GET' || o.bypass() || Buffer.byteLength(url) > o.maxUrlLength) return false;
    const headers = req.headers;
    if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
    if (acceptedEncoding(headers) === 'deflate') return false;
    const q = url.indexOf('?');
    const path = q >= 0 ? url.slice(0, q) : url;
    // Escapes in the path are Fastify's router's to decode, by its rules; so is a '#', where its
    // router cuts the path (a client's, since a fragment is never sent).
    if (path.includes('%') || path.includes('#')) return false;
    if (o.graphql && path === o.graphql.path) {
      // Without a document, it may be a browser's GraphiQL page: Fastify's.
      if (q < 0 || !url.includes('query=', q)) return false;
      const reqId = o.nextRequestId();
      const started = performance.now();
      o.graphql
        .answer(url, headers, () => o.requestLogger(reqId))
        .then(({ reply, operation }) => {
          write(res, graphqlLeading, reply);
          o.record(reqId, operation, path, url, reply.status, performance.now() - started);
        })
        .catch((err: unknown) => o.requestLogger(reqId).error({ err }, 'an answer could not be sent'));
      return true;
    }
    const found = match(path);
    if (found === undefined) return false;
    const [route, params] = found;

    const reqId = o.nextRequestId();
    const started = performance.now();
    const send = (reply: ApiReply) => {
      write(res, leading, reply);
      o.record(reqId, route.operation.name, route.path, url, reply.status, performance.now() - started);
    };
    answerApi(o.answers, route, url, params, headers, () => o.requestLogger(reqId))
      .then(send, (err: unknown) => {
        o.requestLogger(reqId).error({ err }, 'unhandled error');
        send(errorReply(internalError(0, 'internal error')));
      })
      .catch((err: unknown) => o.requestLogger(reqId).error({ err }, 'an answer could not be sent'));
    return true;
  };
}
