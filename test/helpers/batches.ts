import type { BatchTuning } from '../../src/db/statement-batches.js';

/** Every text cheap, batches unbounded in time, no second batch: what runs together depends on arrivals alone. */
export const ARRIVALS_ONLY: BatchTuning = { cheapMemberMs: Infinity, batchBudgetMs: Infinity, secondBatchQuorum: Infinity };
