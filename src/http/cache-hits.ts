import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerReply, type ApiReply } from './api-answer.js';
import { acceptedEncoding } from './compression.js';
import type { ResponseCache } from './response-cache.js';

export interface CacheHitOptions {
  cache: ResponseCache;
  /** Whether every request must go through Fastify for now (a rate limit counts them; shutdown). */
  bypass: () => boolean;
  /** The headers of an API answer before its own (CORS, as Fastify's plugin sends it) and after (Fastify's onSend hooks'). */
  headers: { leading: Record<string, string>; trailing: () => Record<string, string> };
  /** A request id from Fastify's sequence (its genReqId). */
  nextRequestId: () => string;
  /** The request's log line and metrics, as Fastify's onResponse hook writes them. */
  record: (reqId: string, url: string, status: number, ms: number) => void;
}

/**
 * API GETs whose answer the response cache holds, answered straight from Node's request event.
 * Fastify's request and reply objects, child logger, hooks and router are most of what a cache
 * hit costs (a side-by-side run without this path: ×0.69 to ×0.91 of the req/s of hits, see
 * docs/performance.md); a miss goes to Fastify, where the store's query outweighs them. The
 * cache holds answers only of URLs an API route answered, so the URL is the whole match: no
 * route table of its own. The answer goes out as Fastify would send it, header for header and
 * byte for byte (test/operations/fixtures.test.ts), built by the same functions (answerReply). A
 * request whose answer needs more than the cached bytes goes to Fastify: a HEAD, one with a
 * body, one that takes deflate rather than gzip, and any while a rate limit is set or the
 * server is closing.
 *
 * Returns whether it took the request.
 */
export function cacheHits(o: CacheHitOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const url = req.url ?? '';
    if (req.method !== 'GET' || o.bypass()) return false;
    const headers = req.headers;
    if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
    if (acceptedEncoding(headers) === 'deflate') return false;
    const answer = o.cache.hit(url);
    if (answer === undefined) return false;

    const reqId = o.nextRequestId();
    const started = performance.now();
    const send = (reply: ApiReply) => {
      // In Fastify's order: CORS (its onRequest hook), the answer's, the onSend hooks', the length.
      res.writeHead(reply.status, {
        ...o.headers.leading,
        ...reply.headers,
        ...o.headers.trailing(),
        'content-length': String(reply.body.length),
      });
      res.end(reply.body);
      o.record(reqId, url, reply.status, performance.now() - started);
    };
    // Should gzip fail (out of memory), the answer goes as it is: a server may always send identity.
    answerReply(o.cache, url, answer, headers)
      .catch(() => answerReply(o.cache, url, answer, {}))
      .then(send);
    return true;
  };
}
