/**
 * Whole-store comparisons for ingest tests: what an ingest reports, what it stored and what the
 * API then answers, to check that two inputs (an event file and its NDJSON twin, say) give the same.
 */
import assert from 'node:assert/strict';
import type { Store } from '../../src/db/store.js';
import { dumpReadModels } from './dump.js';
import { get, startServer } from './server.js';
import { createTestStore, type StoreKind, type TestStore } from './stores.js';

/** A new test store on `kind`, added to `stores` (which the suite drops after it). */
export async function freshStore(stores: TestStore[], kind: StoreKind): Promise<TestStore> {
  const ts = await createTestStore(kind);
  stores.push(ts);
  return ts;
}

/** The summary of an ingest without its timing: blocks, last height, per-kind counts. */
export function ingestSummary(stderr: string): string {
  const from = stderr.indexOf('ingested ');
  return stderr
    .slice(from)
    .replace(/ in [\d.]+ s \(\d+ events\/s\)/, '')
    .replace(/^(warning: block \d+) \(.*\)/m, '$1')
    .trim();
}

/** `fn` over the test store, opened for it and closed after. */
export async function withStore<T>(ts: TestStore, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await ts.open();
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Every read-model table of the test store, as ordered text rows. */
export async function dumpStore(ts: TestStore): Promise<Record<string, string[]>> {
  return withStore(ts, dumpReadModels);
}

/** Every page (of `size` rows, forward) of every operation, as the bodies' text, in request order. */
export async function allPages(ts: TestStore, size: number): Promise<string[]> {
  return withStore(ts, async (store) => {
    const server = await startServer(store);
    try {
      const teams = (await store.query<{ id: string }>(`SELECT encode(id, 'hex') AS id FROM teams ORDER BY id`)).map((r) => r.id);
      const paged: [string, string][] = [
        ['/api/v2/referral-sets', 'referralSets'],
        ['/api/v2/rewards/epoch/summaries', 'summaries'],
        ...teams.map((t): [string, string] => [`/api/v2/teams/${t}/stats`, 'statistics']),
      ];
      const pages: string[] = [];
      for (const [path, key] of paged) {
        let after: string | undefined;
        for (;;) {
          const sep = path.includes('?') ? '&' : '?';
          const res = await get(
            `${server.url}${path}${sep}pagination.first=${size}${after ? `&pagination.after=${encodeURIComponent(after)}` : ''}`,
          );
          assert.equal(res.status, 200, res.text);
          pages.push(`${path} ${res.headers.get('x-block-height')} ${res.text}`);
          const page = (res.body as Record<string, { pageInfo: { hasNextPage: boolean; endCursor: string } }>)[key]!;
          if (!page.pageInfo.hasNextPage) break;
          after = page.pageInfo.endCursor;
        }
      }
      for (const path of ['/explorer/api/overview', '/explorer/api/assets', '/explorer/api/teams']) {
        const res = await get(`${server.url}${path}`);
        assert.equal(res.status, 200, res.text);
        pages.push(`${path} ${res.text}`);
      }
      return pages;
    } finally {
      await server.close();
    }
  });
}
