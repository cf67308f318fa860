import pino, { type Logger } from 'pino';
import { maskDatabaseUrl } from './db/store.js';

/**
 * Log lines are written to stdout in batches of this many bytes, or after LOG_FLUSH_MS: one
 * write per request line was a tenth of serve's CPU on small pages. A warning or an error is
 * written at once, with the lines before it: it is what an operator watches for, and what a
 * crash must not take with it. What is left is written when the process exits (pino flushes its
 * destination on exit).
 */
const LOG_BATCH_BYTES = 12_288;
const LOG_FLUSH_MS = 100;
const WARN = pino.levels.values.warn!;

/** A database URL with its password masked; other values as they are. */
const masked = (value: unknown) => (typeof value === 'string' ? maskDatabaseUrl(value) : value);

/**
 * pino's ISO time, made once per millisecond: under load a dozen request lines share it, and
 * formatting a date per line was a fiftieth of the HTTP stack's CPU.
 */
function isoTimeOncePerMs(): () => string {
  let ms = -1;
  let text = '';
  return () => {
    const now = Date.now();
    if (now !== ms) {
      ms = now;
      text = `,"time":"${new Date(now).toISOString()}"`;
    }
    return text;
  };
}

/**
 * Structured JSON logs on stdout. Secrets never reach them: a database URL logged under
 * `databaseUrl`, alone or in `settings`, has its password masked, and the store's location is
 * masked where it is made (maskDatabaseUrl). (Serializers, which run for those keys only: pino's
 * redact paths run on every line, and cost the request lines a twentieth of the HTTP stack's CPU.)
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
      timestamp: isoTimeOncePerMs(),
      serializers: {
        databaseUrl: masked,
        settings: (settings: Record<string, unknown>) => ('databaseUrl' in settings ? { ...settings, databaseUrl: masked(settings.databaseUrl) } : settings),
      },
    },
    stdout,
  );
}
