import compress from '@fastify/compress';
import cors from '@fastify/cors';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { StoreUnavailableError, type Store } from '../db/store.js';
import type { Operation } from '../operations/operation.js';
import { ApiError, internalError, methodNotAllowed, notFound, parseError, unavailable } from './errors.js';
import { goJson } from './json.js';
import { queryPairs } from './query.js';

export interface ServerOptions {
  store: Store;
  operations: readonly Operation[];
  logger: Logger;
}

/** Matches a request path against an operation's route, for telling 501 from 404. */
function routePattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/:[A-Za-z]+/g, '[^/]+')}$`);
}

function send(reply: FastifyReply, status: number, body: unknown, pretty: boolean): FastifyReply {
  const text = pretty ? goJson(body, 2) : goJson(body);
  // A Buffer, so that the content type stays exactly application/json (no charset appended).
  return reply.code(status).header('content-type', 'application/json').send(Buffer.from(text));
}

function sendError(reply: FastifyReply, err: ApiError, pretty = false): FastifyReply {
  return send(reply, err.status, err.toBody(), pretty);
}

/** The HTTP face of the service: the operations' routes and the contract's error bodies. */
export async function buildServer(opts: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    // One log line per request, written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: {
      // We parse query strings ourselves, with the gateway's rules.
      querystringParser: () => ({}),
      // Paths are matched exactly: no trailing-slash or case folding (contract §1).
      ignoreTrailingSlash: false,
      caseSensitive: true,
    },
  });
  await app.register(cors, { origin: '*', methods: ['GET', 'HEAD'] });
  await app.register(compress, { global: true, encodings: ['gzip', 'deflate'] });

  // Bodies are never read; accept any so that a POST reaches the 501 answer.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));

  const patterns = opts.operations.map((op) => routePattern(op.path));

  for (const op of opts.operations) {
    app.get(op.path, async (request, reply) => {
      const url = request.raw.url ?? '';
      const q = url.indexOf('?');
      const rawQuery = q >= 0 ? url.slice(q + 1) : '';
      let pretty = false;
      try {
        const query = queryPairs(rawQuery);
        pretty = query.some(([k]) => k === 'pretty');
        const result = await op.run(opts.store, { path: request.params as Record<string, string>, query });
        if (result.head) reply.header('x-block-height', result.head.height).header('x-block-timestamp', result.head.time);
        return send(reply, 200, result.body, pretty);
      } catch (err) {
        if (err instanceof ApiError) return sendError(reply, err, pretty);
        if (err instanceof StoreUnavailableError) {
          request.log.warn({ err: err.message, operation: op.name }, 'store unavailable');
          return sendError(reply, unavailable(), pretty);
        }
        request.log.error({ err, operation: op.name }, 'operation failed');
        return sendError(reply, internalError(op.errorCode, op.errorMessage), pretty);
      }
    });
  }

  app.setNotFoundHandler((request, reply) => {
    const path = (request.raw.url ?? '').split('?')[0]!;
    const known = patterns.some((p) => p.test(path));
    return sendError(reply, known && request.method !== 'GET' ? methodNotAllowed() : notFound());
  });

  app.setErrorHandler((err: { statusCode?: number; code?: string; message?: string }, request, reply) => {
    // Fastify's own client errors (a malformed URL, say) keep the contract's body shape.
    if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
      return sendError(reply, parseError(err.message ?? 'bad request'));
    }
    request.log.error({ err }, 'unhandled error');
    return sendError(reply, internalError(0, 'internal error'));
  });

  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      { method: request.method, url: request.url, route: request.routeOptions.url ?? null, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 },
      'request',
    );
  });
  return app;
}
