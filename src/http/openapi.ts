import { createRequire } from 'node:module';
import { WELL_KNOWN } from '../contract/ids.js';
import type { Operation } from '../operations/operation.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../pagination/page.js';
import { deadlineExceeded, internalError as internalErrorBody, rateLimited, unavailable } from '../contract/errors.js';
import { EXAMPLES, type FixtureExample } from './openapi-examples.js';
import type { FieldSpec } from '../contract/query.js';

/**
 * The OpenAPI 3.1 document of the service (served at /api/v2/openapi.json, rendered at /docs).
 *
 * Query parameters are derived from each operation's own FieldSpec table, the one its query
 * parser reads, so the document lists exactly the keys the service accepts: every field under its
 * JSON name and its proto-name alias. Response schemas follow contract §3: proto field order,
 * every field required, nothing else allowed, 64-bit integers as strings of decimal digits (as the
 * reference grpc-gateway writes and documents them).
 */

// ---- A typed subset of OpenAPI 3.1 -------------------------------------------------------------

export interface SchemaObject {
  $ref?: string;
  allOf?: SchemaObject[];
  title?: string;
  description?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'boolean';
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
const ALIAS_LIST = WELL_KNOWN.map(([name, hex]) => `\`${name}\` (${hex})`).join(', ');

/** Ids as the service returns them: lowercase hex, or a well-known name; `""` is a valid id. */
const ID: SchemaObject = {
  type: 'string',
  pattern: `^(?:(?:[0-9a-f]{2})*|${ALIASES})$`,
  description: `An id: lowercase hex of even length (\`""\` is the empty id), or for ${ALIAS_LIST} the well-known name.`,
};
/** Ids as accepted on input: hex of even length in either case, or a well-known name. */
const ID_INPUT: SchemaObject = { type: 'string', pattern: `^(?:(?:[0-9a-fA-F]{2})*|${ALIASES})$` };
const ID_INPUT_TEXT = `Hex of even length, either case (compared case-insensitively), or a well-known name (${ALIAS_LIST}, case-sensitive). Anything else is a 400.`;
const HEX: SchemaObject = { type: 'string', pattern: '^(?:[0-9a-f]{2})*$', description: 'An id: lowercase hex of even length.' };
const INT64: SchemaObject = { type: 'string', format: 'int64', pattern: '^-?[0-9]+$' };
const UINT64: SchemaObject = { type: 'string', format: 'uint64', pattern: '^[0-9]+$' };
const DECIMAL: SchemaObject = {
  type: 'string',
  pattern: '^-?(?:0|[1-9][0-9]*)(?:\\.[0-9]*[1-9])?$',
  description: 'An exact decimal number: no exponent, no leading `+`, no trailing fractional zeros, `"0"` for zero.',
};
const CURSOR: SchemaObject = {
  type: 'string',
  pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
  description: 'An opaque cursor (padded standard base64); `""` on an empty page.',
};
/** A cursor as a query value: not empty (an empty cursor is a 400). */
const CURSOR_INPUT: SchemaObject = { pattern: `^(?=.)${CURSOR.pattern!.slice(1)}` };
const TIMESTAMP: SchemaObject = {
  ...INT64,
  description: 'Unix time in nanoseconds (int64 as a string), truncated to microseconds.',
};

const ref = (name: string): SchemaObject => ({ $ref: `#/components/schemas/${name}` });

/** An object schema whose properties are listed in proto field order, all required, no others. */
function message(description: string, fields: [name: string, schema: SchemaObject][]): SchemaObject {
  return {
    type: 'object',
    description,
    properties: Object.fromEntries(fields),
    required: fields.map(([name]) => name),
    additionalProperties: false,
  };
}

const arrayOf = (items: SchemaObject, description?: string): SchemaObject => ({ type: 'array', items, ...(description ? { description } : {}) });

/** A page of the data-node's cursor pagination: Connection, Edge and the node's schema name. */
function connection(schemas: Record<string, SchemaObject>, names: { connection: string; edge: string; node: string }, what: string): void {
  schemas[names.edge] = message(`One ${what} and its cursor.`, [
    ['node', ref(names.node)],
    ['cursor', { ...CURSOR, description: 'The position of this node, for `pagination.after` / `pagination.before`.' }],
  ]);
  schemas[names.connection] = message(`A page of ${what}s.`, [
    ['edges', arrayOf(ref(names.edge))],
    ['pageInfo', ref('v2PageInfo')],
  ]);
}

function componentSchemas(): Record<string, SchemaObject> {
  const s: Record<string, SchemaObject> = {};
  s.v2PageInfo = message('Where the page is in the whole list (exact, computed from the data).', [
    ['hasNextPage', { type: 'boolean', description: 'A row exists after the last row of the page, in display order.' }],
    ['hasPreviousPage', { type: 'boolean', description: 'A row exists before the first row of the page, in display order.' }],
    ['startCursor', { ...CURSOR, description: 'The first edge\'s cursor; `""` for an empty page.' }],
    ['endCursor', { ...CURSOR, description: 'The last edge\'s cursor; `""` for an empty page.' }],
  ]);

  s.v2ReferralSet = message('A referral set.', [
    ['id', { ...ID, description: 'The set\'s id.' }],
    ['referrer', { ...ID, description: 'The referrer\'s party id.' }],
    ['createdAt', { ...TIMESTAMP, description: 'Creation time: Unix nanoseconds (int64 as a string), truncated to microseconds.' }],
    ['updatedAt', { ...TIMESTAMP, description: 'Update time, from the creation event: Unix nanoseconds (int64 as a string), truncated to microseconds.' }],
    ['totalMembers', { ...UINT64, description: 'Current referees of the set plus one (the referrer); uint64 as a string.' }],
  ]);
  connection(s, { connection: 'v2ReferralSetConnection', edge: 'v2ReferralSetEdge', node: 'v2ReferralSet' }, 'referral set');
  s.v2ListReferralSetsResponse = message('ListReferralSets response.', [['referralSets', ref('v2ReferralSetConnection')]]);

  s.v2QuantumRewardsPerEpoch = message('A member\'s quantum rewards in one epoch.', [
    ['epoch', { ...UINT64, description: 'The epoch (uint64 as a string).' }],
    ['totalQuantumRewards', { ...DECIMAL, description: 'Rewards in quantum units, each reward rounded half away from zero.' }],
  ]);
  s.v2QuantumVolumesPerEpoch = message('A member\'s quantum volume in one epoch.', [
    ['epoch', { ...UINT64, description: 'The epoch (uint64 as a string).' }],
    ['totalQuantumVolumes', { ...DECIMAL, description: 'Notional volume in quantum units.' }],
  ]);
  s.v2TeamMemberStatistics = message('A team member\'s statistics over the aggregation window.', [
    ['partyId', { ...ID, description: 'The member\'s party id.' }],
    ['totalQuantumVolume', { ...DECIMAL, description: 'Sum of `quantumVolumes`.' }],
    ['totalQuantumRewards', { ...DECIMAL, description: 'Sum of `quantumRewards`.' }],
    ['quantumRewards', arrayOf(ref('v2QuantumRewardsPerEpoch'), 'One entry per epoch with statistics, epoch ascending.')],
    ['totalGamesPlayed', { ...UINT64, description: 'The number of `gamesPlayed` (uint64 as a string).' }],
    ['gamesPlayed', arrayOf(HEX, 'Distinct game ids played in the window, ascending.')],
    ['quantumVolumes', arrayOf(ref('v2QuantumVolumesPerEpoch'), 'One entry per epoch with statistics, epoch ascending.')],
  ]);
  connection(s, { connection: 'v2TeamMembersStatisticsConnection', edge: 'v2TeamMemberStatisticsEdge', node: 'v2TeamMemberStatistics' }, 'team member\'s statistics');
  s.v2ListTeamMembersStatisticsResponse = message('ListTeamMembersStatistics response.', [['statistics', ref('v2TeamMembersStatisticsConnection')]]);

  s.vegaEpochRewardSummary = message('The rewards of one type paid in one asset (and market) in one epoch.', [
    ['epoch', { ...UINT64, description: 'The epoch (uint64 as a string).' }],
    ['assetId', { ...ID, description: 'The asset of the rewards.' }],
    ['marketId', { ...ID, description: 'The market; `""` for reward payouts, which carry no market.' }],
    ['rewardType', { type: 'string', pattern: '^ACCOUNT_TYPE_[A-Z0-9_]+$', description: 'The reward account type (a vega.AccountType name).', examples: ['ACCOUNT_TYPE_GLOBAL_REWARD'] }],
    ['amount', { ...DECIMAL, description: 'Sum of the payouts, in the asset\'s base unit.' }],
  ]);
  connection(s, { connection: 'v2EpochRewardSummaryConnection', edge: 'v2EpochRewardSummaryEdge', node: 'vegaEpochRewardSummary' }, 'epoch reward summary');
  s.v2ListEpochRewardSummariesResponse = message('ListEpochRewardSummaries response.', [['summaries', ref('v2EpochRewardSummaryConnection')]]);

  s.vegaErrorDetail = message('Details of an error.', [
    ['@type', { type: 'string', const: 'type.googleapis.com/vega.ErrorDetail' }],
    ['code', { type: 'integer', format: 'int32', description: 'A vega.ErrorDetail code, e.g. 10028 invalid pagination, 10000 invalid id, 140001 reward summaries.' }],
    ['message', { type: 'string' }],
    ['inner', { type: 'string', description: 'The underlying reason; may be `""`.' }],
  ]);
  s.googlerpcStatus = message('An error, as the gRPC gateway writes it. Text echoing client input is escaped like Go\'s encoding/json.', [
    ['code', { type: 'integer', format: 'int32', description: 'The gRPC status code.' }],
    ['message', { type: 'string' }],
    ['details', arrayOf(ref('vegaErrorDetail'))],
  ]);
  return s;
}

/** googlerpcStatus narrowed to one gRPC code and a number of details. */
function status(code: number, details: { min: number; max: number }): SchemaObject {
  return {
    allOf: [ref('googlerpcStatus')],
    type: 'object',
    properties: { code: { const: code }, details: { type: 'array', minItems: details.min, maxItems: details.max } },
  };
}

// ---- Responses ----------------------------------------------------------------------------------

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

function response(description: string, schema: SchemaObject, examples: readonly FixtureExample[], headers?: ResponseObject['headers']): ResponseObject {
  const ex = examplesOf(examples);
  return { description, ...(headers ? { headers } : {}), content: { [JSON_TYPE]: { schema, ...(ex ? { examples: ex } : {}) } } };
}

/** A response with one example of what the service sends (built by the same functions). */
function withExample(r: ResponseObject, summary: string, value: unknown): ResponseObject {
  const media = r.content[JSON_TYPE];
  return { ...r, content: { [JSON_TYPE]: { ...media, examples: { [summary.replace(/ /g, '-')]: { summary, description: 'The body the service sends (texts vary with the case).', value } } } } };
}

const componentRef = (name: string): ReferenceObject => ({ $ref: `#/components/responses/${name}` });

function componentResponses(): Record<string, ResponseObject> {
  const shared = EXAMPLES.shared ?? [];
  return {
    NotFound: response(
      'No route matches the path (paths are exact: no trailing slash, case-sensitive).',
      status(5, { min: 0, max: 0 }),
      shared.filter((e) => e.status === 404),
    ),
    MethodNotAllowed: response(
      'The path is known but the method is not GET (or HEAD, or a CORS preflight OPTIONS). Every other method on this path gets this answer.',
      status(12, { min: 0, max: 0 }),
      shared.filter((e) => e.status === 501),
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
      response('No answer within the server\'s request timeout.', status(4, { min: 0, max: 0 }), []),
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
      'has a message in the gateway\'s words and no details, as has a request over the server\'s limits (URL length, values of a repeated parameter). Invalid pagination (limits outside 1..5000, both cursors, a bad cursor) and invalid ids have ' +
      'the message `InvalidArgument error` and one detail: 10028 `invalid pagination`, or the operation\'s code and message with the reason in `inner`.',
    status(3, { min: 0, max: 1 }),
    examples,
  );
}

function internalError(op: Operation): ResponseObject {
  return withExample(
    response(
      'An unexpected failure, `code` 13; the detail carries the operation\'s code and message and no internals.',
      status(13, { min: 1, max: 1 }),
      [],
    ),
    'unexpected failure',
    internalErrorBody(op.errorCode, op.errorMessage).toBody(),
  );
}

const BLOCK_HEADERS = {
  'X-Block-Height': { $ref: '#/components/headers/XBlockHeight' },
  'X-Block-Timestamp': { $ref: '#/components/headers/XBlockTimestamp' },
};

// ---- Parameters ---------------------------------------------------------------------------------

interface FieldDoc {
  description: string;
  /** Added to the schema the field's kind gives (ranges, patterns, defaults). */
  schema?: SchemaObject;
}

/** What each field means, by its name in the operations' FieldSpec tables. */
const FIELD_DOCS: Record<string, FieldDoc> = {
  first: {
    description: `Forward page: at most this many rows after \`pagination.after\` (from the start without it). Takes precedence over \`pagination.last\` and \`pagination.before\`, which are then ignored. Without \`first\` and \`last\` a page holds ${DEFAULT_PAGE_SIZE} rows. Outside 1..${MAX_PAGE_SIZE}: 400 invalid pagination.`,
    schema: { minimum: 1, maximum: MAX_PAGE_SIZE },
  },
  after: {
    description: 'Cursor (an edge\'s `cursor` or `pageInfo.endCursor`): the page starts strictly after this position. Must be percent-encoded (`+` decodes to a space). Ignored when `pagination.last` is given without `pagination.first`. With `pagination.before`: 400.',
    schema: CURSOR_INPUT,
  },
  last: {
    description: `Backward page: the this-many rows immediately before \`pagination.before\` (the last rows without it), returned in display order. Ignored when \`pagination.first\` is given. Outside 1..${MAX_PAGE_SIZE}: 400 invalid pagination.`,
    schema: { minimum: 1, maximum: MAX_PAGE_SIZE },
  },
  before: {
    description: 'Cursor (an edge\'s `cursor` or `pageInfo.startCursor`): the page ends strictly before this position. Must be percent-encoded. Ignored when `pagination.first` is given. With `pagination.after`: 400.',
    schema: CURSOR_INPUT,
  },
  newestFirst: {
    description: 'Display order: `true` sorts the whole key descending, `false` ascending. Accepts true/false/1/0/t/f/T/F/TRUE/FALSE/True/False.',
    schema: { default: true },
  },
  referralSetId: {
    description: `Only this set. Takes precedence over \`referrer\` and \`referee\` (which are still validated). Given empty, it matches nothing. ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  referrer: {
    description: `Only the sets of this referrer (unless \`referralSetId\` is given). ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  referee: {
    description: `Only the set this referee currently belongs to (unless \`referralSetId\` or \`referrer\` is given). ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  partyId: {
    description: `Only this member (team eligibility is still decided on the whole team). Given empty, it matches nothing. ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  aggregationEpochs: {
    description: 'N, the number of most recent ended epochs to aggregate (0 means 10). A team with statistics in fewer than N of them is left out (an empty page).',
    schema: { default: '10' },
  },
  assetIds: {
    description: `Only summaries of these assets (none given: every asset). Repeat the key for more ids; a comma is not a separator. Each id: ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  marketIds: {
    description: `Only summaries of these markets (none given: every market). Repeat the key for more ids; \`""\` matches the empty market of reward payouts. Each id: ${ID_INPUT_TEXT}`,
    schema: ID_INPUT,
  },
  fromEpoch: { description: 'Only summaries of this epoch or later (inclusive).' },
  toEpoch: { description: 'Only summaries of this epoch or earlier (inclusive).' },
};

/** Path parameters, by their name in the operation's route. */
const PATH_DOCS: Record<string, FieldDoc> = {
  teamId: {
    description: `The team. A \`teamId\` or \`team_id\` query key does not override it. ${ID_INPUT_TEXT} An unknown team answers an empty page.`,
    schema: { ...ID_INPUT, pattern: `^(?:(?:[0-9a-fA-F]{2})+|${ALIASES})$` },
  },
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
  uint64: 'A uint64, written as a string of decimal digits (as the gateway documents 64-bit integers); values above 9223372036854775807 are a 400 parse error.',
  bool: '',
  string: '',
};

/** Every query key of every field, in the table's order: the JSON name, then the proto name. */
function queryParameters(op: Operation): ParameterObject[] {
  if (!op.fields) throw new Error(`operation ${op.name} has no fields table to document`);
  const params: ParameterObject[] = [];
  for (const [name, spec] of Object.entries(op.fields)) {
    const doc = FIELD_DOCS[name];
    if (!doc) throw new Error(`query field ${name} of ${op.name} is not documented`);
    const { description: _, ...extra } = doc.schema ?? {};
    const scalar: SchemaObject = { ...kindSchema(spec), ...extra };
    const [jsonKey] = spec.keys;
    for (const key of spec.keys) {
      const alias = key !== jsonKey;
      const what = alias
        ? `Alias of \`${jsonKey}\` (proto name \`${spec.protoName}\`). ${spec.repeated ? 'Values under both spellings add to one list.' : 'Giving both spellings is a 400.'}`
        : doc.description;
      const type = [spec.repeated ? 'Repeated: give the key once per value.' : '', KIND_TEXT[spec.kind]].filter(Boolean).join(' ');
      params.push({
        name: key,
        in: 'query',
        description: type ? `${what} ${type}` : what,
        required: false,
        ...(spec.repeated ? { style: 'form' as const, explode: true, schema: { type: 'array' as const, items: scalar } } : { schema: scalar }),
      });
    }
  }
  return params;
}

function pathParameters(op: Operation): ParameterObject[] {
  return [...op.path.matchAll(/:([A-Za-z]+)/g)].map(([, name]) => {
    const doc = PATH_DOCS[name!];
    if (!doc) throw new Error(`path parameter ${name} of ${op.name} is not documented`);
    return { name: name!, in: 'path', description: doc.description, required: true, style: 'simple', schema: { type: 'string', ...doc.schema } };
  });
}

/** The router's `/a/:b/c` as OpenAPI's `/a/{b}/c`. */
export const openApiPath = (routePath: string): string => routePath.replace(/:([A-Za-z]+)/g, '{$1}');

// ---- Operations ---------------------------------------------------------------------------------

interface OperationDoc {
  summary: string;
  description: string;
  responseSchema: string;
  resultName: string;
}

const OPERATION_DOCS: Record<string, OperationDoc> = {
  ListReferralSets: {
    summary: 'List referral sets',
    description:
      'Referral sets, filtered by one of (in this precedence) `referralSetId`, `referrer`, `referee`. `totalMembers` counts the current referees plus the referrer. ' +
      'Sort key (createdAt, id); unknown ids answer an empty page.',
    responseSchema: 'v2ListReferralSetsResponse',
    resultName: 'referral sets',
  },
  ListTeamMembersStatistics: {
    summary: 'List team members\' statistics',
    description:
      'Per member of the team: quantum volumes and rewards per epoch and the games played, over the last N ended epochs (`aggregationEpochs`, default 10). ' +
      'A team with statistics in fewer than N of those epochs is left out (an empty page), as the interface documents it. Members who left the team still appear ' +
      'for the epochs they have statistics for. Sort key partyId.',
    responseSchema: 'v2ListTeamMembersStatisticsResponse',
    resultName: 'members\' statistics',
  },
  ListEpochRewardSummaries: {
    summary: 'List epoch reward summaries',
    description:
      'One summary per (epoch, asset, market, reward type): the sum of the reward payouts. Payout events carry no market, so `marketId` is `""`. ' +
      'Filters: assets, markets, an epoch range. Sort key (epoch, assetId, marketId, rewardType).',
    responseSchema: 'v2ListEpochRewardSummariesResponse',
    resultName: 'epoch reward summaries',
  },
};

const TAG = 'TradingDataService';

function operationObject(op: Operation): OperationObject {
  const doc = OPERATION_DOCS[op.name];
  if (!doc) throw new Error(`operation ${op.name} is not documented`);
  const examples = EXAMPLES[op.name] ?? [];
  return {
    operationId: `${TAG}_${op.name}`,
    summary: doc.summary,
    description: doc.description,
    tags: [TAG],
    parameters: [...pathParameters(op), ...queryParameters(op), PRETTY],
    responses: {
      '200': response(
        `A page of ${doc.resultName}. Every field is present, in proto order.`,
        ref(doc.responseSchema),
        examples.filter((e) => e.status === 200),
        BLOCK_HEADERS,
      ),
      '400': badRequest(examples.filter((e) => e.status === 400)),
      '404': componentRef('NotFound'),
      '429': componentRef('RateLimited'),
      '500': internalError(op),
      '501': componentRef('MethodNotAllowed'),
      '503': componentRef('Unavailable'),
      '504': componentRef('DeadlineExceeded'),
    },
  };
}

const PACKAGE = createRequire(import.meta.url)('../../package.json') as { version: string; license: string };

const DESCRIPTION = `Three read-only operations of the Vega data-node v2 REST API, answered from read models of the chain's events.

**Conventions** (as the reference grpc-gateway):
- Every query field is accepted under its JSON name (\`pagination.newestFirst\`) and its proto name (\`pagination.newest_first\`), case-sensitive; both are listed. Unknown keys are ignored. A singular field given twice, or under both spellings, is a 400.
- A repeated field is given by repeating its key (\`filter.assetIds=a&filter.assetIds=b\`); a comma is not a separator.
- int64 and uint64 values are JSON strings of decimal digits, in answers and in query strings. Amounts are exact decimal strings.
- Every field of a message is present, even when empty, in proto field order.
- Ids are even-length hex (either case on input, lowercase on output) or one of the well-known names ${ALIAS_LIST}.

**Pagination**: \`pagination.first\`/\`after\` for a forward page, \`pagination.last\`/\`before\` for a backward page, \`pagination.newestFirst\` (default true) for the display order. Default page size ${DEFAULT_PAGE_SIZE}, maximum ${MAX_PAGE_SIZE}. Cursors are full positions: paging never repeats or skips rows. \`hasNextPage\`/\`hasPreviousPage\` are exact.

**Headers**: \`X-Block-Height\` and \`X-Block-Timestamp\` name the last ingested block the answer was read at.`;

/** The OpenAPI document of the given operations (the server's own list). */
export function buildOpenApiDocument(operations: readonly Operation[]): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const op of operations) paths[openApiPath(op.path)] = { get: operationObject(op) };
  return {
    openapi: '3.1.0',
    info: { title: 'epochview', version: PACKAGE.version, description: DESCRIPTION, license: { name: PACKAGE.license, identifier: PACKAGE.license } },
    tags: [{ name: TAG, description: 'Vega data-node v2 trading data (referrals, teams, rewards).' }],
    paths,
    components: {
      schemas: componentSchemas(),
      responses: componentResponses(),
      headers: {
        XBlockHeight: { description: 'Height of the last ingested block (uint64 as decimal digits). Absent while the store holds no block.', schema: { type: 'string', pattern: '^[0-9]+$' } },
        XBlockTimestamp: { description: 'Time of the last ingested block, Unix nanoseconds (int64 as decimal digits). Absent while the store holds no block.', schema: { type: 'string', pattern: '^-?[0-9]+$' } },
      },
    },
  };
}
