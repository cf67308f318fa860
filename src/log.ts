import pino, { type Logger } from 'pino';

/** Structured JSON logs on stdout; secrets never reach them (see maskDatabaseUrl). */
export function createLogger(level = 'info'): Logger {
  return pino({ level, base: { service: 'epochview' }, timestamp: pino.stdTimeFunctions.isoTime });
}
