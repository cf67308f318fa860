import pino, { type Logger } from 'pino';
import { maskDatabaseUrl } from './db/store.js';

/**
 * Log lines are written to stdout in batches of this many bytes, or after LOG_FLUSH_MS: one
 * write per request line was a tenth of serve's CPU on small pages. A warning or an error is
 * written at once, with the lines before it: it is what an operator watches for, and what a
 * crash must not take with it. What is left is written when the process exits (pino flushes its
 * destination on exit).
 */
const LOG_BATCH_BYTES = 4096;
const LOG_FLUSH_MS = 100;
const WARN = pino.levels.values.warn!;

/**
 * Structured JSON logs on stdout. Secrets never reach them: a database URL logged under
 * `databaseUrl` (anywhere up to two levels deep) has its password masked, and the store's
 * location is masked where it is made (maskDatabaseUrl).
 */
export function createLogger(level = 'info'): Logger {
  const stdout = pino.destination({ dest: process.stdout.fd, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS });
  return pino(
    {
      level,
      hooks: {
        logMethod(args, method, levelValue) {
          method.apply(this, args);
          if (levelValue >= WARN) stdout.flush();
        },
      },
      base: { service: 'epochview' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['databaseUrl', '*.databaseUrl'],
        censor: (value: unknown) => (typeof value === 'string' ? maskDatabaseUrl(value) : value),
      },
    },
    stdout,
  );
}
