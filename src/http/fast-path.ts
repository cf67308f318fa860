import negotiate from '@fastify/accept-negotiator';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Operation } from '../operations/operation.js';
import { answerApi, errorReply, type ApiAnswers, type ApiReply, type RequestLogger } from './api-answer.js';
import { ENCODINGS } from './compression.js';
import { internalError } from '../contract/errors.js';

/** An operation's route as the fast path matches it: a fixed path, or a prefix and suffix around one parameter. */
interface Route {
  op: Operation;
  prefix: string;
  /** The parameter's name, when the path has one (between prefix and suffix). */
  param?: string;
  suffix: string;
}

function routeOf(op: Operation): Route | undefined {
  const parts = op.path.split(/:([A-Za-z]+)/);
  if (parts.length === 1) return { op, prefix: op.path, suffix: '' };
  if (parts.length === 3) return { op, prefix: parts[0]!, param: parts[1]!, suffix: parts[2]! };
  return undefined; // Two parameters or more: none has; Fastify routes it.
}

/** An operation and its path parameters, as a request path names them. */
export interface Routed {
  op: Operation;
  params: Record<string, string>;
}

/**
 * Finds the operation of a request path (no query) and its path parameters, when the path can
 * be taken as it is: undefined for any other path, and for one with an escape, a slash or a #
 * in a parameter (Fastify's router decodes those, by its rules).
 */
export function routeMatcher(operations: readonly Operation[]): (path: string) => Routed | undefined {
  const routes = operations.map(routeOf).filter((r): r is Route => r !== undefined);
  return (path) => {
    for (const route of routes) {
      if (route.param === undefined) {
        if (path === route.prefix) return { op: route.op, params: {} };
        continue;
      }
      if (path.length <= route.prefix.length + route.suffix.length || !path.startsWith(route.prefix) || !path.endsWith(route.suffix))
        continue;
      const value = path.slice(route.prefix.length, path.length - route.suffix.length);
      if (/[/%#]/.test(value)) return undefined;
      return { op: route.op, params: { [route.param]: value } };
    }
    return undefined;
  };
}

/** What the fast path reports of each request it answers, as the server's onResponse hook does. */
export type RecordRequest = (reqId: string, op: Operation, url: string, status: number, ms: number) => void;

export interface FastPathOptions {
  operations: readonly Operation[];
  answers: ApiAnswers;
  /** The request ids Fastify gives too (its genReqId), so that both paths count one sequence. */
  nextRequestId: () => string;
  /** Warnings and errors about one request (a child logger with its id). */
  requestLogger: (reqId: string) => ReturnType<RequestLogger>;
  /** Debug line at arrival, when that level is on. */
  received?: (reqId: string, url: string) => void;
  record: RecordRequest;
  /** Headers every API answer carries after its own: CORS first is added here. */
  trailingHeaders: () => Record<string, string>;
  /** Whether a request must go through Fastify whatever it is (rate limiting, startup, shutdown). */
  bypass: () => boolean;
  maxUrlLength: number;
}

/**
 * API GETs answered straight from Node's request event, without Fastify: its request and reply
 * objects, child logger, hooks (each a promise) and router were about a tenth of a lookup's CPU
 * (32.5 µs a request against 29 on the 2-core machine). A request is taken only when its answer
 * is all it needs, and Fastify would answer it alike, byte for byte and header for header (the
 * tests ask every fixture request both ways): a GET of an operation's path as it is (no escapes
 * in a path parameter), with no body, a URL within the limit, and no deflate-only
 * Accept-Encoding; and only while no rate limit is set, the store is ready and the server is not
 * closing. Everything else goes to Fastify, as before.
 *
 * Returns whether it took the request.
 */
export function apiFastPath(o: FastPathOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const match = routeMatcher(o.operations);
  return (req, res) => {
    const url = req.url ?? '';
    if (req.method !== 'GET' || o.bypass() || Buffer.byteLength(url) > o.maxUrlLength) return false;
    const headers = req.headers;
    if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
    const accept = headers['accept-encoding'];
    if (typeof accept === 'string' && negotiate(accept.toLowerCase().replace(/\*|x-gzip/gu, 'gzip'), ENCODINGS) === 'deflate') return false;
    const q = url.indexOf('?');
    const found = match(q >= 0 ? url.slice(0, q) : url);
    if (found === undefined) return false;

    const reqId = o.nextRequestId();
    const started = performance.now();
    o.received?.(reqId, url);
    const op = found.op;
    const send = (reply: ApiReply) => {
      const body = reply.body;
      // As Fastify orders them: CORS (its onRequest hook), the answer's, the onSend hooks', the length.
      const sent = ['access-control-allow-origin', '*'];
      for (const [name, value] of Object.entries(reply.headers)) sent.push(name, value);
      for (const [name, value] of Object.entries(o.trailingHeaders())) sent.push(name, value);
      sent.push('content-length', String(body.length));
      res.writeHead(reply.status, sent);
      res.end(body);
      o.record(reqId, op, url, reply.status, performance.now() - started);
    };
    answerApi(o.answers, op, url, found.params, headers, () => o.requestLogger(reqId))
      .then(send, (err: unknown) => {
        o.requestLogger(reqId).error({ err }, 'unhandled error');
        send(errorReply(internalError(0, 'internal error')));
      })
      .catch((err: unknown) => o.requestLogger(reqId).error({ err }, 'an answer could not be sent'));
    return true;
  };
}
