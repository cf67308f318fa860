import { WELL_KNOWN } from './ids.js';

/**
 * The OpenAPI pieces every operation shares: a typed subset of OpenAPI 3.1, the value schemas of
 * the contract (ids, 64-bit integers as strings, exact decimals, cursors, timestamps), and the
 * messages of its pages and errors. Response schemas follow contract §3: proto field order,
 * every field required, nothing else allowed (see message()).
 */

export interface SchemaObject {
  $ref?: string;
  allOf?: SchemaObject[];
  anyOf?: SchemaObject[];
  title?: string;
  description?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'boolean' | 'null';
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  const?: unknown;
  default?: unknown;
  examples?: unknown[];
  properties?: Record<string, SchemaObject>;
  required?: string[];
  additionalProperties?: boolean;
  items?: SchemaObject;
  minItems?: number;
  maxItems?: number;
}

export interface ParameterObject {
  name: string;
  in: 'query' | 'path';
  description: string;
  required?: boolean;
  allowEmptyValue?: boolean;
  style?: 'form' | 'simple';
  explode?: boolean;
  schema: SchemaObject;
}

/** An example for the OpenAPI document: a request of the test fixtures (test/fixtures) and its answer. */
export interface FixtureExample {
  /** The fixtures file (in test/fixtures) and the entry's name. */
  fixture: string;
  name: string;
  method: string;
  request: string;
  status: number;
  body: unknown;
}

export interface ExampleObject {
  summary: string;
  description: string;
  value: unknown;
}

export interface ReferenceObject {
  $ref: string;
}

export interface HeaderObject {
  description: string;
  schema: SchemaObject;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | ReferenceObject>;
  content: { 'application/json': { schema: SchemaObject; examples?: Record<string, ExampleObject> } };
}

export interface OperationObject {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  parameters: ParameterObject[];
  responses: Record<string, ResponseObject | ReferenceObject>;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string; license: { name: string; identifier: string } };
  tags: { name: string; description: string }[];
  paths: Record<string, { get: OperationObject }>;
  components: {
    schemas: Record<string, SchemaObject>;
    responses: Record<string, ResponseObject>;
    headers: Record<string, HeaderObject>;
  };
}

// ---- Value schemas ------------------------------------------------------------------------------

const ALIASES = WELL_KNOWN.map(([name]) => name).join('|');
export const ALIAS_LIST = WELL_KNOWN.map(([name, hex]) => `\`${name}\` (${hex})`).join(', ');

/** Ids as the service returns them: lowercase hex, or a well-known name; `""` is a valid id. */
export const ID: SchemaObject = {
  type: 'string',
  pattern: `^(?:(?:[0-9a-f]{2})*|${ALIASES})$`,
  description: `An id: lowercase hex of even length (\`""\` is the empty id), or for ${ALIAS_LIST} the well-known name.`,
};
/** Ids as accepted on input: hex of even length in either case, or a well-known name. */
export const ID_INPUT: SchemaObject = { type: 'string', pattern: `^(?:(?:[0-9a-fA-F]{2})*|${ALIASES})$` };
/** A path parameter id: as ID_INPUT, not empty. */
export const ID_PATH_INPUT: SchemaObject = { type: 'string', pattern: `^(?:(?:[0-9a-fA-F]{2})+|${ALIASES})$` };
export const ID_INPUT_TEXT = `Hex of even length, either case (compared case-insensitively), or a well-known name (${ALIAS_LIST}, case-sensitive). Anything else is a 400.`;
export const HEX: SchemaObject = { type: 'string', pattern: '^(?:[0-9a-f]{2})*$', description: 'An id: lowercase hex of even length.' };
export const INT64: SchemaObject = { type: 'string', format: 'int64', pattern: '^-?[0-9]+$' };
export const UINT64: SchemaObject = { type: 'string', format: 'uint64', pattern: '^[0-9]+$' };
export const DECIMAL: SchemaObject = {
  type: 'string',
  pattern: '^-?(?:0|[1-9][0-9]*)(?:\\.[0-9]*[1-9])?$',
  description: 'An exact decimal number: no exponent, no leading `+`, no trailing fractional zeros, `"0"` for zero.',
};
export const CURSOR: SchemaObject = {
  type: 'string',
  pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
  description: 'An opaque cursor (padded standard base64); `""` on an empty page.',
};
/** A cursor as a query value: not empty (an empty cursor is a 400). */
export const CURSOR_INPUT: SchemaObject = { pattern: `^(?=.)${CURSOR.pattern!.slice(1)}` };
export const TIMESTAMP: SchemaObject = {
  ...INT64,
  description: 'Unix time in nanoseconds (int64 as a string), truncated to microseconds.',
};

export const ref = (name: string): SchemaObject => ({ $ref: `#/components/schemas/${name}` });

/** A schema with its description replaced. */
export const described = (schema: SchemaObject, description: string): SchemaObject => ({ ...schema, description });

/** The schema, or null (the explorer's endpoints say "not known" so; the data-node's messages never do). */
export const nullable = (schema: SchemaObject, description: string): SchemaObject => ({ anyOf: [schema, { type: 'null' }], description });

/** An object schema whose properties are listed in proto field order, all required but the proto3 optional ones, no others. */
export function message(
  description: string,
  fields: readonly (readonly [name: string, schema: SchemaObject])[],
  optional: readonly string[] = [],
): SchemaObject {
  return {
    type: 'object',
    description,
    properties: Object.fromEntries(fields),
    required: fields.map(([name]) => name).filter((name) => !optional.includes(name)),
    additionalProperties: false,
  };
}

export const arrayOf = (items: SchemaObject, description?: string): SchemaObject => ({
  type: 'array',
  items,
  ...(description ? { description } : {}),
});

// ---- Pages and errors ---------------------------------------------------------------------------

export const PAGE_INFO_SCHEMA = 'v2PageInfo';
const ERROR_DETAIL_SCHEMA = 'vegaErrorDetail';
export const STATUS_SCHEMA = 'googlerpcStatus';

/**
 * The schemas of a page of the data-node's cursor pagination: the response message holding one
 * connection under `key`, the connection, its edge, and the node (`node` names its schema).
 */
export function pageSchemas(
  names: { response: string; connection: string; edge: string; node: string },
  key: string,
  what: { one: string; many: string },
  operation: string,
): Record<string, SchemaObject> {
  return {
    [names.edge]: message(`One ${what.one} and its cursor.`, [
      ['node', ref(names.node)],
      ['cursor', described(CURSOR, 'The position of this node, for `pagination.after` / `pagination.before`.')],
    ]),
    [names.connection]: message(`A page of ${what.many}.`, [
      ['edges', arrayOf(ref(names.edge))],
      ['pageInfo', ref(PAGE_INFO_SCHEMA)],
    ]),
    [names.response]: message(`${operation} response.`, [[key, ref(names.connection)]]),
  };
}

/** The schemas every document holds: page info and the error body. */
export function sharedSchemas(): Record<string, SchemaObject> {
  return {
    [PAGE_INFO_SCHEMA]: message('Where the page is in the whole list (exact, computed from the data).', [
      ['hasNextPage', { type: 'boolean', description: 'A row exists after the last row of the page, in display order.' }],
      ['hasPreviousPage', { type: 'boolean', description: 'A row exists before the first row of the page, in display order.' }],
      ['startCursor', described(CURSOR, 'The first edge\'s cursor; `""` for an empty page.')],
      ['endCursor', described(CURSOR, 'The last edge\'s cursor; `""` for an empty page.')],
    ]),
    [ERROR_DETAIL_SCHEMA]: message('Details of an error.', [
      ['@type', { type: 'string', const: 'type.googleapis.com/vega.ErrorDetail' }],
      [
        'code',
        {
          type: 'integer',
          format: 'int32',
          description: 'A vega.ErrorDetail code, e.g. 10028 invalid pagination, 10000 invalid id, 140001 reward summaries.',
        },
      ],
      ['message', { type: 'string' }],
      ['inner', { type: 'string', description: 'The underlying reason; may be `""`.' }],
    ]),
    [STATUS_SCHEMA]: message("An error, as the gRPC gateway writes it. Text echoing client input is escaped like Go's encoding/json.", [
      ['code', { type: 'integer', format: 'int32', description: 'The gRPC status code.' }],
      ['message', { type: 'string' }],
      ['details', arrayOf(ref(ERROR_DETAIL_SCHEMA))],
    ]),
  };
}

/** The error body narrowed to one gRPC code and a number of details. */
export function status(code: number, details: { min: number; max: number }): SchemaObject {
  return {
    allOf: [ref(STATUS_SCHEMA)],
    type: 'object',
    properties: { code: { const: code }, details: { type: 'array', minItems: details.min, maxItems: details.max } },
  };
}
