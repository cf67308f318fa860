import { ApiError, deadlineExceeded, internalError, unavailable } from '../contract/errors.js';
import { StoreTimeoutError, StoreUnavailableError } from '../db/store.js';
import type { AnyOperation } from './operation.js';

/** What a door answers when an operation fails, and the line it logs about it (none for a client's own error). */
export interface Failure {
  error: ApiError;
  log?: { level: 'warn' | 'error'; fields: object; msg: string };
}

/**
 * An operation's failure as the contract's error, the same for every door: a catalogue error as
 * it is, the store down as 503 UNAVAILABLE, a statement cancelled by the request timeout as 504
 * DEADLINE_EXCEEDED, and anything else as 500 with the operation's detail code and nothing of
 * the internals (which go to the log).
 */
export function failureOf(op: AnyOperation, err: unknown, requestTimeoutMs: number): Failure {
  const operation = op.name;
  if (err instanceof ApiError) {
    return err.status === 504
      ? { error: err, log: { level: 'warn', fields: { operation, timeoutMs: requestTimeoutMs }, msg: 'request timeout' } }
      : { error: err };
  }
  if (err instanceof StoreUnavailableError) {
    return { error: unavailable(), log: { level: 'warn', fields: { err: err.message, operation }, msg: 'store unavailable' } };
  }
  if (err instanceof StoreTimeoutError) {
    return {
      error: deadlineExceeded(requestTimeoutMs),
      log: { level: 'warn', fields: { err: err.message, operation }, msg: 'statement timeout' },
    };
  }
  return {
    error: internalError(op.errorCode, op.errorMessage),
    log: { level: 'error', fields: { err, operation }, msg: 'operation failed' },
  };
}
