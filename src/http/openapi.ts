import { createRequire } from 'node:module';
import { deadlineExceeded, internalError as internalErrorBody, rateLimited, unavailable } from '../contract/errors.js';
import { messageSchemas, schemaName } from '../contract/message.js';
import {
  ALIAS_LIST,
  type FixtureExample,
  pageSchemas,
  sharedSchemas,
  status,
  ref,
  type ExampleObject,
  type OpenApiDocument,
  type OperationObject,
  type ParameterObject,
  type ResponseObject,
  type SchemaObject,
} from '../contract/openapi.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../contract/pagination.js';
import { CACHE_CONTROL, NO_STORE } from './http-caching.js';
import type { FieldSpec } from '../contract/query.js';
import type { AnyOperation } from '../operations/operation.js';
import type { Route } from './routes.js';

/**
 * The OpenAPI 3.1 document of the service (served at /api/v2/openapi.json, rendered at /docs),
 * assembled from the routes and their operations: each brings its request fields (with their docs),
 * its messages' schemas (from their definitions) and examples. Query parameters come from the same field tables the query parser reads,
 * so the document lists exactly the keys the service accepts: every field under its JSON name
 * and its proto-name alias.
 */

const JSON_TYPE = 'application/json';

function examplesOf(list: readonly FixtureExample[]): Record<string, ExampleObject> | undefined {
  if (list.length === 0) return undefined;
  return Object.fromEntries(
    list.map((e) => [
      e.name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, ''),
      { summary: e.name, description: `\`${e.method} ${e.request}\` (fixture \`${e.fixture}\`)`, value: e.body },
    ]),
  );
}

function response(
  description: string,
  schema: SchemaObject,
  examples: readonly FixtureExample[],
  headers?: ResponseObject['headers'],
): ResponseObject {
  const ex = examplesOf(examples);
  return { description, ...(headers ? { headers } : {}), content: { [JSON_TYPE]: { schema, ...(ex ? { examples: ex } : {}) } } };
}

/** A response with one example of what the service sends (built by the same functions). */
function withExample(r: ResponseObject, summary: string, value: unknown): ResponseObject {
  const media = r.content[JSON_TYPE];
  return {
    ...r,
    content: {
      [JSON_TYPE]: {
        ...media,
        examples: {
          [summary.replace(/ /g, '-')]: { summary, description: 'The body the service sends (texts vary with the case).', value },
        },
      },
    },
  };
}

const componentRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** Answers of the router itself, whatever the operation (from test/fixtures/errors.expected.json). */
const ROUTER_EXAMPLES: readonly FixtureExample[] = [
  {
    fixture: 'errors.expected.json',
    name: 'route: trailing slash',
    method: 'GET',
    request: '/api/v2/referral-sets/',
    status: 404,
    body: { code: 5, message: 'Not Found', details: [] },
  },
  {
    fixture: 'errors.expected.json',
    name: 'method: POST',
    method: 'POST',
    request: '/api/v2/referral-sets',
    status: 501,
    body: { code: 12, message: 'Method Not Allowed', details: [] },
  },
];

function componentResponses(): Record<string, ResponseObject> {
  return {
    NotFound: response(
      'No route matches the path (paths are exact: no trailing slash, case-sensitive).',
      status(5, { min: 0, max: 0 }),
      ROUTER_EXAMPLES.filter((e) => e.status === 404),
    ),
    MethodNotAllowed: response(
      'The path is known but the method is not GET (or HEAD, or a CORS preflight OPTIONS). Every other method on this path gets this answer.',
      status(12, { min: 0, max: 0 }),
      ROUTER_EXAMPLES.filter((e) => e.status === 501),
    ),
    RateLimited: withExample(
      response(
        'Too many requests from this client in the rate-limit window (only when the server runs with a rate limit). Retry after `Retry-After` seconds.',
        status(8, { min: 0, max: 0 }),
        [],
        { 'Retry-After': { description: 'Seconds until the client may send again.', schema: { type: 'string', pattern: '^[0-9]+$' } } },
      ),
      'rate limited',
      rateLimited(100, 60_000, 12).toBody(),
    ),
    DeadlineExceeded: withExample(
      response("No answer within the server's request timeout.", status(4, { min: 0, max: 0 }), []),
      'deadline exceeded',
      deadlineExceeded(10_000).toBody(),
    ),
    Unavailable: withExample(
      response('The store is unavailable (e.g. the database cannot be reached). Retry later.', status(14, { min: 0, max: 0 }), []),
      'store unavailable',
      unavailable().toBody(),
    ),
  };
}

function badRequest(examples: readonly FixtureExample[]): ResponseObject {
  return response(
    'Invalid request, `code` 3 (InvalidArgument). A query string that cannot be parsed (a bad number or bool, a singular field given twice or under both spellings) ' +
      "has a message in the gateway's words and no details, as has a request over the server's limits (URL length, values of a repeated parameter). Invalid pagination (limits outside 1..5000, both cursors, a bad cursor) and invalid ids have " +
      "the message `InvalidArgument error` and one detail: 10028 `invalid pagination`, or the operation's code and message with the reason in `inner`.",
    status(3, { min: 0, max: 1 }),
    examples,
  );
}

function internalError(op: AnyOperation): ResponseObject {
  return withExample(
    response(
      "An unexpected failure, `code` 13; the detail carries the operation's code and message and no internals.",
      status(13, { min: 1, max: 1 }),
      [],
    ),
    'unexpected failure',
    internalErrorBody(op.errorCode, op.errorMessage).toBody(),
  );
}

/** The headers of a successful answer: the block it was read at, and what HTTP caches keep it by (http-caching.ts). */
const ANSWER_HEADERS = {
  'X-Block-Height': { $ref: '#/components/headers/XBlockHeight' },
  'X-Block-Timestamp': { $ref: '#/components/headers/XBlockTimestamp' },
  ETag: { $ref: '#/components/headers/ETag' },
  'Cache-Control': { $ref: '#/components/headers/CacheControl' },
};

const PRETTY: ParameterObject = {
  name: 'pretty',
  in: 'query',
  description: 'Present (with any value, or none): the JSON answer is indented.',
  required: false,
  allowEmptyValue: true,
  schema: { type: 'string' },
};

function kindSchema(spec: FieldSpec): SchemaObject {
  switch (spec.kind) {
    case 'int32':
      return { type: 'integer', format: 'int32' };
    case 'uint32':
      return { type: 'integer', format: 'int64' };
    case 'uint64':
      // The gateway types 64-bit integers as strings of decimal digits in its OpenAPI documents.
      return { type: 'string', format: 'uint64', pattern: '^[0-9]+$' };
    case 'bool':
      return { type: 'boolean' };
    case 'string':
      return { type: 'string' };
  }
}

/** What the schema column does not say about a field's type. */
const KIND_TEXT: Record<FieldSpec['kind'], string> = {
  int32: '',
  uint32: 'A uint32: 0 to 4294967295.',
  uint64:
    'A uint64, written as a string of decimal digits (as the gateway documents 64-bit integers); values above 9223372036854775807 are a 400 parse error.',
  bool: '',
  string: '',
};

/** Every query key of every field, in the table's order: the JSON name, then the proto name. */
function queryParameters(op: AnyOperation): ParameterObject[] {
  const params: ParameterObject[] = [];
  for (const spec of Object.values(op.fields) as FieldSpec[]) {
    const { description: _, ...extra } = spec.schema ?? {};
    const scalar: SchemaObject = { ...kindSchema(spec), ...extra };
    const [jsonKey] = spec.keys;
    for (const key of spec.keys) {
      const alias = key !== jsonKey;
      const what = alias
        ? `Alias of \`${jsonKey}\` (proto name \`${spec.protoName}\`). ${spec.repeated ? 'Values under both spellings add to one list.' : 'Giving both spellings is a 400.'}`
        : spec.description;
      const type = [spec.repeated ? 'Repeated: give the key once per value.' : '', KIND_TEXT[spec.kind]].filter(Boolean).join(' ');
      params.push({
        name: key,
        in: 'query',
        description: type ? `${what} ${type}` : what,
        required: false,
        ...(spec.repeated
          ? { style: 'form' as const, explode: true, schema: { type: 'array' as const, items: scalar } }
          : { schema: scalar }),
      });
    }
  }
  return params;
}

/** The route's path parameters: each sets the request field of its name. */
function pathParameters(route: Route): ParameterObject[] {
  return [...route.path.matchAll(/:([A-Za-z]+)/g)].map(([, name]) => {
    const spec = (route.operation.fields as Record<string, FieldSpec>)[name!];
    if (!spec) throw new Error(`path parameter ${name} of ${route.operation.name} is not a field of its request`);
    return {
      name: name!,
      in: 'path',
      description: spec.description,
      required: true,
      style: 'simple',
      schema: { type: 'string', ...spec.schema },
    };
  });
}

/** The router's `/a/:b/c` as OpenAPI's `/a/{b}/c`. */
export const openApiPath = (routePath: string): string => routePath.replace(/:([A-Za-z]+)/g, '{$1}');

/** The schemas an operation's answer adds, and the name of its response's. */
function responseSchemas(op: AnyOperation): { schemas: Record<string, SchemaObject>; response: string; description: string } {
  const r = op.response;
  if (r.kind === 'item') return { schemas: messageSchemas(r.message), response: schemaName(r.message.name), description: r.message.doc };
  const names = {
    response: schemaName(r.message),
    connection: schemaName(r.connection),
    edge: schemaName(r.edge),
    node: schemaName(r.node.name),
  };
  return {
    schemas: { ...messageSchemas(r.node), ...pageSchemas(names, r.key, { one: r.one, many: r.many }, op.name) },
    response: names.response,
    description: `A page of ${r.many}`,
  };
}

function operationObject(route: Route): OperationObject {
  const op = route.operation;
  const { response: schema, description } = responseSchemas(op);
  return {
    operationId: `${op.service}_${op.name}`,
    summary: op.summary,
    description: op.description,
    tags: [op.service],
    parameters: [...pathParameters(route), ...queryParameters(op), PRETTY],
    responses: {
      '200': response(
        `${description}. Every field is present, in proto order.`,
        ref(schema),
        route.examples.filter((e) => e.status === 200),
        ANSWER_HEADERS,
      ),
      '400': badRequest(route.examples.filter((e) => e.status === 400)),
      '404': op.notFound
        ? response(
            `${op.notFound} Or no route matches the path (no details then).`,
            status(5, { min: 0, max: 1 }),
            route.examples.filter((e) => e.status === 404),
          )
        : componentRef('NotFound'),
      '429': componentRef('RateLimited'),
      '500': internalError(op),
      '501': componentRef('MethodNotAllowed'),
      '503': componentRef('Unavailable'),
      '504': componentRef('DeadlineExceeded'),
    },
  };
}

/** What each tag holds. */
const TAGS: Record<string, string> = {
  TradingDataService: 'Vega data-node v2 trading data (referrals, teams, rewards).',
  Explorer:
    "What the explorer's pages (at `/`) need that the data-node's operations cannot give. Not part of the data-node's API; same conventions, limits and errors.",
};

const PACKAGE = createRequire(import.meta.url)('../../package.json') as { version: string; license: string };

const DESCRIPTION = `Three read-only operations of the Vega data-node v2 REST API, answered from read models of the chain's events, and the endpoints of the explorer served at \`/\` (tag Explorer).

**Conventions** (as the reference grpc-gateway):
- Every query field is accepted under its JSON name (\`pagination.newestFirst\`) and its proto name (\`pagination.newest_first\`), case-sensitive; both are listed. Unknown keys are ignored. A singular field given twice, or under both spellings, is a 400.
- A repeated field is given by repeating its key (\`filter.assetIds=a&filter.assetIds=b\`); a comma is not a separator.
- int64 and uint64 values are JSON strings of decimal digits, in answers and in query strings. Amounts are exact decimal strings.
- Every field of a message is present, even when empty, in proto field order.
- Ids are even-length hex (either case on input, lowercase on output) or one of the well-known names ${ALIAS_LIST}.

**Pagination**: \`pagination.first\`/\`after\` for a forward page, \`pagination.last\`/\`before\` for a backward page, \`pagination.newestFirst\` (default true) for the display order. Default page size ${DEFAULT_PAGE_SIZE}, maximum ${MAX_PAGE_SIZE}. Cursors are full positions: paging never repeats or skips rows. \`hasNextPage\`/\`hasPreviousPage\` are exact.

**Headers**: \`X-Block-Height\` and \`X-Block-Timestamp\` name the last ingested block the answer was read at. \`ETag\` and \`Cache-Control\` let HTTP caches keep an answer a second and revalidate it: \`If-None-Match\` with the current tag is a 304 without a body. Errors are \`no-store\`.

**GraphQL**: the same three queries as the data-node's GraphQL at [\`/graphql\`](graphql) (GraphiQL in a browser).`;

/** The OpenAPI document of the given routes (the server's own list). */
export function buildOpenApiDocument(routes: readonly Route[]): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const schemas = sharedSchemas();
  for (const route of routes) {
    paths[openApiPath(route.path)] = { get: operationObject(route) };
    for (const [name, schema] of Object.entries(responseSchemas(route.operation).schemas)) {
      if (schemas[name] && JSON.stringify(schemas[name]) !== JSON.stringify(schema))
        throw new Error(`two different schemas are named ${name}`);
      schemas[name] = schema;
    }
  }
  const tags = [...new Set(routes.map((route) => route.operation.service))];
  return {
    openapi: '3.1.0',
    info: {
      title: 'epochview',
      version: PACKAGE.version,
      description: DESCRIPTION,
      license: { name: PACKAGE.license, identifier: PACKAGE.license },
    },
    tags: tags.map((name) => ({ name, description: TAGS[name] ?? '' })),
    paths,
    components: {
      schemas,
      responses: componentResponses(),
      headers: {
        XBlockHeight: {
          description: 'Height of the last ingested block (uint64 as decimal digits). Absent while the store holds no block.',
          schema: { type: 'string', pattern: '^[0-9]+$' },
        },
        XBlockTimestamp: {
          description:
            'Time of the last ingested block, Unix nanoseconds (int64 as decimal digits). Absent while the store holds no block.',
          schema: { type: 'string', pattern: '^-?[0-9]+$' },
        },
        ETag: {
          description:
            'Strong tag of the answer: of its encoding and the versions of the read models it reads (not of the URL: a cache compares the tags of one URL, and URLs that read the same models share it), the same from every instance of one build. `If-None-Match` with it (or `*`) answers 304 (no body) until a block changes those read models. Absent while the instance does not know the versions (then `Cache-Control: no-store`).',
          schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]+"$' },
        },
        CacheControl: {
          description: `How long HTTP caches may keep the answer before revalidating it: \`${CACHE_CONTROL}\` with an \`ETag\`, else \`${NO_STORE}\`.`,
          schema: { type: 'string' },
        },
      },
    },
  };
}
