import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hash } from 'node:crypto';
import { type GraphQLSchema, printSchema } from 'graphql';
import type { ApiAnswers, ApiReply, RequestLogger } from '../http/api-answer.js';
import { gzipAsync } from '../http/compression.js';
import { answerReply, loggedFailure, notModifiedUnread, validated } from '../http/api-answer.js';
import { withDeadline } from '../operations/deadline.js';
import { setOperationLabel } from '../http/operation-label.js';
import type { Answer } from '../http/response-cache.js';
import { type ChainHead, textLengthOf } from '../pagination/result.js';
import { DEFAULT_DOCUMENT_LIMITS, DocumentCache, type DocumentLimits } from './documents.js';
import { apiErrorJson, errorsBody } from './errors.js';
import { ApiError, pagesTooLarge } from '../contract/errors.js';
import { type Execution, executePrepared, type GraphqlRequest, prepare, type RootContext, sourcesOf } from './execute.js';
import { OperationLabels } from './labels.js';
import { getParams } from './query-string.js';

/**
 * The GraphQL door's transport (graphql.md §4): POST with a JSON body, GET with the query string,
 * the data-node's statuses, the chain head's headers on every answer, CORS for any origin. The
 * answers of documents that read only our root fields go through the response cache, and a GET's
 * are tagged for HTTP caches as REST's are (http/http-caching.ts); every other answer is no-store.
 */

export const GRAPHQL_PATH = '/graphql';

/**
 * CORS of /graphql (the CORS plugin reads a route's `config.cors` over its own settings): any
 * origin, every header shown to the page (Apollo reads X-Block-Height), POST allowed, and OPTIONS
 * answered 200 whether or not it is a preflight (graphql.md §4).
 */
export const GRAPHQL_CORS = { methods: ['GET', 'POST', 'OPTIONS'], exposedHeaders: '*', strictPreflight: false, optionsSuccessStatus: 200 };

/** Largest POST body (the document, its variables and operation name), in bytes. */
const MAX_BODY_BYTES = 256 * 1024;

export interface GraphqlDoor {
  answers: ApiAnswers;
  /** The schema to answer with now: ours alone, or stitched with an upstream's. */
  schema: () => GraphQLSchema;
  /** Called when the schema changes (the document cache forgets its validations). */
  onSchemaChange?: (listener: () => void) => void;
  limits?: Partial<DocumentLimits>;
  /** The page a browser gets for GET /graphql (GraphiQL), if any. */
  page?: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;
}

/** A request the transport could not read: 400, with the data-node's message. */
class TransportError extends Error {}

/** Why the cache keeps no answer holding errors: compute() throws this, carrying the answer. */
class FailedAnswer extends Error {
  constructor(readonly answer: Answer) {
    super('answer with errors');
  }
}

/** A JSON value's kind as Go's encoding/json names it in its errors. */
function goKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/** The fields of gqlgen's graphql.RawParams by their JSON names folded to lower case (Go matches keys in any case): name and Go type. */
const RAW_PARAMS: Record<string, readonly [name: keyof GraphqlRequest | 'extensions', type: string]> = {
  query: ['query', 'string'],
  operationname: ['operationName', 'string'],
  variables: ['variables', 'map[string]interface {}'],
  extensions: ['extensions', 'map[string]interface {}'],
};

const undecodable = (what: string) => new TransportError(`json request body could not be decoded: json: cannot unmarshal ${what}`);

/**
 * The request from a POST's JSON body, decoded as gqlgen decodes it into its RawParams with Go's
 * encoding/json: a value of another JSON type is the first such field's error (after the whole
 * body is read, as Go reports it), null leaves a string as it was and a map empty, other keys are
 * ignored.
 */
function fromBody(text: string): GraphqlRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new TransportError(`json request body could not be decoded: ${(err as Error).message}`);
  }
  const request: GraphqlRequest = { query: '' };
  if (parsed === null) return request;
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw undecodable(`${goKind(parsed)} into Go value of type graphql.RawParams`);
  let error: TransportError | undefined;
  for (const [key, value] of Object.entries(parsed)) {
    const field = RAW_PARAMS[key.toLowerCase()];
    if (field === undefined) continue;
    const [name, type] = field;
    if (value === null) {
      if (name === 'variables') request.variables = undefined;
      continue;
    }
    if (type === 'string' ? typeof value !== 'string' : typeof value !== 'object' || Array.isArray(value)) {
      error ??= undecodable(`${goKind(value)} into Go struct field RawParams.${name} of type ${type}`);
    } else if (name === 'query') request.query = value as string;
    else if (name === 'operationName') request.operationName = (value as string) || undefined;
    else if (name === 'variables') request.variables = value as GraphqlRequest['variables'];
  }
  if (error) throw error;
  return request;
}

/** The request from a GET's query string. */
function fromQuery(url: string): GraphqlRequest {
  const params = getParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  const variables = jsonObject(params.get('variables'), 'variables');
  // Nothing reads extensions: decoded so that those that do not decode are refused, as gqlgen refuses them.
  jsonObject(params.get('extensions'), 'extensions');
  return { query: params.get('query') ?? '', operationName: params.get('operationName') || undefined, variables };
}

/** A GET's JSON object parameter as gqlgen decodes it into a map: absent, empty or null is none; else an object or a 400. */
function jsonObject(text: string | null, name: string): Record<string, unknown> | undefined {
  if (!text) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TransportError(`${name} could not be decoded`);
  }
  if (value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new TransportError(`${name} could not be decoded`);
  return value as Record<string, unknown>;
}

/**
 * The cache key of a request: its document, operation and variables as coerced (those the
 * operation declares, of our bounded input types: a client's other variables, nested however
 * deep, neither matter nor get written), and the schema's hash: introspection reads no read
 * model, so only the key tells an answer of an upstream's earlier schema from the current one's.
 */
function cacheKey(req: GraphqlRequest, variables: Record<string, unknown>, schema: GraphQLSchema): string {
  return `${GRAPHQL_PATH} ${JSON.stringify([req.operationName ?? '', variables, req.query, schemaHashOf(schema)])}`;
}

/** A hash of each schema answered with, once: a GET's tag covers it (an upstream's schema may change, and introspection with it). */
const schemaHashes = new WeakMap<GraphQLSchema, string>();

function schemaHashOf(schema: GraphQLSchema): string {
  let h = schemaHashes.get(schema);
  if (h === undefined) {
    h = hash('sha256', printSchema(schema), 'base64url');
    schemaHashes.set(schema, h);
  }
  return h;
}

/**
 * What the root fields of one request run with: each operation under what is left of the request
 * timeout, its failure as the contract's error, and the bound of the pages the request reads
 * (DocumentLimits.maxPagesBytes), counted as they arrive. Once past it, the fields still to come
 * fail without reading, the executor's pass too (it asks every field again when one failed the
 * compiled pass).
 */
function rootContext(a: ApiAnswers, limits: DocumentLimits, log: RequestLogger, started: number): RootContext {
  const timeout = a.limits.requestTimeoutMs;
  let pagesLength = 0;
  // Which pass reads: a read of the compiled pass ending after the executor's began is not counted.
  let pass = 0;
  const checkPages = () => {
    if (pagesLength > limits.maxPagesBytes) throw pagesTooLarge(limits.maxPagesBytes);
  };
  return {
    waitingFor: a.waitingFor,
    head: null,
    // Unless that pass failed over the bound: then its fields fail without reading again.
    newPass: () => {
      if (pagesLength > limits.maxPagesBytes) return;
      pagesLength = 0;
      pass++;
    },
    run: async (root, work) => {
      const left = timeout > 0 ? Math.max(1, timeout - (performance.now() - started)) : Infinity;
      const reading = pass;
      try {
        checkPages();
        const result = await withDeadline(
          (until) => work({ store: a.store, rows: a.rows, until, maxListValues: a.limits.maxFilterValues }),
          left,
          timeout,
        );
        if (reading === pass) pagesLength += textLengthOf(result);
        checkPages();
        return result;
      } catch (err) {
        throw loggedFailure(err, root.operation, a.limits, log);
      }
    },
  };
}

/** A GET /graphql the fast path answers (src/http/fast-path.ts): its answer, and the operation it names for the log and metrics. */
export type GraphqlGet = (url: string, headers: IncomingHttpHeaders, log: RequestLogger) => Promise<{ reply: ApiReply; operation: string }>;

/** Registers /graphql with Fastify; returns how a GET is answered without it, alike (see the fast path). */
export async function registerGraphql(app: FastifyInstance, door: GraphqlDoor): Promise<GraphqlGet> {
  const a = door.answers;
  const limits: DocumentLimits = { ...DEFAULT_DOCUMENT_LIMITS, ...door.limits };
  const documents = new DocumentCache(limits);
  door.onSchemaChange?.(() => documents.clear());
  const execution: Execution = { schema: door.schema, documents, limits };
  const labels = new OperationLabels();

  /**
   * An answer's reply: the chain head's headers (the current head's when it read none), gzipped
   * as REST's are when the client takes it, with the tag of a GET's answer (api-answer.ts).
   */
  const replyOf = (status: number, body: Buffer, head: ChainHead | null, headers: IncomingHttpHeaders, tag?: string): Promise<ApiReply> =>
    answerReply(status, { body, head: head ?? a.cache.currentHead }, tag, headers, (answer) => gzipAsync(answer.body));
  const send = (reply: FastifyReply, status: number, body: Buffer, head: ChainHead | null) =>
    replyOf(status, body, head, reply.request.headers).then((r) => reply.code(r.status).headers(r.headers).send(r.body));

  /** The answer to a request read from either method (a GET's URL: its answer is tagged), and its operation's label. */
  async function answer(req: GraphqlRequest, get: { url: string } | undefined, headers: IncomingHttpHeaders, log: RequestLogger) {
    const prepared = prepare(execution, req, get ? 'GET' : 'POST');
    if ('status' in prepared) return { reply: await replyOf(prepared.status, prepared.body, null, headers), operation: undefined };
    const operation = labels.of(prepared.operation.name?.value);
    const sources = sourcesOf(prepared.asked);
    // A GET of our fields only is tagged (an upstream's fields are not ours to validate), its
    // scope the schema's hash.
    const tagged = get && sources ? { url: get.url, sources, scope: schemaHashOf(prepared.schema) } : undefined;
    if (tagged) {
      // Before executing.
      const unread = notModifiedUnread(a, tagged.sources, tagged.scope, tagged.url, headers);
      if (unread) return { reply: unread, operation };
    }
    const started = performance.now();
    const compute = async (): Promise<Answer> => {
      const executed = await executePrepared(prepared, rootContext(a, limits, log, started));
      const done: Answer = { body: executed.body, head: executed.head ?? a.cache.currentHead };
      if (executed.readAt !== undefined) done.readAt = executed.readAt;
      if (executed.failed) throw new FailedAnswer(done);
      if (get) a.answered.note(get.url);
      return done;
    };
    let done: Answer;
    let failed = false;
    try {
      done = sources ? await a.cache.answer(() => cacheKey(req, prepared.variables, prepared.schema), sources, compute) : await compute();
    } catch (err) {
      if (!(err instanceof FailedAnswer)) throw err;
      done = err.answer;
      failed = true;
    }
    let tag: string | undefined;
    if (tagged && !failed) {
      const v = validated(a, tagged.sources, tagged.scope, tagged.url, headers, done);
      if (v.notModified) return { reply: v.notModified, operation };
      tag = v.tag;
    }
    return { reply: await replyOf(200, done.body, done.head, headers, tag), operation };
  }

  /** Fastify's reply of an answer, its operation named for the log line and metrics. */
  async function answered(request: FastifyRequest, reply: FastifyReply, req: GraphqlRequest, method: 'GET' | 'POST') {
    const get = method === 'GET' ? { url: request.raw.url ?? '' } : undefined;
    const { reply: r, operation } = await answer(req, get, request.headers, () => request.log);
    if (operation !== undefined) setOperationLabel(request, operation);
    // A 304 without a body, so that Fastify sends no length (as the fast path).
    return reply
      .code(r.status)
      .headers(r.headers)
      .send(r.status === 304 ? undefined : r.body);
  }

  /** What Fastify's error handler answers, for the fast path: a transport error's 400, else a 500. */
  const failed = (err: unknown, headers: IncomingHttpHeaders, log: RequestLogger) => {
    if (err instanceof TransportError) return replyOf(400, errorsBody({ message: err.message }), null, headers);
    log().error({ err }, 'unhandled error');
    return replyOf(500, errorsBody({ message: 'internal error' }), null, headers);
  };

  await app.register(async (scope) => {
    // Bodies are read here only: JSON as text (parsed by fromBody), any other type refused.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, (_req, body, done) =>
      done(null, body),
    );
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
    scope.setErrorHandler((err: { statusCode?: number; message?: string }, request, reply) => {
      if (err instanceof TransportError) return send(reply, 400, errorsBody({ message: err.message }), null);
      // The rate limit's 429 (its error is the contract's).
      if (err instanceof ApiError) return send(reply, err.status, errorsBody(apiErrorJson(err, undefined)), null);
      const status = err.statusCode ?? 500;
      if (status >= 400 && status < 500) return send(reply, status, errorsBody({ message: err.message ?? 'bad request' }), null);
      request.log.error({ err }, 'unhandled error');
      return send(reply, 500, errorsBody({ message: 'internal error' }), null);
    });
    const config = { operation: 'graphql', rateLimited: true, cors: GRAPHQL_CORS };
    scope.post(GRAPHQL_PATH, { config }, async (request, reply) => {
      const type = request.headers['content-type'] ?? '';
      if (!/^application\/json\s*(;|$)/i.test(type)) return send(reply, 400, errorsBody({ message: 'transport not supported' }), null);
      return answered(request, reply, fromBody(typeof request.body === 'string' ? request.body : ''), 'POST');
    });
    scope.get(GRAPHQL_PATH, { config, exposeHeadRoute: false }, async (request, reply) => {
      const page = door.page?.(request, reply);
      if (page) return page;
      return answered(request, reply, fromQuery(request.raw.url ?? ''), 'GET');
    });
    // A preflight or any OPTIONS: answered 200 by the CORS plugin's hook with GRAPHQL_CORS.
    scope.options(GRAPHQL_PATH, { config: { operation: 'graphql', cors: GRAPHQL_CORS } }, (_request, reply) => reply.send());
    scope.route({
      method: ['HEAD', 'PUT', 'DELETE', 'PATCH'],
      url: GRAPHQL_PATH,
      config: { operation: 'graphql', cors: GRAPHQL_CORS },
      handler: (_request, reply) =>
        send(reply.header('allow', 'GET, POST, OPTIONS'), 405, errorsBody({ message: 'method not allowed' }), null),
    });
  });
  return async (url, headers, log) => {
    try {
      const r = await answer(fromQuery(url), { url }, headers, log);
      return { reply: r.reply, operation: r.operation ?? 'graphql' };
    } catch (err) {
      return { reply: await failed(err, headers, log), operation: 'graphql' };
    }
  };
}
