/**
 * Batched statements through a real `serve` process on both stores, one slot per statement
 * shape: every request of the fixtures (test/fixtures), four times each, all at once (two rounds, in a
 * shuffled order), must give exactly the expected status and body while the
 * server runs the requests' statements in batches, with kept rows (the versions statements
 * batched) and without (the whole pages' statements batched). Whether a copy arrives while
 * another's statement is in flight is the machine's timing, so the batches that formed are
 * reported, not asserted; test/db/statement-batches.test.ts and pglite-store.test.ts make
 * batches for certain.
 */
import assert from 'node:assert/strict';
import { after, before, describe, type TestContext, test } from 'node:test';
import { goJson } from '../../src/contract/json.js';
import { loadExpectations } from '../helpers/fixtures.js';
import { sample, startServe, type ServeProcess } from '../helpers/serve.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS, createTestStore, type TestStore } from '../helpers/stores.js';

const DATASETS = ['referral-sets', 'team-stats', 'epoch-summaries'] as const;

/** Times each request is sent in a round. */
const COPIES = 4;

/** A deterministic shuffle, so that a failure can be replayed. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

for (const [kind, dataset] of STORE_KINDS.flatMap((k) => DATASETS.map((d) => [k, d] as const))) {
  describe(`batched statements answer the ${dataset} fixtures exactly on ${kind}`, () => {
    let ts: TestStore;
    before(async () => {
      ts = await createTestStore(kind, { dataset });
    });
    after(() => ts.drop());

    for (const rowCacheMb of ['64', '0']) {
      test(`row cache ${rowCacheMb} MiB`, { timeout: 120_000 }, async (t: TestContext) => {
        const cases = loadExpectations(dataset).filter((c) => (c.method ?? 'GET') === 'GET');
        const serve: ServeProcess = await startServe([
          ...ts.args,
          '--statement-slots',
          '1',
          '--response-cache-mb',
          '0',
          '--row-cache-mb',
          rowCacheMb,
          '--rate-limit-max',
          '0',
        ]);
        try {
          for (let round = 0; round < 2; round++) {
            // A request's copies go one after the other: the first one's statement is in flight
            // when others arrive, which then wait for it and run as one.
            const order = shuffled(cases, round + 1).flatMap((c) => Array.from({ length: COPIES }, () => c));
            const answers = await Promise.all(order.map((c) => get(serve.url + c.request)));
            order.forEach((c, i) => {
              const res = answers[i]!;
              assert.equal(res.status, c.status, `${c.name}: ${res.text}`);
              assert.equal(res.text, goJson(c.body), c.name);
            });
          }
          const metrics = await (await fetch(`${serve.url}/metrics`)).text();
          const batches = sample(metrics, 'epochview_store_batches_total') ?? 0;
          const batched = sample(metrics, 'epochview_store_batched_statements_total') ?? 0;
          assert.ok(batched >= 2 * batches, `batches ${batches}, statements in them ${batched}`);
          t.diagnostic(`${batches} batches of ${batched} statements`);
        } finally {
          await serve.stop();
        }
      });
    }
  });
}
