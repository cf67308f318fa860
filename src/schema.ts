import { loadMigrations, migrate, type Schema } from './db/migrate.js';
import { openStore, type StoreOptions } from './db/open.js';
import type { Store } from './db/store.js';
import { renderSteps } from './operations/rendered-rows.js';

/**
 * The store's schema: the numbered migrations (src/db/migrations), then the steps made from the
 * code's definitions (the stored rows' render functions, made from the operations' messages).
 */
export const SCHEMA: Schema = { migrations: loadMigrations(), repeatable: renderSteps() };

/** Opens the configured store and brings its schema up to date. */
export async function openMigratedStore(opts: StoreOptions): Promise<Store> {
  const store = await openStore(opts);
  try {
    await migrate(store, SCHEMA);
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}
