import type { Store } from '../db/store.js';
import type { FieldSpec } from '../contract/query.js';
import type { ChainHead } from '../pagination/sql.js';

/** What a route hands an operation: path parameters and the decoded query pairs. */
export interface OperationInput {
  path: Record<string, string>;
  query: readonly [string, string][];
}

export interface OperationResult {
  /** The response body, fields already in proto order. */
  body: object;
  head: ChainHead | null;
}

/** One GET operation of the API. Adding an operation means adding one of these. */
export interface Operation {
  /** Name used in logs and metrics. */
  name: string;
  /** Route path in the HTTP router's syntax, e.g. /api/v2/teams/:teamId/stats. */
  path: string;
  /** vega.ErrorDetail code for failures of this operation. */
  errorCode: number;
  errorMessage: string;
  /** The query fields the operation parses; the OpenAPI document's parameters come from it. */
  fields?: Readonly<Record<string, FieldSpec>>;
  run(store: Store, input: OperationInput): Promise<OperationResult>;
}
