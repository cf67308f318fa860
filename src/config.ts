import { parseArgs } from 'node:util';
import { DEFAULT_STATEMENT_SLOTS } from './db/statement-batches.js';
import { maskDatabaseUrl } from './db/store.js';
import { DEFAULT_LIMITS } from './http/limits.js';
import { DEFAULT_BATCH_EVENTS, DEFAULT_MAX_BLOCK_EVENTS } from './ingest/blocks.js';
import { DEFAULT_RESPONSE_CACHE_BYTES } from './http/response-cache.js';
import { DEFAULT_ROW_CACHE_BYTES } from './pagination/row-cache.js';

/**
 * Every setting in one table: each has a flag and an environment variable (the flag wins),
 * a default and a line of help. The CLI help and the README's configuration table come from here.
 */
export interface SettingSpec {
  flag: string;
  env: string;
  kind: 'string' | 'int' | 'bool';
  default?: string;
  help: string;
  /** An int's range, refused outside it at parse time (default 0 to 2^53−1, past which a number is not exact). */
  min?: number;
  max?: number;
  /** A string's allowed values. */
  oneOf?: readonly string[];
  /** A string's own check: why the value is refused (the value shown as `shown` gives it), or undefined. */
  check?: (raw: string) => string | undefined;
  /** How a refused value is echoed (a URL's password masked); default as given. */
  shown?: (raw: string) => string;
}

/**
 * The longest delay in ms a timer can wait (setTimeout fires a longer one at once) and the
 * largest PostgreSQL's statement_timeout takes: 2^31−1, about 24.8 days.
 */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/** The most MiB whose count of bytes is still an exact number. */
const MAX_MB = Math.floor(Number.MAX_SAFE_INTEGER / 2 ** 20);
const MAX_PORT = 65535;
/** The URL schemes pg connects with. */
const POSTGRES_PROTOCOLS = ['postgres:', 'postgresql:', 'socket:'];

export const SETTINGS = {
  databaseUrl: {
    flag: 'database-url',
    env: 'DATABASE_URL',
    kind: 'string',
    help: 'PostgreSQL server URL; when unset the embedded store (PGlite) in --data-dir is used',
    // A mistyped URL was retried for ever as a host named "base" (pg reads a non-URL so), or
    // stopped the start with a bare "Invalid URL".
    check: (raw) => {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        return 'is not a URL (postgres://user:password@host:port/database)';
      }
      if (!POSTGRES_PROTOCOLS.includes(url.protocol)) return `is a ${url.protocol} URL, not postgres: or postgresql: (or socket:)`;
      return undefined;
    },
    shown: maskDatabaseUrl,
  },
  dataDir: { flag: 'data-dir', env: 'EPOCHVIEW_DATA_DIR', kind: 'string', default: './data', help: 'folder of the embedded store' },
  port: { flag: 'port', env: 'PORT', kind: 'int', default: '3008', help: 'serve: HTTP port', max: MAX_PORT },
  host: { flag: 'host', env: 'HOST', kind: 'string', default: '0.0.0.0', help: 'serve: HTTP listen address (0.0.0.0: every interface)' },
  grpcPort: {
    flag: 'grpc-port',
    env: 'EPOCHVIEW_GRPC_PORT',
    kind: 'int',
    help: "serve: also answer gRPC on this port (the data-node's TradingDataService for the operations of the REST API, with reflection and health; the data-node's is 3007); unset: no gRPC",
    max: MAX_PORT,
  },
  grpcHost: {
    flag: 'grpc-host',
    env: 'EPOCHVIEW_GRPC_HOST',
    kind: 'string',
    help: 'serve: gRPC listen address; unset: the HTTP one (--host)',
  },
  logLevel: {
    flag: 'log-level',
    env: 'LOG_LEVEL',
    kind: 'string',
    default: 'info',
    help: 'serve: the least level logged',
    // pino's levels: another name stopped serve with pino's own error (exit 1).
    oneOf: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
  },
  demoOnEmpty: {
    flag: 'demo-on-empty',
    env: 'EPOCHVIEW_DEMO_ON_EMPTY',
    kind: 'bool',
    help: 'serve: ingest the small demo chain into an empty store (default: on for the embedded store, off for a server)',
  },
  batchEvents: {
    flag: 'batch-events',
    env: 'EPOCHVIEW_BATCH_EVENTS',
    kind: 'int',
    default: String(DEFAULT_BATCH_EVENTS),
    help: 'ingest, serve --follow, serve --broker-listen: events per transaction while catching up',
    min: 1,
  },
  maxBlockEvents: {
    flag: 'max-block-events',
    env: 'EPOCHVIEW_MAX_BLOCK_EVENTS',
    kind: 'int',
    default: String(DEFAULT_MAX_BLOCK_EVENTS),
    help: 'ingest, serve --follow, serve --broker-listen: events of ours one block may hold (a block is kept in memory until its end); a block with more stops ingestion',
    min: 1,
  },
  poolSize: {
    flag: 'pool-size',
    env: 'EPOCHVIEW_POOL_SIZE',
    kind: 'int',
    default: '10',
    help: 'connections to a PostgreSQL server',
    min: 1,
  },
  statementSlots: {
    flag: 'statement-slots',
    env: 'EPOCHVIEW_STATEMENT_SLOTS',
    kind: 'int',
    default: String(DEFAULT_STATEMENT_SLOTS),
    help: "serve, PostgreSQL server: statements of one shape (a page of one operation, say) in flight at once; those arriving meanwhile wait and run together as one statement; cheap shapes run one at a time; about the server's cores; 0: every statement alone",
  },
  follow: {
    flag: 'follow',
    env: 'EPOCHVIEW_FOLLOW',
    kind: 'string',
    help: 'serve: keep ingesting this NDJSON or event file as it grows (like tail -f)',
  },
  followPollMs: {
    flag: 'follow-poll-ms',
    env: 'EPOCHVIEW_FOLLOW_POLL_MS',
    kind: 'int',
    default: '500',
    help: 'serve --follow: how often to look for new bytes, in ms',
    min: 1,
    max: MAX_TIMEOUT_MS,
  },
  brokerListen: {
    flag: 'broker-listen',
    env: 'EPOCHVIEW_BROKER_LISTEN',
    kind: 'string',
    help: "serve: listen at HOST:PORT for a Vega core's broker socket (its [Broker.Socket], nanomsg PAIR v0) and ingest what it sends",
  },
  brokerBufferDir: {
    flag: 'broker-buffer-dir',
    env: 'EPOCHVIEW_BROKER_BUFFER_DIR',
    kind: 'string',
    default: './broker-buffer',
    help: 'serve --broker-listen: folder of the buffer files every frame is written to before it is applied (one folder per store)',
  },
  chainId: {
    flag: 'chain-id',
    env: 'EPOCHVIEW_CHAIN_ID',
    kind: 'string',
    help: "serve --broker-listen: refuse events of another chain, before they are buffered; unset: the store's chain (the first it was given, kept), which ingestion enforces",
  },
  requestTimeoutMs: {
    flag: 'request-timeout-ms',
    env: 'EPOCHVIEW_REQUEST_TIMEOUT_MS',
    kind: 'int',
    default: String(DEFAULT_LIMITS.requestTimeoutMs),
    help: 'serve: answer 504 (code 4) after this many ms and cancel the statement on a server; 0: no limit',
    max: MAX_TIMEOUT_MS,
  },
  maxUrlLength: {
    flag: 'max-url-length',
    env: 'EPOCHVIEW_MAX_URL_LENGTH',
    kind: 'int',
    default: String(DEFAULT_LIMITS.maxUrlLength),
    help: 'serve: longest request URL (path and query) in bytes; longer is a 400',
    // The least: every path of ours with its ids, a cursor and a few parameters fits, and the health
    // probes always do. The most: a longer URL could not be held as a string (V8's longest is 2^29−24).
    min: 1024,
    max: 2 ** 29 - 24,
  },
  maxFilterValues: {
    flag: 'max-filter-values',
    env: 'EPOCHVIEW_MAX_FILTER_VALUES',
    kind: 'int',
    default: String(DEFAULT_LIMITS.maxFilterValues),
    help: 'serve: most values of one repeated parameter (e.g. filter.assetIds; GraphQL and gRPC lists too); more is a 400',
    // 0 would refuse a filter of one value, the plain case.
    min: 1,
  },
  responseCacheMb: {
    flag: 'response-cache-mb',
    env: 'EPOCHVIEW_RESPONSE_CACHE_MB',
    kind: 'int',
    default: String(DEFAULT_RESPONSE_CACHE_BYTES / 2 ** 20),
    help: 'serve: memory for answers kept until a block changes what they show (identical requests then cost no query), in MiB; 0: no cache',
    max: MAX_MB,
  },
  rowCacheMb: {
    flag: 'row-cache-mb',
    env: 'EPOCHVIEW_ROW_CACHE_MB',
    kind: 'int',
    default: String(DEFAULT_ROW_CACHE_BYTES / 2 ** 20),
    help: "serve: memory for the text of page rows (referral sets, reward summaries, team members' statistics) kept by version, so that pages move only the versions of their rows from the store, in MiB; 0: none",
    max: MAX_MB,
  },
  rateLimitMax: {
    flag: 'rate-limit-max',
    env: 'EPOCHVIEW_RATE_LIMIT_MAX',
    kind: 'int',
    default: String(DEFAULT_LIMITS.rateLimitMax),
    help: 'serve: API requests per client IP per window (gRPC calls too), then 429 (code 8); 0: no rate limit',
  },
  rateLimitWindowMs: {
    flag: 'rate-limit-window-ms',
    env: 'EPOCHVIEW_RATE_LIMIT_WINDOW_MS',
    kind: 'int',
    default: String(DEFAULT_LIMITS.rateLimitWindowMs),
    help: 'serve: the rate limit window, in ms',
    min: 1,
    max: MAX_TIMEOUT_MS,
  },
  trustProxy: {
    flag: 'trust-proxy',
    env: 'EPOCHVIEW_TRUST_PROXY',
    kind: 'string',
    help: "serve: proxies whose X-Forwarded-For names the client (for the rate limit): addresses, CIDR ranges, loopback, linklocal or uniquelocal, comma-separated, or a number of hops; unset: the connection's own address",
  },
  graphqlUpstream: {
    flag: 'graphql-upstream',
    env: 'EPOCHVIEW_GRAPHQL_UPSTREAM',
    kind: 'string',
    help: "serve: a data-node's /graphql URL that answers the GraphQL fields this service does not own (epoch, party, markets, …); learnt by introspection; unset: those fields are unknown (422)",
  },
  startupTimeoutMs: {
    flag: 'startup-timeout-ms',
    env: 'EPOCHVIEW_STARTUP_TIMEOUT_MS',
    kind: 'int',
    default: '0',
    help: 'serve, ingest, migrate: how long to wait for an unreachable PostgreSQL server (and serve for a schema that is behind) before exiting 1; 0: wait forever',
    max: MAX_TIMEOUT_MS,
  },
  shutdownTimeoutMs: {
    flag: 'shutdown-timeout-ms',
    env: 'EPOCHVIEW_SHUTDOWN_TIMEOUT_MS',
    kind: 'int',
    default: '30000',
    help: 'serve: on SIGTERM/SIGINT, how long requests in flight may take before the process exits anyway (code 1); 0: no limit',
    max: MAX_TIMEOUT_MS,
  },
  workers: {
    flag: 'workers',
    env: 'EPOCHVIEW_WORKERS',
    kind: 'int',
    default: '1',
    help: 'serve: processes answering on the one port (node:cluster), each with its pool and response cache; the writer (--follow, demo seeding) runs in worker 1 only; more than 1 needs a PostgreSQL server',
    min: 1,
  },
} as const satisfies Record<string, SettingSpec>;

export type SettingName = keyof typeof SETTINGS;
type ValueOf<S extends SettingSpec> = S['kind'] extends 'int' ? number : S['kind'] extends 'bool' ? boolean : string;
/** A setting's value: always there when it has a default, else possibly unset. */
type Resolved<S extends SettingSpec> = S extends { default: string } ? ValueOf<S> : ValueOf<S> | undefined;
export type Settings = { [K in SettingName]: Resolved<(typeof SETTINGS)[K]> };

export class UsageError extends Error {
  override name = 'UsageError';
}

/** A usage error about one setting, named by its flag and its environment variable. */
export function settingError(name: SettingName, message: string): UsageError {
  const spec: SettingSpec = SETTINGS[name];
  return new UsageError(`--${spec.flag} (${spec.env}): ${message}`);
}

/** What a setting of each kind takes, in words, and a value of it for an example. */
const KIND_WORDS: Record<SettingSpec['kind'], { takes: string; example: string }> = {
  int: { takes: 'a non-negative integer', example: '<n>' },
  bool: { takes: 'true or false', example: 'true' },
  string: { takes: 'a value', example: '<value>' },
};

/** Whether a setting takes less than its kind does (a range, or a list of values): its help says what. */
const bounded = (spec: SettingSpec) => spec.min !== undefined || spec.max !== undefined || spec.oneOf !== undefined;

/** What a setting takes, in words: its kind's, narrowed by its range or its values. */
export function takes(spec: SettingSpec): string {
  if (spec.oneOf) return `one of ${spec.oneOf.join(', ')}`;
  if (!bounded(spec)) return KIND_WORDS[spec.kind].takes;
  const min = spec.min ?? 0;
  if (spec.max === undefined) return min === 1 ? 'a positive integer' : `an integer of at least ${min}`;
  return `an integer from ${min} to ${spec.max}`;
}

function convert(spec: SettingSpec, raw: string): number | boolean | string {
  const refuse = () => new UsageError(`--${spec.flag} (${spec.env}) must be ${takes(spec)}, got "${raw}"`);
  if (spec.kind === 'int') {
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < (spec.min ?? 0) || n > (spec.max ?? Number.MAX_SAFE_INTEGER)) throw refuse();
    return n;
  }
  if (spec.kind === 'bool') {
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    throw refuse();
  }
  if (spec.oneOf && !spec.oneOf.includes(raw)) throw refuse();
  const why = spec.check?.(raw);
  if (why !== undefined) throw new UsageError(`--${spec.flag} (${spec.env}) ${why}: "${(spec.shown ?? String)(raw)}"`);
  return raw;
}

/**
 * parseArgs' word on bad flags; a setting given without its value (last, or followed by another
 * flag) is told what it takes, since parseArgs speaks of ambiguous arguments and '--flag=-XYZ'.
 */
function usageOf(err: Error & { code?: string }): string {
  const flag = err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' ? /^Option '--([a-z-]+)/.exec(err.message)?.[1] : undefined;
  const spec = Object.values(SETTINGS as Record<string, SettingSpec>).find((s) => s.flag === flag);
  if (!spec) return err.message;
  return `--${spec.flag} takes ${takes(spec)}: --${spec.flag} ${KIND_WORDS[spec.kind].example}`;
}

/**
 * Reads the settings `names` from argv flags, then the environment, then defaults; returns
 * them with the remaining positional arguments. Unknown flags are a usage error.
 */
export function readSettings<N extends SettingName>(
  names: readonly N[],
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  extraFlags: Record<string, { type: 'string' | 'boolean'; short?: string }> = {},
): { settings: Pick<Settings, N>; positionals: string[]; extra: Record<string, string | boolean | undefined> } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { ...extraFlags };
  for (const n of names) options[SETTINGS[n].flag] = { type: 'string' };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(usageOf(err as Error & { code?: string }));
  }
  const settings = {} as Record<string, unknown>;
  for (const n of names) {
    const spec: SettingSpec = SETTINGS[n];
    // An empty value is no value (--flag= in a script, VAR= in a unit file): the next source's, then the default.
    const given = [parsed.values[spec.flag] as string | undefined, env[spec.env]].find((v) => v !== undefined && v !== '') ?? spec.default;
    settings[n] = given === undefined ? undefined : convert(spec, given);
  }
  const extra: Record<string, string | boolean | undefined> = {};
  for (const k of Object.keys(extraFlags)) extra[k] = parsed.values[k] as string | boolean | undefined;
  return { settings: settings as Pick<Settings, N>, positionals: parsed.positionals, extra };
}

/** Help lines for a command's settings. */
export function settingsHelp(names: readonly SettingName[]): string {
  return names
    .map((n) => {
      const s: SettingSpec = SETTINGS[n];
      const notes = [...(s.default !== undefined ? [`default ${s.default}`] : []), ...(bounded(s) ? [takes(s)] : [])];
      const def = notes.length ? ` (${notes.join('; ')})` : '';
      return `${`  --${s.flag} <${s.kind === 'int' ? 'n' : s.kind === 'bool' ? 'bool' : 'value'}>`.padEnd(30)}${s.help}${def}; env ${s.env}`;
    })
    .join('\n');
}
