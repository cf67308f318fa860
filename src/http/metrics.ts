import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { FastifyInstance } from 'fastify';
import type { RoleState } from '../db/server-role.js';
import type { Store } from '../db/store.js';
import { timedStore } from '../db/timed-store.js';
import type { CacheOutcome } from './response-cache.js';

/** What one ingestion transaction applied, as ingestion reports it (its AppliedBatch). */
export interface AppliedCounts {
  blocks: number;
  /** Applied events per kind. */
  applied: ReadonlyMap<string, number>;
  /** Skipped events per type. */
  skipped: ReadonlyMap<string, number>;
  lastHeight: bigint;
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
    help: 'Bus events of types this service does not read, by type',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  readonly ingestBlocks = new Counter({
    name: 'epochview_ingest_blocks_total',
    help: 'Blocks applied',
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
    this.ingestHeight.set(Number(batch.lastHeight));
  };

  /** Sets the height gauge from the checkpoint found at start. */
  setHeight(height: bigint | null): void {
    if (height !== null) this.ingestHeight.set(Number(height));
  }

  /** Feeds the role gauges; pass as the chain head watch's onRole. */
  readonly onRole = (state: RoleState): void => {
    this.storeRole.set({ role: 'primary' }, state.role === 'primary' ? 1 : 0);
    this.storeRole.set({ role: 'standby' }, state.role === 'standby' ? 1 : 0);
    this.replayLag.set(state.replayLagBytes ?? 0);
  };

  readonly onCacheOutcome = (outcome: CacheOutcome): void => {
    this.cacheRequests.inc({ outcome });
  };

  /** The cache whose size the gauges report. */
  watchResponseCache(cache: { size: { bytes: number; entries: number } }): void {
    this.cacheSize = () => cache.size;
  }

  observeRequest(operation: string, status: number, seconds: number): void {
    const labels = { operation, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }
}

/**
 * GET /metrics: the registry in Prometheus' text format, or `text()` (the metrics of every
 * process of a cluster). Requests are observed in server.ts.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, text: () => Promise<string> = () => metrics.registry.metrics()): void {
  app.get('/metrics', { config: { operation: 'metrics' } }, async (_request, reply) => {
    const body = await text();
    return reply.header('content-type', metrics.registry.contentType).header('cache-control', 'no-store').send(body);
  });
}
