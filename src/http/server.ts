import compress from '@fastify/compress';
import cors from '@fastify/cors';
import { createServer, type IncomingMessage, type ServerOptions as HttpServerOptions, type ServerResponse, STATUS_CODES } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { watchChainHead } from '../db/chain-head-watch.js';
import type { HeadState } from '../db/read-models.js';
import type { Store } from '../db/store.js';
import {
  ApiError,
  headTooLarge,
  internalError,
  malformedRequest,
  methodNotAllowed,
  notFound,
  parseError,
  requestNotArrived,
  urlTooLong,
} from '../contract/errors.js';
import { goJson } from '../contract/json.js';
import { COMPRESS_MIN_BYTES, ENCODINGS, spelledOut } from './compression.js';
import { registerHealth } from './health.js';
import { checkUrlLength, DEFAULT_LIMITS, maxHeaderSize, registerRateLimit, type Limits, type TrustProxy } from './limits.js';
import { Metrics, registerMetrics } from './metrics.js';
import { registerDocs } from './docs.js';
import { registerExplorerPages } from './explorer-pages.js';
import { operationLabel } from './operation-label.js';
import { answerApi, errorReply, type ApiAnswers, type ApiReply } from './api-answer.js';
import { releaseWhenSent } from '../lib/body-pool.js';
import { apiFastPath, type FastPathOptions, routePattern } from './fast-path.js';
import { DEFAULT_RESPONSE_CACHE_BYTES, ResponseCache } from './response-cache.js';
import type { Route } from './routes.js';
import { AnsweredUrls, NO_STORE } from './http-caching.js';
import { DEFAULT_ROW_CACHE_BYTES, RowCache } from '../pagination/row-cache.js';
import { GRAPHQL_CORS, GRAPHQL_PATH, registerGraphql } from '../graphql/http.js';
import { graphqlSchema } from '../graphql/index.js';
import { registerGraphiql } from '../graphql/graphiql.js';
import type { DocumentLimits } from '../graphql/documents.js';
import type { ChainHead } from '../pagination/result.js';

export interface ServerOptions {
  store: Store;
  /** The API's routes (ROUTES; a bench serves others). */
  routes: readonly Route[];
  logger: Logger;
  /** Request limits; the settings' defaults when absent. */
  limits?: Partial<Limits>;
  /** Where requests, store calls (and, from the caller, ingestion) are counted; a new registry when absent. */
  metrics?: Metrics;
  /** Bound of the response cache (see ResponseCache); 0 turns it off. DEFAULT_RESPONSE_CACHE_BYTES when absent. */
  responseCacheBytes?: number;
  /** Bound of the rendered rows kept by version (see RowCache); 0 turns it off. DEFAULT_ROW_CACHE_BYTES when absent. */
  rowCacheBytes?: number;
  /** The rendered rows kept by version when the caller shares them with another door (serve's gRPC), in place of rowCacheBytes'. */
  rowCache?: RowCache | undefined;
  /** Told how to read the head the doors know (the last block applied), for another door's errors (serve's gRPC). */
  onCurrentHead?: (current: () => ChainHead | null) => void;
  /** Proxies whose X-Forwarded-For names the client (request.ip, which the rate limit counts by); none when absent. */
  trustProxy?: TrustProxy;
  /** The store is not ready yet (serve listens before it is: see Startup); ready at once when absent. */
  startup?: Startup;
  /** Where the events come from and how it goes (the broker socket), for /readyz; none when absent. */
  source?: () => object;
  /** One of several processes answering on one port (serve --workers); alone when absent. */
  member?: ClusterMember | undefined;
  /** GraphQL's document limits; the defaults (graphql/documents.ts) when absent. */
  graphqlLimits?: Partial<DocumentLimits>;
  /** A data-node's /graphql that answers the GraphQL fields we do not own (see graphql/upstream.ts); none when absent. */
  graphqlUpstream?: string | undefined;
  /** Writes a request's line at info; `logger.child({ reqId }).info(line, 'request')` when absent. */
  requestLog?: (reqId: string, line: RequestLine) => void;
}

/** The fields of a request's log line, in the order they are written. */
export interface RequestLine {
  operation: string;
  method: string;
  url: string;
  route: string | null;
  status: number;
  ms: number;
}

/**
 * A process of several sharing one port: every answer names it in `X-Epochview-Worker`, and
 * /metrics answers with the metrics of all of them, aggregated.
 */
export interface ClusterMember {
  /** 1 to N. */
  worker: number;
  clusterMetrics(): Promise<string>;
}

/**
 * The store becoming ready after the server listens: until `ready` resolves, the API and
 * /readyz answer 503 (code 14) and `waitingFor()` says why, for the readiness log.
 */
export interface Startup {
  ready: Promise<void>;
  /** Why the service is not ready; undefined once it is. */
  waitingFor(): string | undefined;
  /**
   * Told once the server, after `ready`, has read the chain head it follows: from then on its
   * answers carry ETags and Cache-Control for HTTP caches (before, no-store).
   */
  following(): void;
}

/** URLs are logged up to this many characters (a rejected long URL stays one readable line). */
const LOGGED_URL_LENGTH = 2048;

/** Routes whose requests are logged at debug level: probes and scrapes come every few seconds. */
const QUIET_OPERATIONS = new Set(['healthz', 'readyz', 'metrics']);

/** The operation label of a request for logs and metrics: the API operation or probe, else the route. */
function operationOf(request: FastifyRequest): string {
  const label = operationLabel(request);
  if (label !== undefined) return label;
  const options = request.routeOptions as FastifyRequest['routeOptions'] | undefined;
  const config = options?.config as { operation?: string } | undefined;
  return config?.operation ?? options?.url ?? 'unmatched';
}

/** Fastify's trustProxy (its types leave out the number of hops, which it takes as this function). */
function trustedHops(trust: TrustProxy | undefined): string[] | ((address: string, hop: number) => boolean) | false {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : (trust ?? false);
}

/** CORS: any origin may read the API (contract §1), for GET and HEAD (preflights answered by @fastify/cors). */
const CORS_ORIGIN = '*';

/** Sends a reply made for either path (see answerApi); a 304 without a body, so that Fastify sends no length. */
function sendReply(reply: FastifyReply, r: ApiReply): FastifyReply {
  releaseWhenSent(reply.raw, r.body);
  return reply
    .code(r.status)
    .headers(r.headers)
    .send(r.status === 304 ? undefined : r.body);
}

function sendError(reply: FastifyReply, err: ApiError, pretty = false): FastifyReply {
  return sendReply(reply, errorReply(err, pretty));
}

/** The HTTP face of the service: the operations' routes and the contract's error bodies. */
export async function buildServer(opts: ServerOptions): Promise<FastifyInstance> {
  const limits: Limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const metrics = opts.metrics ?? new Metrics();
  const store = metrics.instrumentStore(opts.store);
  const cache = new ResponseCache(opts.responseCacheBytes ?? DEFAULT_RESPONSE_CACHE_BYTES, metrics.onCacheOutcome);
  opts.onCurrentHead?.(() => cache.currentHead);
  metrics.watchResponseCache(cache);
  const rowCacheBytes = opts.rowCacheBytes ?? DEFAULT_ROW_CACHE_BYTES;
  const rows = opts.rowCache ?? (rowCacheBytes > 0 ? new RowCache(rowCacheBytes) : undefined);
  if (rows) metrics.watchRowCache(rows);
  const answers: ApiAnswers = { store, cache, rows, limits, answered: new AnsweredUrls(), waitingFor: () => opts.startup?.waitingFor() };
  // Once closing (SIGTERM), answers close their connection (see the preClose hook).
  let closing = false;
  // Fastify's request ids (its default form), one sequence for it and the fast path.
  let lastRequestId = 0;
  const nextRequestId = () => {
    lastRequestId = (lastRequestId + 1) & 0x7fffffff;
    return `req-${lastRequestId.toString(36)}`;
  };
  let fastPath: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    genReqId: nextRequestId,
    // Fastify's own server, with the API's fast path in front of it (see apiFastPath).
    serverFactory: (handler, options) => {
      // Fastify's options, its defaults filled in: set on the server as Fastify sets them on its own.
      const o = options as { http?: HttpServerOptions; keepAliveTimeout: number; requestTimeout: number; connectionTimeout: number };
      const server = createServer(o.http ?? {}, (req, res) => {
        if (!fastPath?.(req, res)) handler(req, res);
      });
      server.keepAliveTimeout = o.keepAliveTimeout;
      server.requestTimeout = o.requestTimeout;
      server.setTimeout(o.connectionTimeout);
      return server;
    },
    trustProxy: trustedHops(opts.trustProxy),
    http: { maxHeaderSize: maxHeaderSize(limits) },
    // What Node's parser refuses before any request exists (a head over maxHeaderSize, bytes that
    // are no HTTP) keeps the contract's body too; Fastify's default wrote a body of its own.
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
      if (err.code === 'ECONNRESET' || socket.destroyed) return;
      if (socket.writable) {
        const error =
          err.code === 'HPE_HEADER_OVERFLOW'
            ? headTooLarge(maxHeaderSize(limits))
            : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
              ? requestNotArrived()
              : malformedRequest();
        const body = goJson(error.toBody());
        socket.write(
          `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\naccess-control-allow-origin: ${CORS_ORIGIN}\r\n` +
            `content-type: application/json\r\ncache-control: ${NO_STORE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy(err);
    },
    // While closing (SIGTERM), requests still arriving on open connections are answered as usual
    // (with Connection: close) rather than with Fastify's own 503 body.
    return503OnClosing: false,
    // One log line per request, written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    // Errors the router raises before any route runs keep the contract's body shape too.
    frameworkErrors: (err, request, reply) => {
      const url = request.raw.url ?? '';
      const answer =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? urlTooLong(Buffer.byteLength(url), limits.maxUrlLength)
          : parseError('invalid URL escape in the path');
      // No route, so no onResponse hook: log and count here. Nor CORS's hook: its header here.
      reply.raw.once('finish', () => record(request, reply));
      reply.header('access-control-allow-origin', CORS_ORIGIN);
      return sendError(reply, answer);
    },
    routerOptions: {
      // A path parameter (a team id) may be as long as the URL may be; the operation judges it.
      maxParamLength: limits.maxUrlLength,
      // We parse query strings ourselves, with the gateway's rules.
      querystringParser: () => ({}),
      // Paths are matched exactly: no trailing-slash or case folding (contract §1).
      ignoreTrailingSlash: false,
      caseSensitive: true,
    },
  });
  // Set before any plugin or route: a route takes the error handler in place when it is added.
  app.setErrorHandler((err: { statusCode?: number; code?: string; message?: string }, request, reply) => {
    if (err instanceof ApiError) return sendError(reply, err);
    // Fastify's own client errors (a malformed URL, say) keep the contract's body shape.
    if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
      return sendError(reply, parseError(err.message ?? 'bad request'));
    }
    request.log.error({ err }, 'unhandled error');
    return sendError(reply, internalError(0, 'internal error'));
  });
  const patterns = opts.routes.map((route) => routePattern(route.path));
  /** A path of a route: its other methods are a 501, other paths a 404 (contract §1). */
  const wrongRoute = (request: FastifyRequest) => {
    const known = patterns.some((p) => p.test((request.raw.url ?? '').split('?')[0]!));
    return known && request.method !== 'GET' ? methodNotAllowed() : notFound();
  };
  // An OPTIONS that is no CORS preflight (no Origin or no Access-Control-Request-Method) is a
  // request of another method, as the data-node's CORS handler passes it on; @fastify/cors
  // answered it a plain-text 400. /graphql answers OPTIONS itself (graphql/http.ts).
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'OPTIONS' || request.url.split('?')[0] === GRAPHQL_PATH) return;
    if (request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined) return;
    // Before the CORS plugin's hook, which answers every OPTIONS: its header here.
    reply.header('access-control-allow-origin', CORS_ORIGIN);
    return sendError(reply, wrongRoute(request));
  });
  await app.register(cors, { origin: CORS_ORIGIN, methods: ['GET', 'HEAD'] });
  await app.register(compress, { global: true, encodings: ENCODINGS, threshold: COMPRESS_MIN_BYTES });
  await registerRateLimit(app, limits);

  // Before routing work: a URL over the limit is a 400 whatever its route.
  // Thrown, so that the route's error handler answers it in its door's body (/graphql's is GraphQL's).
  app.addHook('onRequest', async (request) => {
    request.log.debug({ method: request.method, url: request.url.slice(0, LOGGED_URL_LENGTH) }, 'request received');
    // The compression plugin's negotiation, and ours, read `*` as the RFC does once it is spelt out.
    const accept = request.headers['accept-encoding'];
    if (accept?.includes('*')) request.headers['accept-encoding'] = spelledOut(accept);
    checkUrlLength(request.raw.url ?? '', limits);
  });

  // Bodies are never read; accept any so that a POST reaches the 501 answer.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));

  const childLog = (reqId: string) => opts.logger.child({ reqId });
  const fastPathOptions: FastPathOptions = {
    routes: opts.routes,
    answers,
    bypass: () => closing || limits.rateLimitMax > 0,
    maxUrlLength: limits.maxUrlLength,
    headers: { leading: { 'access-control-allow-origin': CORS_ORIGIN }, trailing: trailingHeaders },
    nextRequestId,
    requestLogger: childLog,
    record: (reqId, operation, path, url, status, ms) => {
      if (opts.logger.isLevelEnabled('debug'))
        childLog(reqId).debug({ method: 'GET', url: url.slice(0, LOGGED_URL_LENGTH) }, 'request received');
      recordLine(reqId, () => childLog(reqId), operation, 'GET', url, path, status, ms);
    },
  };
  for (const route of opts.routes) {
    // HEAD by the same handler, not Fastify's exposed HEAD route, which gives a 304 (no body) `content-length: 0`.
    app.route({
      method: ['GET', 'HEAD'],
      url: route.path,
      config: { operation: route.operation.name, rateLimited: true },
      handler: async (request, reply) => {
        const params = request.params as Record<string, string>;
        return sendReply(reply, await answerApi(answers, route, request.raw.url ?? '', params, request.headers, () => request.log));
      },
    });
  }

  const graphql = await graphqlSchema(opts.graphqlUpstream, { timeoutMs: limits.requestTimeoutMs, log: opts.logger });
  app.addHook('onClose', async () => graphql.close());
  if (graphql.upstream) metrics.watchGraphqlUpstream(graphql.upstream);
  const graphqlGet = await registerGraphql(app, {
    answers,
    schema: graphql.schema,
    onSchemaChange: graphql.onSchemaChange,
    page: registerGraphiql(app),
    ...(opts.graphqlLimits ? { limits: opts.graphqlLimits } : {}),
  });
  // The CORS plugin's headers of a /graphql GET (its route's settings: graphql/http.ts).
  const graphqlCors = { 'access-control-allow-origin': CORS_ORIGIN, 'access-control-expose-headers': GRAPHQL_CORS.exposedHeaders };
  fastPath = apiFastPath({ ...fastPathOptions, graphql: { path: GRAPHQL_PATH, leading: graphqlCors, answer: graphqlGet } });
  await registerDocs(app, opts.routes);
  registerExplorerPages(app);
  registerHealth(app, store, limits.requestTimeoutMs, () => opts.startup?.waitingFor(), opts.source, graphql.upstream);
  registerMetrics(app, metrics, opts.member?.clusterMetrics);
  const workerHeader: Record<string, string> = opts.member ? { 'x-epochview-worker': String(opts.member.worker) } : {};
  /** The headers every answer ends with: the worker's name, and once closing, Connection: close. */
  function trailingHeaders(): Record<string, string> {
    return closing ? { ...workerHeader, connection: 'close' } : workerHeader;
  }
  app.addHook('onSend', async (_request, reply) => void reply.headers(trailingHeaders()));

  app.setNotFoundHandler((request, reply) => sendError(reply, wrongRoute(request)));

  // Once closing (SIGTERM), no keep-alive connection may hold the shutdown until its keep-alive
  // timeout: answers from then on close their connection, and connections that go idle later
  // (an answer already on its way when closing began) are closed as they do.
  let reaper: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    closing = true;
    reaper = setInterval(() => app.server.closeIdleConnections(), 50).unref();
  });
  app.addHook('onClose', async () => clearInterval(reaper));

  // The cache follows the store's chain head while the server runs (and the role metrics the
  // server's role). Its head reads go to the store as given: when the caller timed it already
  // (serve does), they are counted too.
  // The row cache forgets its texts when the response cache forgets all its answers: the chain
  // is unknown, or went back (another database, whose versions name other rows).
  const onHead = (state: HeadState | null) => {
    if (cache.setHead(state)) rows?.clear();
  };
  const watch = () => watchChainHead(opts.store, onHead, { onRole: metrics.onRole });
  if (opts.startup) {
    // Not awaited: the server listens while the store is still coming up (and may close first).
    let closed = false;
    let stop: (() => Promise<void>) | undefined;
    const startup = opts.startup;
    startup.ready.then(
      async () => {
        try {
          if (closed) return;
          const stopWatching = await watch();
          if (closed) await stopWatching();
          else stop = stopWatching;
        } finally {
          startup.following();
        }
      },
      () => {},
    );
    app.addHook('onClose', async () => {
      closed = true;
      await stop?.();
    });
  } else {
    app.addHook('onClose', await watch());
  }

  // One log line and one metrics observation per request.
  app.addHook('onResponse', async (request, reply) => record(request, reply));
  return app;

  function record(request: FastifyRequest, reply: FastifyReply): void {
    const route = (request.routeOptions as FastifyRequest['routeOptions'] | undefined)?.url ?? null;
    recordLine(
      request.id,
      () => request.log,
      operationOf(request),
      request.method,
      request.url,
      route,
      reply.statusCode,
      reply.elapsedTime,
    );
  }

  /** One log line and one metrics observation per request, whichever path answered it. */
  function recordLine(
    reqId: string,
    log: () => FastifyBaseLogger,
    operation: string,
    method: string,
    requestUrl: string,
    route: string | null,
    status: number,
    elapsedMs: number,
  ): void {
    const ms = Number.isFinite(elapsedMs) ? elapsedMs : 0;
    metrics.observeRequest(operation, status, ms / 1000);
    const url = requestUrl.length > LOGGED_URL_LENGTH ? `${requestUrl.slice(0, LOGGED_URL_LENGTH)}…` : requestUrl;
    const line = { operation, method, url, route, status, ms: Math.round(ms * 100) / 100 };
    if (QUIET_OPERATIONS.has(operation)) log().debug(line, 'request');
    else if (opts.requestLog) opts.requestLog(reqId, line);
    else log().info(line, 'request');
  }
}
