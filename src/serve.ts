import type { Logger } from 'pino';
import { assertSchemaCurrent, migrate, SchemaBehindError } from './db/migrate.js';
import { openStore } from './db/open.js';
import { SCHEMA } from './schema.js';
import { assertPrimary } from './db/server-role.js';
import type { Store } from './db/store.js';
import { waitForStore, waitUntilReachable, type WaitOptions } from './db/wait-for-store.js';
import { superviseWriter, WriterSession, type WriterWork } from './db/writer-lock.js';
import { ROUTES } from './http/routes.js';
import { settingError } from './config.js';
import { demoChain } from './demo/chain.js';
import { clientRateLimit, forwardedClient, type Limits, parseTrustProxy, type TrustProxy } from './http/limits.js';
import { buildServer, type ClusterMember, type Startup } from './http/server.js';
import { BrokerSource } from './ingest/broker.js';
import { FileFollower, type FollowStatus } from './ingest/follow.js';
import { readCheckpoint, type IngestOptions } from './ingest/ingest.js';
import { ingestWithReport } from './ingest/report.js';
import { createLogger, writeRequestLine } from './log.js';
import { Metrics } from './http/metrics.js';
import { ndjsonBatches } from './sources/ndjson/decoder.js';
import type { GrpcDoor } from './grpc/server.js';
import { RowCache } from './pagination/row-cache.js';
import type { ChainHead } from './pagination/result.js';
import type { ServeSettings } from './serve-settings.js';

/** serve as one of the processes of `serve --workers N` (src/cluster.ts). */
export interface WorkerRole {
  member: ClusterMember;
  /** Its metrics, in a registry the cluster's primary aggregates. */
  metrics: Metrics;
  /** Resolves when the primary asks it to shut down, with the signal the primary received. */
  stop: Promise<NodeJS.Signals>;
  /** Told once the store is ready. */
  onReady(): void;
}

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

interface ListenAddress {
  host: string;
  port: number;
}

/** `--broker-listen`: HOST:PORT, the host an IPv4 address, a name, or an IPv6 address in brackets. */
function readListenAddress(text: string): ListenAddress {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(text);
  const port = Number(m?.[2]);
  if (!m || port > 65535) throw settingError('brokerListen', `must be HOST:PORT (e.g. 0.0.0.0:3005, [::]:3005), got "${text}"`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
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

/** The store coming up behind a listening server: what it waits for, until it is ready. */
class StartupGate implements Startup {
  private why: string | undefined = 'starting';
  private open!: () => void;
  readonly ready = new Promise<void>((resolve) => (this.open = resolve));

  waitingFor(): string | undefined {
    return this.why;
  }

  waiting(why: string): void {
    this.why = why;
  }

  done(): void {
    this.why = undefined;
    this.open();
  }

  private followed!: () => void;
  /** Resolves once the server follows the chain head (see Startup.following). */
  readonly serving = new Promise<void>((resolve) => (this.followed = resolve));

  following(): void {
    this.followed();
  }
}

/** The writes of serve: seeding the demo into an empty store, and following a file or the broker socket. */
interface ServeWrites {
  seedDemo: boolean;
  /** The long-running writer (`serve --follow`, `serve --broker-listen`), started on the writer's store. */
  follow: { name: string; start: (writer: Store) => Promise<WriterWork>; failed?: (err: Error) => void } | undefined;
  onApplied: IngestOptions['onApplied'];
  /** Set once a writer runs: how to stop it. */
  stop: () => Promise<void>;
}

/**
 * Brings the store to ready, and starts the writer if there is one. A PostgreSQL server is
 * waited for while unreachable; a writer (seeding, following) must be on the primary and holds
 * the writer lock while it writes, migrating first; a reader only checks the schema, waiting for
 * a writer or `epochview migrate` while it is behind (so serve needs no write rights). The
 * embedded store is migrated and written in this process.
 */
async function prepareStore(
  store: Store,
  settings: ServeSettings,
  writes: ServeWrites,
  waits: (what: string) => WaitOptions,
  logger: Logger,
  gate: StartupGate,
): Promise<void> {
  const seed = async (writer: Store) => {
    if ((await readCheckpoint(writer)) !== null) return;
    process.stderr.write('empty store: ingesting the small demo chain (seed 1)…\n');
    await ingestWithReport(writer, ndjsonBatches(demoChain({ scale: 'small', seed: 1 })), {
      batchEvents: settings.batchEvents,
      maxBlockEvents: settings.maxBlockEvents,
      onApplied: writes.onApplied,
    });
  };
  if (store.kind === 'pglite') {
    await migrate(store, SCHEMA);
    if (writes.seedDemo) await seed(store);
    const follower = await writes.follow?.start(store);
    writes.stop = async () => follower?.stop();
    return;
  }

  gate.waiting('waiting for PostgreSQL');
  await waitUntilReachable(store, waits('store unreachable: retrying'));
  const url = settings.databaseUrl!;
  const lockLog = logger.child({ component: 'writer' });
  const onWait = (holder: string) => lockLog.warn({ holder }, 'waiting for the writer lock: another process writes to this database');
  if (writes.seedDemo || writes.follow) await assertPrimary(store, store.location, 'the writer');
  if (writes.seedDemo) {
    gate.waiting('seeding the demo chain');
    const writer = await WriterSession.acquire(url, { name: 'serve', wait: true, onWait, signal: waits('').signal });
    try {
      await migrate(writer, SCHEMA);
      await seed(writer);
    } finally {
      await writer.close();
    }
  }
  const follow = writes.follow;
  if (follow) {
    writes.stop = superviseWriter(
      url,
      {
        name: follow.name,
        wait: true,
        onWait,
        onRetry: (attempt, delayMs, cause) => lockLog.warn({ attempt, delayMs, err: cause.message }, 'writer: store unavailable, retrying'),
        onLost: (cause) => lockLog.error({ err: cause.message }, 'lost the writer lock: stopped writing; taking it again'),
        onError: (err) => {
          lockLog.error({ err: err.message }, 'writer stopped');
          follow.failed?.(err);
        },
      },
      async (session) => {
        lockLog.info({ store: session.location }, 'writer lock held');
        await migrate(session, SCHEMA);
        return follow.start(session);
      },
    );
  }
  gate.waiting('waiting for the schema to be up to date');
  await waitForStore(
    `the schema of ${store.location} was not brought up to date`,
    () => assertSchemaCurrent(store, SCHEMA),
    waits('waiting for the schema'),
    (err) => err instanceof SchemaBehindError,
  );
}

/**
 * The settings serve reads beyond their own values (a proxy list, an address, a conflict), read
 * or refused (a usage error, exit 2). The primary of --workers checks them too, before any worker
 * starts: each worker refused them alone, the help printed once per worker, and exit 1.
 */
export function checkedServeSettings(settings: ServeSettings): { trustProxy: TrustProxy | undefined; listen: ListenAddress | undefined } {
  const trustProxy = settings.trustProxy === undefined ? undefined : readTrustProxy(settings.trustProxy);
  const listen = settings.brokerListen === undefined ? undefined : readListenAddress(settings.brokerListen);
  if (listen && settings.follow !== undefined)
    throw settingError('brokerListen', 'cannot be combined with --follow: the store has one source of events');
  return { trustProxy, listen };
}

/**
 * `epochview serve`: the HTTP API over the configured store, optionally following a growing
 * file of bus events, until SIGTERM or SIGINT. The server listens at once: /healthz answers
 * while the store comes up, the API and /readyz answer 503 until it is ready. Then no new
 * connections are accepted, requests in flight finish, the follower ends its transaction, the
 * store closes, and the exit code is 0 (1 when that takes longer than --shutdown-timeout-ms).
 * When the store cannot be made ready (not within --startup-timeout-ms, or a writer pointed at a
 * hot standby) the server closes and the error is thrown.
 */
export async function serve(settings: ServeSettings, out: (text: string) => void, role?: WorkerRole): Promise<number> {
  const { trustProxy, listen } = checkedServeSettings(settings);
  const logger = role
    ? createLogger(settings.logLevel).child({ worker: role.member.worker, pid: process.pid })
    : createLogger(settings.logLevel);
  logger.info({ settings }, 'starting');
  const metrics = role?.metrics ?? new Metrics();
  const broker =
    listen &&
    new BrokerSource({
      ...listen,
      bufferDir: settings.brokerBufferDir,
      chainId: settings.chainId,
      batchEvents: settings.batchEvents,
      maxBlockEvents: settings.maxBlockEvents,
      onApplied: metrics.onApplied,
      onReceived: metrics.onBrokerReceived,
      logger: logger.child({ component: 'broker' }),
    });
  if (broker) {
    metrics.watchBroker(() => ({
      connected: broker.status().state === 'connected',
      heightReceived: broker.buffer.heightReceived,
      bufferedBytes: broker.buffer.bufferedBytes,
    }));
  }
  // From here on SIGTERM and SIGINT stop the process cleanly, also while the store opens (the
  // embedded store's first start takes seconds).
  const signal = role ? Promise.race([nextSignal(), role.stop]) : nextSignal();
  const shutdown = new AbortController();
  void signal.then(() => shutdown.abort());
  const store = metrics.instrumentStore(
    await openStore({
      databaseUrl: settings.databaseUrl,
      dataDir: settings.dataDir,
      poolSize: settings.poolSize,
      statementTimeoutMs: settings.requestTimeoutMs,
      batching: { slots: settings.statementSlots, onBatch: metrics.onStoreBatch },
    }),
  );
  if (shutdown.signal.aborted) {
    await store.close();
    logger.info('stopped before the store was open');
    return 0;
  }
  /** A start that fails before the server runs closes the store: PGlite's thread would hold the process. */
  const orClose = async <T>(step: Promise<T>): Promise<T> => {
    try {
      return await step;
    } catch (err) {
      await store.close();
      throw err;
    }
  };
  const gate = new StartupGate();
  // The follower is made once this process holds the writer lock; until then it waits for it.
  let follower: FileFollower | undefined;
  const followStatus = (): FollowStatus => follower?.status() ?? { kind: 'file', path: settings.follow!, state: 'waiting' };
  // The rendered rows kept by version, shared by the doors (the REST door clears them when the chain changes).
  const rowCache = settings.rowCacheMb > 0 ? new RowCache(settings.rowCacheMb * 2 ** 20) : undefined;
  // The head the REST door knows, for gRPC's errors.
  let currentHead = (): ChainHead | null => null;
  const limits: Limits = {
    maxUrlLength: settings.maxUrlLength,
    maxFilterValues: settings.maxFilterValues,
    requestTimeoutMs: settings.requestTimeoutMs,
    rateLimitMax: settings.rateLimitMax,
    rateLimitWindowMs: settings.rateLimitWindowMs,
  };
  const app = await orClose(
    buildServer({
      store,
      routes: ROUTES,
      logger,
      metrics,
      responseCacheBytes: settings.responseCacheMb * 2 ** 20,
      rowCacheBytes: settings.rowCacheMb * 2 ** 20,
      rowCache,
      onCurrentHead: (current) => {
        currentHead = current;
      },
      trustProxy,
      graphqlUpstream: settings.graphqlUpstream,
      startup: gate,
      member: role?.member,
      requestLog: (reqId, line) => writeRequestLine(logger, reqId, line),
      ...(broker ? { source: () => broker.status() } : settings.follow !== undefined ? { source: () => followStatus() } : {}),
      limits,
    }),
  );
  const address = await orClose(
    app.listen({ port: settings.port, host: settings.host }).catch(async (err: unknown) => {
      await app.close();
      throw err;
    }),
  );
  logger.info({ address, store: store.location }, 'listening; the API answers once the store is ready');
  let grpc: GrpcDoor | undefined;
  if (settings.grpcPort !== undefined) {
    // Loaded only when asked for: grpc-js and the .proto files cost every start about 150 ms of CPU.
    const { startGrpc } = await import('./grpc/server.js');
    try {
      grpc = await startGrpc(
        {
          store,
          rows: rowCache,
          requestTimeoutMs: settings.requestTimeoutMs,
          maxFilterValues: settings.maxFilterValues,
          // One count per client with the API routes' requests.
          rateLimit: clientRateLimit(app, limits),
          clientAddress: forwardedClient(trustProxy),
          waitingFor: () => gate.waitingFor(),
          currentHead: () => currentHead(),
          logger: logger.child({ component: 'grpc' }),
          worker: role?.member.worker,
          record: (call) => {
            metrics.observeGrpcCall(call.operation, call.codeName, call.ms / 1000);
            const ms = Math.round(call.ms * 100) / 100;
            writeRequestLine(logger, call.reqId, {
              operation: call.operation,
              method: 'gRPC',
              url: call.path,
              route: call.path,
              status: call.code,
              ms,
            });
          },
        },
        settings.grpcHost ?? settings.host,
        settings.grpcPort,
      );
    } catch (err) {
      await app.close();
      await store.close();
      // As for the HTTP port: a port taken is no usage error (exit 1, not 2 with the help).
      throw new Error(
        `gRPC (--grpc-port): cannot listen on ${settings.grpcHost ?? settings.host}:${settings.grpcPort}: ${(err as Error).message}`,
      );
    }
    logger.info({ address: grpc.address }, 'gRPC listening');
  }

  const following = settings.follow;
  const follow: ServeWrites['follow'] = broker
    ? {
        name: 'serve --broker-listen',
        // The core is listened for once this process is the writer, and from then on drained
        // whatever happens to the store or the lock; the buffer files are applied under the lock.
        start: async (writer) => {
          await broker.listen();
          return broker.applyTo(metrics.instrumentStore(writer));
        },
        failed: (err) => broker.fail(`the writer stopped: ${err.message}`),
      }
    : following === undefined
      ? undefined
      : {
          name: 'serve --follow',
          start: async (writer) => {
            follower = new FileFollower(metrics.instrumentStore(writer), following, {
              pollMs: settings.followPollMs,
              batchEvents: settings.batchEvents,
              maxBlockEvents: settings.maxBlockEvents,
              onApplied: metrics.onApplied,
              logger: logger.child({ component: 'follow' }),
            });
            follower.start();
            return follower;
          },
        };
  const seedDemo = settings.demoOnEmpty ?? (store.kind === 'pglite' && follow === undefined);
  const startedAt = Date.now();
  const waits = (msg: string): WaitOptions => ({
    // The one --startup-timeout-ms bounds every wait of the start together.
    timeoutMs: settings.startupTimeoutMs,
    startedAt,
    onRetry: (attempt, delayMs, cause) => logger.warn({ attempt, delayMs, err: cause.message }, msg),
    signal: shutdown.signal,
  });
  const writes: ServeWrites = { seedDemo, follow, onApplied: metrics.onApplied, stop: async () => {} };
  let startError: Error | undefined;
  try {
    await prepareStore(store, settings, writes, waits, logger, gate);
    const checkpoint = await readCheckpoint(store);
    metrics.setHeight(checkpoint);
    gate.done();
    // The banner says all is up: the answers are tagged for HTTP caches by then.
    await gate.serving;
    grpc?.ready();
    role?.onReady();
    logger.info({ store: store.location }, 'store ready');
    const base = address.replace('0.0.0.0', '127.0.0.1');
    out(
      [
        `epochview serving ${store.location} on ${address}` +
          (following !== undefined ? `, following ${following}` : '') +
          (broker ? `, listening for a Vega core's broker socket on ${broker.listenAddress}` : ''),
        // The explorer is there once the front-end is built (npm run build makes dist/web).
        ...(app.hasRoute({ method: 'GET', url: '/' }) ? [`explorer: ${base}/`] : []),
        `API docs: ${base}/docs`,
        `GraphQL: ${base}/graphql (GraphiQL in a browser)`,
        'try:',
        `  curl '${base}/api/v2/referral-sets?pagination.first=3'`,
        `  curl '${base}/api/v2/teams/${(await sampleTeam(store).catch(() => undefined)) ?? '<teamId>'}/stats?aggregationEpochs=5'`,
        `  curl '${base}/api/v2/rewards/epoch/summaries?pagination.first=5'`,
        `  curl '${base}/readyz'   (and /healthz, /metrics)`,
        ...(grpc
          ? [
              `gRPC: ${grpc.address} (datanode.api.v2.TradingDataService, with reflection and health)`,
              `  grpcurl -plaintext -d '{"pagination":{"first":3}}' ${grpc.address.replace('0.0.0.0', '127.0.0.1')} datanode.api.v2.TradingDataService/ListReferralSets`,
            ]
          : []),
      ].join('\n'),
    );
  } catch (err) {
    if (!shutdown.signal.aborted) {
      startError = err as Error;
      logger.error({ err: startError.message }, 'could not start');
    }
  }

  logger.info({ signal: startError ? undefined : await signal }, 'shutting down: finishing requests in flight');
  const limitMs = settings.shutdownTimeoutMs;
  const force =
    limitMs > 0
      ? setTimeout(() => {
          logger.error({ shutdownTimeoutMs: limitMs }, 'shutdown took too long: exiting with work in flight');
          process.exit(1);
        }, limitMs).unref()
      : undefined;
  await Promise.all([app.close(), grpc?.close(), writes.stop()]);
  await broker?.close();
  await store.close();
  clearTimeout(force);
  logger.info('stopped');
  if (startError) throw startError;
  return 0;
}
