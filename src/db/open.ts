import { PgliteStore } from './pglite-store.js';
import { PostgresStore } from './postgres-store.js';
import type { Batching } from './statement-batches.js';
import type { Store } from './store.js';

export interface StoreOptions {
  /** A PostgreSQL server; when absent, the embedded store in dataDir is used. */
  databaseUrl?: string | undefined;
  dataDir: string;
  poolSize?: number | undefined;
  /** PostgreSQL server: cancel standalone statements after this many ms (0: never). */
  statementTimeoutMs?: number | undefined;
  /** How one-row statements are batched (see StatementBatches); the embedded store takes onBatch only. */
  batching?: Batching;
}

/** The one place that decides which store a command talks to. */
export async function openStore(opts: StoreOptions): Promise<Store> {
  if (opts.databaseUrl) return new PostgresStore(opts.databaseUrl, opts.poolSize, opts.statementTimeoutMs, opts.batching);
  return PgliteStore.open(opts.dataDir, opts.batching?.onBatch);
}
