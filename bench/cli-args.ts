import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { realShare } from './live-chain.js';
import { ROOT } from './paths.js';
import { selectScenarioIds } from './scenarios.js';
import { DEFAULT_DATABASE_URL, type StoreKind } from './stores.js';

type Options = NonNullable<ParseArgsConfig['options']>;
const HELP_OPTION = { help: { type: 'boolean', short: 'h', default: false } } as const;

/**
 * A bench command's options, parsed strictly, with `-h`/`--help` printing `help` and exiting 0;
 * a bad option, and every `fail` of the caller, print the message and `help` and exit 2.
 */
export function benchArgs<const T extends Options>(help: string, options: T) {
  const fail = (message: string): never => {
    process.stderr.write(`${message}\n\n${help}\n`);
    process.exit(2);
  };
  const parse = () =>
    parseArgs<{ options: T & typeof HELP_OPTION; strict: true }>({ options: { ...options, ...HELP_OPTION }, strict: true });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (err) {
    return fail((err as Error).message);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${help}\n`);
    process.exit(0);
  }
  return { values: parsed.values, fail };
}

/** The options every bench command takes alike: the server, the seed, the cache and results folders. */
export const COMMON_OPTIONS = {
  'database-url': { type: 'string' },
  seed: { type: 'string', default: '1' },
  cache: { type: 'string', default: join(ROOT, 'bench', '.cache') },
  out: { type: 'string', default: join(ROOT, 'bench', 'results') },
} as const;

/** The options of the bench commands on a moving chain (bench/live.ts, bench/http-cache.ts), with their defaults. */
export const LIVE_OPTIONS = {
  store: { type: 'string', default: 'postgres' },
  scale: { type: 'string', default: 'medium' },
  urls: { type: 'string', default: '2000' },
  'our-share': { type: 'string' },
  concurrency: { type: 'string', default: '32' },
  duration: { type: 'string', default: '20' },
  warmup: { type: 'string', default: '5' },
  'block-ms': { type: 'string', default: '1000' },
} as const;

/** The help of LIVE_OPTIONS. */
export const LIVE_HELP = `  --store postgres|pglite   store (default postgres: a database of its own on DATABASE_URL,
                            default ${DEFAULT_DATABASE_URL})
  --database-url URL        server to create the database on (default DATABASE_URL)
  --scale s                 demo chain (default medium; small for a quick look)
  --urls n                  distinct URLs of the Zipf traffic (default 2000)
  --our-share x             share of appended blocks carrying events of our kinds (default: the
                            real fixture's, 295 of 5,002 blocks; 1: the demo's blocks only)
  --concurrency c           connections (default 32; wrk runs 2 threads)
  --duration s              seconds per measurement (default 20)
  --warmup s                seconds of warm-up before each (default 5)
  --block-ms ms             one block appended every ms (default 1000)`;

/** The settings of LIVE_OPTIONS (and the reader of the command's other numeric options). */
export async function liveSettings<V extends Record<string, unknown>>(values: V, fail: (message: string) => never) {
  const num = numberOption(values, fail);
  const store = values.store as StoreKind;
  if (store !== 'postgres' && store !== 'pglite') fail('--store must be postgres or pglite');
  const ourShare = values['our-share'] === undefined ? await realShare() : { share: num('our-share', 0), source: 'as given' };
  if (!(ourShare.share > 0 && ourShare.share <= 1)) fail('--our-share must be in (0, 1]');
  return {
    num,
    store,
    databaseUrl: serverUrl(values['database-url'] as string | undefined),
    scale: values.scale as string,
    urls: num('urls', 1),
    ourShare,
    connections: num('concurrency', 1),
    duration: num('duration', 1),
    warmup: num('warmup', 0),
    blockMs: num('block-ms', 10),
    seed: num('seed', 0),
  };
}

/** A reader of numeric options: the value of --name, which must be a number ≥ min, else `fail`. */
export function numberOption<V extends Record<string, unknown>>(values: V, fail: (message: string) => never) {
  return (name: keyof V & string, min: number): number => {
    const n = Number(values[name]);
    if (!Number.isFinite(n) || n < min) fail(`--${name} must be a number ≥ ${min}`);
    return n;
  };
}

/** The values of a comma-separated option, empty ones left out. */
export const list = (text: string): string[] => text.split(',').filter(Boolean);

/** --response-cache: off, on or both (in the order given). */
export function cacheSettingsOption(text: string, fail: (message: string) => never): string[] {
  const caches = list(text);
  if (caches.length === 0 || caches.some((c) => c !== 'off' && c !== 'on')) fail('--response-cache must be off, on or both');
  return caches;
}

/** --scenarios: the scenario ids its patterns select (bench/scenarios.ts). */
export function scenarioIdsOption(text: string, fail: (message: string) => never): string[] {
  try {
    return selectScenarioIds(list(text));
  } catch (err) {
    return fail((err as Error).message);
  }
}

/** The PostgreSQL server: --database-url's, else DATABASE_URL's, else the local one. */
export const serverUrl = (option: string | undefined): string => option ?? process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;

/** A log of progress on stderr, each line with the seconds since the command started. */
export function progressLog(name: string): (text: string) => void {
  const started = Date.now();
  return (text) => process.stderr.write(`[${name} ${((Date.now() - started) / 1000).toFixed(0).padStart(5)} s] ${text}\n`);
}
