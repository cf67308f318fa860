import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { FastifyInstance } from 'fastify';
import type { RoleState } from '../db/server-role.js';
import type { Store } from '../db/store.js';
import { timedStore } from '../db/timed-store.js';
import type { CacheEvent } from './response-cache.js';

/** What one ingestion transaction applied, as ingestion reports it (its AppliedBatch). */
export interface AppliedCounts {
  blocks: number;
  /** Applied events per kind. */
  applied: ReadonlyMap<string, number>;
  /** Skipped events per type. */
  skipped: ReadonlyMap<string, number>;
  lastHeight: bigint;
}

/** What the broker socket reports to the metrics (see BrokerSource). */
export interface BrokerGauges {
  connected: boolean;
  /** Height of the last BeginBlock received. */
  heightReceived: bigint | null;
  /** Bytes in the buffer files: received, not yet consumed. */
  bufferedBytes: number;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The service's Prometheus metrics, in a registry of their own (not prom-client's global one),
 * so that several servers in one process (tests) keep separate counts. One instance per process
 * in production: the HTTP layer, the store wrapper and the ingestion path all feed it.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'epochview_http_requests_total',
    help: 'HTTP requests answered, by operation and status',
    labelNames: ['operation', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'epochview_http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its answer, by operation and status',
    labelNames: ['operation', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly grpcRequests = new Counter({
    name: 'epochview_grpc_requests_total',
    help: 'gRPC calls of the TradingDataService answered, by method and status code name (OK, INVALID_ARGUMENT, …)',
    labelNames: ['method', 'code'] as const,
    registers: [this.registry],
  });

  readonly grpcDuration = new Histogram({
    name: 'epochview_grpc_request_duration_seconds',
    help: 'Time from receiving a gRPC call to its answer, by method and status code name',
    labelNames: ['method', 'code'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly storeDuration = new Histogram({
    name: 'epochview_store_query_duration_seconds',
    help: 'Store calls: standalone queries and whole transactions, by kind and outcome (ok, error, unavailable)',
    labelNames: ['kind', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly ingestEvents = new Counter({
    name: 'epochview_ingest_events_total',
    help: 'Bus events applied, by kind',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  readonly ingestSkipped = new Counter({
    name: 'epochview_ingest_skipped_events_total',
    help: 'Bus events of types this service does not read, by type, counted as applied (the broker socket counts most of them as received: epochview_broker_skipped_events_total)',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  readonly ingestBlocks = new Counter({
    name: 'epochview_ingest_blocks_total',
    help: 'Blocks applied',
    registers: [this.registry],
  });

  readonly ingestTransactions = new Counter({
    name: 'epochview_ingest_transactions_total',
    help: 'Transactions of ingestion committed, each of one or more whole blocks (blocks_total / transactions_total: blocks per transaction)',
    registers: [this.registry],
  });

  readonly ingestHeight = new Gauge({
    name: 'epochview_ingest_last_height',
    help: 'Height of the last block applied (the checkpoint)',
    // Alike in every worker of serve --workers (or known to its writer only): not summed.
    aggregator: 'max',
    registers: [this.registry],
  });

  readonly cacheRequests = new Counter({
    name: 'epochview_response_cache_requests_total',
    help: 'API requests by how the response cache answered: hit, shared (joined an identical request in flight), miss, bypass (off, or chain head unknown)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly cacheNotAdmitted = new Counter({
    name: 'epochview_response_cache_not_admitted_total',
    help: 'Misses whose answer was not kept (counted in the misses too), by reason: new (its URL asked for the first time within the admission window; kept on its next request), crowded (the cache full of answers asked more often per byte)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly storeBatches = new Counter({
    name: 'epochview_store_batches_total',
    help: "Statements that ran several requests' statements of one shape as one (see --statement-slots)",
    registers: [this.registry],
  });

  readonly storeBatched = new Counter({
    name: 'epochview_store_batched_statements_total',
    help: "Requests' statements that ran in a batch (the rest ran alone)",
    registers: [this.registry],
  });

  /** Feeds the batch counters; pass as Batching.onBatch. */
  readonly onStoreBatch = (members: number): void => {
    this.storeBatches.inc();
    this.storeBatched.inc(members);
  };

  readonly storeRole = new Gauge({
    name: 'epochview_store_role',
    help: 'The PostgreSQL server read from: 1 for its role (primary or standby, a hot standby replaying the primary), 0 for the other; absent for the embedded store',
    labelNames: ['role'] as const,
    // Alike in every worker of serve --workers (or known to its writer only): not summed.
    aggregator: 'max',
    registers: [this.registry],
  });

  readonly replayLag = new Gauge({
    name: 'epochview_store_replay_lag_bytes',
    help: 'On a hot standby: WAL bytes received from the primary and not replayed yet (0 once replay caught up, and on a primary)',
    // Alike in every worker of serve --workers (or known to its writer only): not summed.
    aggregator: 'max',
    registers: [this.registry],
  });

  private cacheSize: () => { bytes: number; entries: number } = () => ({ bytes: 0, entries: 0 });
  private rowCache: { hits: number; misses: number; bytes: number } = { hits: 0, misses: 0, bytes: 0 };

  readonly rowCachePages = new Counter({
    name: 'epochview_row_cache_pages_total',
    help: "Pages of referral sets, reward summaries and team statistics by where their rows' text came from: hit (all kept), miss (some asked of the store, then kept)",
    labelNames: ['outcome'] as const,
    registers: [this.registry],
    collect: (): void => {
      this.rowCachePages.reset();
      this.rowCachePages.inc({ outcome: 'hit' }, this.rowCache.hits);
      this.rowCachePages.inc({ outcome: 'miss' }, this.rowCache.misses);
    },
  });

  readonly rowCacheBytes: Gauge = new Gauge({
    name: 'epochview_row_cache_bytes',
    help: 'Bytes of rendered rows the row cache holds (texts and an estimate of their overhead)',
    registers: [this.registry],
    collect: (): void => this.rowCacheBytes.set(this.rowCache.bytes),
  });

  /** The last block applied, for the broker's lag. */
  private heightApplied: bigint | null = null;

  /** The broker socket's counters, registered by watchBroker (absent without a broker socket). */
  private broker: { frames: Counter; bytes: Counter; skipped: Counter<'type'> } | undefined;

  readonly cacheBytes: Gauge = new Gauge({
    name: 'epochview_response_cache_bytes',
    help: 'Bytes the response cache holds (bodies, gzipped bodies once sent, URLs and an estimate of their overhead)',
    registers: [this.registry],
    collect: (): void => this.cacheBytes.set(this.cacheSize().bytes),
  });

  readonly cacheEntries: Gauge = new Gauge({
    name: 'epochview_response_cache_entries',
    help: 'Responses the response cache holds',
    registers: [this.registry],
    collect: (): void => this.cacheEntries.set(this.cacheSize().entries),
  });

  constructor() {
    // Process metrics under their usual names (process_*, nodejs_*), as dashboards expect them.
    collectDefaultMetrics({ register: this.registry });
  }

  /** The store with every query and transaction timed into storeDuration. */
  instrumentStore(store: Store): Store {
    return timedStore(store, (kind, seconds, outcome) => this.storeDuration.observe({ kind, outcome }, seconds));
  }

  /** Feeds the ingest counters; pass as IngestOptions.onApplied. */
  readonly onApplied = (batch: AppliedCounts): void => {
    for (const [kind, n] of batch.applied) this.ingestEvents.inc({ kind }, n);
    for (const [type, n] of batch.skipped) this.ingestSkipped.inc({ type }, n);
    this.ingestBlocks.inc(batch.blocks);
    this.ingestTransactions.inc();
    this.ingestHeight.set(Number(batch.lastHeight));
    this.heightApplied = batch.lastHeight;
  };

  /** Sets the height gauge from the checkpoint found at start. */
  setHeight(height: bigint | null): void {
    if (height !== null) this.ingestHeight.set(Number(height));
    this.heightApplied = height;
  }

  /**
   * Registers the broker socket's metrics: frames and bytes received (fed by onBrokerReceived),
   * and from `gauges` at each scrape whether a core is connected, the height received, the lag
   * behind it of the height applied (epochview_ingest_last_height) and the bytes buffered.
   */
  watchBroker(gauges: () => BrokerGauges): void {
    const registers = [this.registry];
    this.broker = {
      frames: new Counter({
        name: 'epochview_broker_frames_received_total',
        help: 'Broker socket: frames (bus events) received from the core',
        registers,
      }),
      bytes: new Counter({
        name: 'epochview_broker_received_bytes_total',
        help: 'Broker socket: bytes received from the core after the handshake (frame headers included)',
        registers,
      }),
      skipped: new Counter({
        name: 'epochview_broker_skipped_events_total',
        help: 'Broker socket: events of types this service does not read, by type, counted as received and left out of the buffer files (a block the core sends again counts again)',
        labelNames: ['type'] as const,
        registers,
      }),
    };
    const gauge = (name: string, help: string, value: (g: BrokerGauges) => number) => {
      const g: Gauge = new Gauge({ name, help, registers, collect: (): void => g.set(value(gauges())) });
    };
    gauge('epochview_broker_connected', 'Broker socket: 1 while a core is connected, else 0', (g) => (g.connected ? 1 : 0));
    gauge('epochview_broker_height_received', 'Broker socket: height of the last BeginBlock received (0 before the first)', (g) =>
      Number(g.heightReceived ?? 0n),
    );
    gauge(
      'epochview_broker_lag_blocks',
      'Broker socket: blocks received and not applied yet (height received less height applied; 0 when either is unknown or behind)',
      (g) => {
        const applied = this.heightApplied;
        return g.heightReceived === null || applied === null || g.heightReceived < applied ? 0 : Number(g.heightReceived - applied);
      },
    );
    gauge(
      'epochview_broker_buffered_bytes',
      'Broker socket: bytes in the buffer files, received and not yet consumed',
      (g) => g.bufferedBytes,
    );
  }

  /** Counts frames received on the broker socket, and the skipped events left out of its buffer; pass as BrokerOptions.onReceived. */
  readonly onBrokerReceived = (frames: number, bytes: number, skipped: ReadonlyMap<string, number>): void => {
    this.broker?.frames.inc(frames);
    this.broker?.bytes.inc(bytes);
    for (const [type, n] of skipped) this.broker?.skipped.inc({ type }, n);
  };

  /** Registers the GraphQL upstream's gauges, read from `status` at each scrape. */
  watchGraphqlUpstream(status: () => { state: string; learnt: number }): void {
    const registers = [this.registry];
    const up: Gauge = new Gauge({
      name: 'epochview_graphql_upstream_up',
      help: 'GraphQL upstream: 1 while its last request or introspection answered, else 0',
      registers,
      collect: (): void => up.set(status().state === 'up' ? 1 : 0),
    });
    const learnt: Gauge = new Gauge({
      name: 'epochview_graphql_upstream_schemas_learnt',
      help: 'GraphQL upstream: schemas learnt by introspection since start (a changed schema counts again)',
      registers,
      collect: (): void => learnt.set(status().learnt),
    });
  }

  /** Feeds the role gauges; pass as the chain head watch's onRole. */
  readonly onRole = (state: RoleState): void => {
    this.storeRole.set({ role: 'primary' }, state.role === 'primary' ? 1 : 0);
    this.storeRole.set({ role: 'standby' }, state.role === 'standby' ? 1 : 0);
    this.replayLag.set(state.replayLagBytes ?? 0);
  };

  readonly onCacheOutcome = (event: CacheEvent): void => {
    if (event === 'not-admitted-new') this.cacheNotAdmitted.inc({ reason: 'new' });
    else if (event === 'not-admitted-crowded') this.cacheNotAdmitted.inc({ reason: 'crowded' });
    else this.cacheRequests.inc({ outcome: event });
  };

  /** The cache whose size the gauges report. */
  watchResponseCache(cache: { size: { bytes: number; entries: number } }): void {
    this.cacheSize = () => cache.size;
  }

  watchRowCache(cache: { hits: number; misses: number; bytes: number }): void {
    this.rowCache = cache;
  }

  /** The request series of each operation and status, bound once: finding them by labels hashes the labels each time. */
  private readonly requestSeries = new Map<string, { count: { inc(): void }; duration: { observe(seconds: number): void } }>();

  /** A gRPC call: its method, the name of its status code, its time. */
  observeGrpcCall(method: string, code: string, seconds: number): void {
    this.observeSeries(`grpc ${method} ${code}`, this.grpcRequests, this.grpcDuration, { method, code }, seconds);
  }

  observeRequest(operation: string, status: number, seconds: number): void {
    this.observeSeries(`${operation} ${status}`, this.httpRequests, this.httpDuration, { operation, status: String(status) }, seconds);
  }

  /** Counts a request and observes its time in the series of `labels`, bound once under `key`. */
  private observeSeries<L extends string>(
    key: string,
    requests: Counter<L>,
    duration: Histogram<L>,
    labels: Record<L, string>,
    seconds: number,
  ): void {
    let series = this.requestSeries.get(key);
    if (!series) {
      series = { count: requests.labels(labels), duration: duration.labels(labels) };
      this.requestSeries.set(key, series);
    }
    series.count.inc();
    series.duration.observe(seconds);
  }
}

/**
 * GET /metrics: the registry in Prometheus' text format, or `text()` (the metrics of every
 * process of a cluster). Requests are observed in server.ts.
 */
export function registerMetrics(
  app: FastifyInstance,
  metrics: Metrics,
  text: () => Promise<string> = () => metrics.registry.metrics(),
): void {
  app.get('/metrics', { config: { operation: 'metrics' } }, async (_request, reply) => {
    const body = await text();
    return reply.header('content-type', metrics.registry.contentType).header('cache-control', 'no-store').send(body);
  });
}
