import pino, { type Logger } from 'pino';
import { maskDatabaseUrl } from './db/store.js';

/**
 * Structured JSON logs on stdout. Secrets never reach them: a database URL logged under
 * `databaseUrl` (anywhere up to two levels deep) has its password masked, and the store's
 * location is masked where it is made (maskDatabaseUrl).
 */
export function createLogger(level = 'info'): Logger {
  return pino({
    level,
    base: { service: 'epochview' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['databaseUrl', '*.databaseUrl'],
      censor: (value: unknown) => (typeof value === 'string' ? maskDatabaseUrl(value) : value),
    },
  });
}
