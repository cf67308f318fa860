/**
 * Every error a client can see, as values, mapped to the contract's table (§6) in one place.
 * The body is {"code","message","details"}; details carry vega.ErrorDetail entries.
 */
export interface ErrorDetail {
  '@type': 'type.googleapis.com/vega.ErrorDetail';
  code: number;
  message: string;
  inner: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): { code: number; message: string; details: ErrorDetail[] } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

// gRPC status codes used by the gateway.
const INVALID_ARGUMENT = 3;
const DEADLINE_EXCEEDED = 4;
const NOT_FOUND = 5;
const RESOURCE_EXHAUSTED = 8;
const UNIMPLEMENTED = 12;
const INTERNAL = 13;
const UNAVAILABLE = 14;

/** vega.ErrorDetail code of invalid pagination, the same for every operation (theirs are in their folders). */
const INVALID_PAGINATION_DETAIL = 10028;

function detail(code: number, message: string, inner = ''): ErrorDetail {
  return { '@type': 'type.googleapis.com/vega.ErrorDetail', code, message, inner };
}

/** A query string the gateway could not parse into the request message. */
export const parseError = (message: string) => new ApiError(400, INVALID_ARGUMENT, message);

export const invalidPagination = (reason: string) =>
  new ApiError(400, INVALID_ARGUMENT, 'InvalidArgument error', [detail(INVALID_PAGINATION_DETAIL, 'invalid pagination', reason)]);

/** An invalid argument reported by an operation, with its detail code, message and inner text. */
export const invalidArgument = (code: number, message: string, inner = '') =>
  new ApiError(400, INVALID_ARGUMENT, 'InvalidArgument error', [detail(code, message, inner)]);

/** The service's own limits. */
export const urlTooLong = (length: number, limit: number) =>
  new ApiError(400, INVALID_ARGUMENT, `request URL too long: ${length} bytes, the limit is ${limit}`);
export const tooManyValues = (field: string, count: number, limit: number) =>
  new ApiError(400, INVALID_ARGUMENT, `too many values for field "${field}": ${count}, the limit is ${limit}`);
export const pagesTooLarge = (limit: number) =>
  new ApiError(
    400,
    RESOURCE_EXHAUSTED,
    `the operation's pages pass ${limit} bytes, the limit of one answer: ask fewer rows or root fields`,
  );
/** What Node refuses before a request is read (Fastify's clientErrorHandler): a head over its limit, or no HTTP at all. */
export const headTooLarge = (limit: number) =>
  new ApiError(431, INVALID_ARGUMENT, `request head too large: more than ${limit} bytes (the URL limit and 16 KiB of headers)`);
export const malformedRequest = () => new ApiError(400, INVALID_ARGUMENT, 'malformed HTTP request');
export const requestNotArrived = () => new ApiError(408, DEADLINE_EXCEEDED, 'the request did not arrive in time');
export const deadlineExceeded = (ms: number) => new ApiError(504, DEADLINE_EXCEEDED, `Deadline exceeded error: no answer within ${ms} ms`);
export const rateLimited = (max: number, windowMs: number, retrySeconds: number) =>
  new ApiError(
    429,
    RESOURCE_EXHAUSTED,
    `Resource exhausted error: more than ${max} requests in ${windowMs} ms from this client, retry in ${retrySeconds} s`,
  );

export const notFound = () => new ApiError(404, NOT_FOUND, 'Not Found');
export const methodNotAllowed = () => new ApiError(501, UNIMPLEMENTED, 'Method Not Allowed');
export const unavailable = () => new ApiError(503, UNAVAILABLE, 'Unavailable error');
/** An unexpected failure: the operation's detail code and nothing of the internals. */
export const internalError = (code: number, message: string) => new ApiError(500, INTERNAL, 'Internal error', [detail(code, message)]);
