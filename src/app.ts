import { openStore, type StoreOptions } from './db/open.js';
import { migrate } from './db/migrate.js';
import type { Store } from './db/store.js';
import { listEpochRewardSummaries } from './operations/epoch-summaries/index.js';
import { listReferralSets } from './operations/referral-sets/index.js';
import { listTeamMembersStatistics } from './operations/team-stats/index.js';
import type { Operation } from './operations/operation.js';

/** The operations the service answers. */
export const OPERATIONS: readonly Operation[] = [listReferralSets, listTeamMembersStatistics, listEpochRewardSummaries];

/** Opens the configured store and brings its schema up to date. */
export async function openMigratedStore(opts: StoreOptions): Promise<Store> {
  const store = await openStore(opts);
  try {
    await migrate(store);
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}
