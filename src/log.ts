import pino, { type Logger } from 'pino';
import { maskDatabaseUrl } from './db/store.js';
import type { RequestLine } from './http/server.js';

/**
 * Log lines are written to stdout in batches of this many bytes, or after LOG_FLUSH_MS: one
 * write per request line was a tenth of serve's CPU on small pages. A warning or an error is
 * written at once, with the lines before it: it is what an operator watches for, and what a
 * crash must not take with it. What is left is written when the process exits (pino flushes its
 * destination on exit, and LineBatch hands it what it holds first).
 */
const LOG_BATCH_BYTES = 12_288;
const LOG_FLUSH_MS = 100;
/** Lines are handed to the destination this many characters at a time (see LineBatch). */
const LINE_BATCH_CHARS = 4096;
const WARN = pino.levels.values.warn!;
const INFO = pino.levels.values.info!;

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
  const lines = new LineBatch(stdout);
  const logger = pino(
    {
      level,
      hooks: {
        logMethod(args, method, levelValue) {
          method.apply(this, args);
          if (levelValue >= WARN) lines.flush();
        },
      },
      base: { service: 'epochview' },
      timestamp: isoTimeOncePerMs(),
      serializers: {
        databaseUrl: masked,
        settings: (settings: Record<string, unknown>) =>
          'databaseUrl' in settings ? { ...settings, databaseUrl: masked(settings.databaseUrl) } : settings,
      },
    },
    lines,
  );
  batches.set(logger, lines);
  return logger;
}

/** The line batches of the loggers createLogger made, for writeRequestLine. */
const batches = new WeakMap<Logger, LineBatch>();

/**
 * Writes a request's line at info, byte for byte what `logger.child({ reqId }).info(line,
 * 'request')` writes: for a logger createLogger made, the line is put together here, since
 * pino's general path (its hook, rest arguments, serializer lookups per key, message format) was
 * most of a lookup's logging cost; for any other logger, by pino.
 */
export function writeRequestLine(logger: Logger, reqId: string, line: RequestLine): void {
  const batch = batches.get(logger);
  if (batch === undefined || !logger.isLevelEnabled('info')) {
    logger.child({ reqId }).info(line, 'request');
    return;
  }
  const { lsCacheSym, timeSym, chindingsSym } = pino.symbols;
  const loggerFields = logger as unknown as Record<symbol, unknown>;
  const levelText = (loggerFields[lsCacheSym] as Record<number, string>)[INFO];
  const time = (loggerFields[timeSym] as () => string)();
  batch.write(
    `${levelText}${time}${loggerFields[chindingsSym] as string},"reqId":${jsonString(reqId)},"operation":${jsonString(line.operation)},"method":${jsonString(line.method)},"url":${jsonString(line.url)},"route":${line.route === null ? 'null' : jsonString(line.route)},"status":${line.status},"ms":${Number.isFinite(line.ms) ? line.ms : 'null'},"msg":"request"}\n`,
  );
}

/**
 * What JSON.stringify escapes in a string: quotes, backslashes, control characters, and lone
 * surrogates (any surrogate here, to be safe). pino leaves a short string's lone surrogate raw;
 * a URL, as Node reads it, holds none.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON.stringify escapes control characters, so this must find them
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify(s), without its call for the strings that need no escape (most). */
function jsonString(s: string): string {
  return ESCAPED.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/** Batches holding lines, handed to their destinations when the process exits. */
const holding = new Set<LineBatch>();
process.once('exit', () => {
  for (const batch of holding) {
    try {
      batch.flushSync();
    } catch {
      // stdout is gone (a closed pipe): nothing can take the lines any more.
    }
  }
});

/**
 * pino's stream: lines gathered and handed to the destination (SonicBoom) a few KB at a time.
 * SonicBoom measures the UTF-8 length of the whole text it holds on every write, so line by
 * line a request's log line cost 2.3 µs there (measured: 0.1 µs gathered here).
 */
class LineBatch {
  private lines: string[] = [];
  private chars = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly out: ReturnType<typeof pino.destination>) {}

  write(line: string): boolean {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= LINE_BATCH_CHARS) {
      this.handOff();
    } else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), LOG_FLUSH_MS).unref();
      holding.add(this);
    }
    return true;
  }

  /** Starts writing everything held, here and in the destination. */
  flush(): void {
    this.handOff();
    this.out.flush();
  }

  /** Writes everything held before returning (at exit). */
  flushSync(): void {
    this.handOff();
    this.out.flushSync();
  }

  private handOff(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    holding.delete(this);
    if (this.lines.length === 0) return;
    const text = this.lines.join('');
    this.lines = [];
    this.chars = 0;
    this.out.write(text);
  }
}
