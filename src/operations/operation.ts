import type { SchemaObject } from '../contract/openapi.js';
import type { FieldSpec } from '../contract/query.js';
import type { AnswerSource } from '../db/read-models.js';
import type { Store } from '../db/store.js';
import type { ChainHead } from '../pagination/page-sql.js';
import type { RowCache } from '../pagination/row-cache.js';

/** What a route hands an operation: path parameters and the decoded query pairs. */
export interface OperationInput {
  path: Record<string, string>;
  query: readonly [string, string][];
}

export interface OperationResult {
  /** The response body as compact JSON (UTF-8), fields in proto order, strings escaped as Go does. */
  body: Buffer;
  head: ChainHead | null;
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

/** A path parameter: what it means and its schema. */
export interface PathParameter {
  description: string;
  schema: SchemaObject;
}

/**
 * One GET operation, everything about it in its own folder: its query fields (with their docs),
 * path parameters, response schemas, examples, errors and `run`. The server routes, limits and
 * caches every operation alike, and the OpenAPI document is assembled from them.
 */
export interface Operation {
  /** The operation's name (operationId after the tag), in logs and metrics. */
  name: string;
  /**
   * The read models its answers are made of (and 'block' when an answer shows the head): a
   * cached answer stays valid while none of them changes.
   */
  reads: readonly AnswerSource[];
  /** Route path in the HTTP router's syntax, e.g. /api/v2/teams/:teamId/stats. */
  path: string;
  /** The OpenAPI tag it is listed under. */
  tag: string;
  summary: string;
  description: string;
  /** vega.ErrorDetail code and message of unexpected failures of this operation. */
  errorCode: number;
  errorMessage: string;
  fields: Readonly<Record<string, FieldSpec>>;
  pathParameters: Readonly<Record<string, PathParameter>>;
  /** The schemas it adds under components.schemas, and the one of its 200 answer. */
  schemas: Readonly<Record<string, SchemaObject>>;
  responseSchema: string;
  /** The 200 answer described in a few words, e.g. "A page of referral sets". */
  responseDescription: string;
  examples: readonly FixtureExample[];
  /** `rows` keeps rendered rows' text across requests (see RowCache); none when absent. */
  run(store: Store, input: OperationInput, rows?: RowCache): Promise<OperationResult>;
}
