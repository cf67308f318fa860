import { openMigratedStore } from './db/open.js';
import { OPERATIONS } from './operations/index.js';
import { settingError, type Settings } from './config.js';
import type { Store } from './db/store.js';
import { demoChain } from './demo/chain.js';
import { parseTrustProxy, type TrustProxy } from './http/limits.js';
import { buildServer } from './http/server.js';
import { FileFollower } from './ingest/follow.js';
import { readCheckpoint } from './ingest/ingest.js';
import { ingestWithReport } from './ingest/report.js';
import { createLogger } from './log.js';
import { Metrics } from './http/metrics.js';
import { ndjsonEvents } from './sources/ndjson/decoder.js';

/** The settings `serve` reads, in the order its help lists them. */
export const SERVE_SETTINGS = [
  'port',
  'host',
  'databaseUrl',
  'dataDir',
  'poolSize',
  'logLevel',
  'demoOnEmpty',
  'batchEvents',
  'follow',
  'followPollMs',
  'requestTimeoutMs',
  'maxUrlLength',
  'maxFilterValues',
  'responseCacheMb',
  'rateLimitMax',
  'rateLimitWindowMs',
  'trustProxy',
  'shutdownTimeoutMs',
] as const;

export type ServeSettings = Pick<Settings, (typeof SERVE_SETTINGS)[number]>;

/** A team id from the store for the example requests. */
async function sampleTeam(store: Store): Promise<string | undefined> {
  const rows = await store.query<{ team: string }>(
    `SELECT encode(team_id, 'hex') AS team FROM team_epochs GROUP BY team_id ORDER BY count(*) DESC, team_id LIMIT 1`,
  );
  return rows[0]?.team;
}

function readTrustProxy(text: string): TrustProxy {
  try {
    return parseTrustProxy(text);
  } catch (err) {
    throw settingError('trustProxy', (err as Error).message);
  }
}

function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
      resolve(signal);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
}

/**
 * `epochview serve`: the HTTP API over the configured store, optionally following a growing
 * file of bus events, until SIGTERM or SIGINT. Then no new connections are accepted, requests in
 * flight finish, the follower ends its transaction, the store closes, and the exit code is 0 (1
 * when that takes longer than --shutdown-timeout-ms).
 */
export async function serve(settings: ServeSettings, out: (text: string) => void): Promise<number> {
  const trustProxy = settings.trustProxy === undefined ? undefined : readTrustProxy(settings.trustProxy);
  const logger = createLogger(settings.logLevel);
  logger.info({ settings }, 'starting');
  const metrics = new Metrics();
  const store = metrics.instrumentStore(
    await openMigratedStore({
      databaseUrl: settings.databaseUrl,
      dataDir: settings.dataDir!,
      poolSize: settings.poolSize,
      statementTimeoutMs: settings.requestTimeoutMs,
    }),
  );
  logger.info({ store: store.location }, 'store ready');

  const checkpoint = await readCheckpoint(store);
  metrics.setHeight(checkpoint);
  const seedDemo = settings.demoOnEmpty ?? (store.kind === 'pglite' && settings.follow === undefined);
  if (seedDemo && checkpoint === null) {
    process.stderr.write('empty store: ingesting the small demo chain (seed 1)…\n');
    await ingestWithReport(store, ndjsonEvents(demoChain({ scale: 'small', seed: 1 })), { batchEvents: settings.batchEvents, onApplied: metrics.onApplied });
  }

  const app = await buildServer({
    store,
    operations: OPERATIONS,
    logger,
    metrics,
    responseCacheBytes: settings.responseCacheMb! * 2 ** 20,
    trustProxy,
    limits: {
      maxUrlLength: settings.maxUrlLength!,
      maxFilterValues: settings.maxFilterValues!,
      requestTimeoutMs: settings.requestTimeoutMs!,
      rateLimitMax: settings.rateLimitMax!,
      rateLimitWindowMs: settings.rateLimitWindowMs!,
    },
  });
  const follower =
    settings.follow === undefined
      ? undefined
      : new FileFollower(store, settings.follow, {
          pollMs: settings.followPollMs!,
          batchEvents: settings.batchEvents,
          onApplied: metrics.onApplied,
          logger: logger.child({ component: 'follow' }),
        });
  const signal = nextSignal();
  const address = await app.listen({ port: settings.port!, host: settings.host! });
  follower?.start();

  const base = address.replace('0.0.0.0', '127.0.0.1');
  out(
    [
      `epochview serving ${store.location} on ${address}` + (follower ? `, following ${follower.path}` : ''),
      'try:',
      `  curl '${base}/api/v2/referral-sets?pagination.first=3'`,
      `  curl '${base}/api/v2/teams/${(await sampleTeam(store).catch(() => undefined)) ?? '<teamId>'}/stats?aggregationEpochs=5'`,
      `  curl '${base}/api/v2/rewards/epoch/summaries?pagination.first=5'`,
      `  curl '${base}/readyz'   (and /healthz, /metrics)`,
    ].join('\n'),
  );

  logger.info({ signal: await signal }, 'shutting down: finishing requests in flight');
  const limitMs = settings.shutdownTimeoutMs!;
  const force =
    limitMs > 0
      ? setTimeout(() => {
          logger.error({ shutdownTimeoutMs: limitMs }, 'shutdown took too long: exiting with work in flight');
          process.exit(1);
        }, limitMs).unref()
      : undefined;
  await Promise.all([app.close(), follower?.stop()]);
  await store.close();
  clearTimeout(force);
  logger.info('stopped');
  return 0;
}
