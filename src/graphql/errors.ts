import { GraphQLError } from 'graphql';
import { ApiError } from '../contract/errors.js';
import { goJson } from '../contract/json.js';
import { ZERO_TIME } from './encode.js';

/**
 * The errors of graphql.md §5, and the answer's body (§4). A resolver's ApiError (the contract's
 * catalogue) becomes the data-node's error: its details' messages joined, the field's path, and
 * the gRPC code with its name; no locations, no inner text.
 */

/** Where a resolver fails before calling the operation, as the data-node's argument conversion does: message and path only. */
export class ArgumentError extends Error {}

/** The names of the gRPC codes the catalogue uses (google.golang.org/grpc/codes' String()). */
const CODE_NAMES: Record<number, string> = {
  3: 'InvalidArgument',
  4: 'DeadlineExceeded',
  5: 'NotFound',
  8: 'ResourceExhausted',
  12: 'Unimplemented',
  13: 'Internal',
  14: 'Unavailable',
};

/** One error of the answer, as written: `message`, then `locations`, `path`, `extensions` when it has them. */
export interface ErrorJson {
  message: string;
  locations?: readonly { line: number; column: number }[];
  path?: readonly (string | number)[];
  extensions?: Record<string, unknown>;
}

/** An operation's error on a field, as the data-node writes it. */
export function apiErrorJson(err: ApiError, path: readonly (string | number)[] | undefined): ErrorJson {
  const message = err.details.length > 0 ? err.details.map((d) => d.message).join(', ') : err.message;
  return { message, ...(path ? { path } : {}), extensions: { code: err.code, type: CODE_NAMES[err.code] ?? 'Unknown' } };
}

/** The error a resolver threw, under the GraphQLErrors that wrap it (stitching's delegation wraps ours once more). */
function rootCause(err: GraphQLError): Error | undefined {
  let cause: Error | undefined = err.originalError;
  while (cause instanceof GraphQLError && cause.originalError) cause = cause.originalError;
  return cause;
}

/** An execution error (a resolver's, or graphql-js's own about a value) as written in the answer. */
export function executionErrorJson(err: GraphQLError): ErrorJson {
  const original = rootCause(err);
  if (original instanceof ApiError) return apiErrorJson(original, err.path);
  if (original instanceof ArgumentError) return { message: original.message, ...(err.path ? { path: err.path } : {}) };
  // graphql-js's own (a value a type cannot represent) or a delegated one: its message and path.
  return {
    message: err.message,
    ...(err.path ? { path: err.path } : {}),
    ...(err.extensions && Object.keys(err.extensions).length > 0 ? { extensions: err.extensions } : {}),
  };
}

/** A parse or validation error (422) as gqlgen writes it: its locations, and the code saying which. */
export function requestErrorJson(err: GraphQLError, code: 'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED'): ErrorJson {
  return { message: err.message, ...(err.locations ? { locations: err.locations } : {}), extensions: { code } };
}

/** The answer's body: compact, `errors` first and only when there are some, then `data` (graphql.md §4). */
export function answerBody(errors: readonly ErrorJson[], data: unknown): Buffer {
  let text = goJson(errors.length > 0 ? { errors, data: data ?? null } : { data: data ?? null });
  // A zero time's mark (see encode.ts) is the data-node's null.
  if (text.includes('\\u0000zero-time')) text = text.replaceAll(`"${JSON.stringify(ZERO_TIME).slice(1, -1)}"`, 'null');
  return Buffer.from(text);
}

/** A body of errors alone (`data` null), for the answers that execute nothing. */
export function errorsBody(...errors: ErrorJson[]): Buffer {
  return answerBody(errors, null);
}
