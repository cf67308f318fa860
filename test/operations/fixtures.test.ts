/**
 * The fixtures of test/fixtures, on both stores: each events file is ingested through the CLI into an
 * empty store, then every expected request is sent to a running server and must return exactly
 * the expected status and body, byte for byte as the contract encodes it; asked twice, since
 * the second answer comes from the response cache.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { goJson } from '../../src/contract/json.js';
import { FIXTURES } from '../helpers/cli.js';
import { loadExpectations } from '../helpers/fixtures.js';
import { useServedStore } from '../helpers/served-store.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS } from '../helpers/stores.js';

const DATASETS = ['referral-sets', 'team-stats', 'epoch-summaries'] as const;
const ERRORS = loadExpectations('errors');

/** A JSON object's field; undefined on anything else. */
function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

/** The expected body with its loose string fields taken from the actual body. */
function withLooseFrom(expected: unknown, actual: unknown, loose: string[] = []): unknown {
  const copy = structuredClone(expected) as Record<string, unknown>;
  for (const path of loose) {
    const keys = path.split('.');
    let e: unknown = copy;
    let a: unknown = actual;
    for (const k of keys.slice(0, -1)) {
      e = field(e, k);
      a = field(a, k);
    }
    const last = keys[keys.length - 1]!;
    const loosened = field(a, last);
    if (typeof loosened === 'string' && typeof field(e, last) === 'string') (e as Record<string, unknown>)[last] = loosened;
  }
  return copy;
}

test('the datasets are those errors.expected.json names, so that every error case runs', () => {
  assert.deepEqual([...new Set(ERRORS.map((e) => e.dataset))].sort(), [...DATASETS].sort());
});

for (const kind of STORE_KINDS) {
  for (const dataset of DATASETS) {
    describe(`fixtures ${dataset} on ${kind}`, () => {
      const served = useServedStore(kind, { ingest: { file: `${FIXTURES}${dataset}.ndjson` } });

      const cases = [...loadExpectations(dataset), ...ERRORS.filter((e) => e.dataset === dataset)];
      for (const c of cases) {
        test(c.name, async () => {
          const res = await get(served.url + c.request, { method: c.method ?? 'GET' });
          assert.equal(res.status, c.status, res.text);
          const expected = withLooseFrom(c.body, res.body, c.loose);
          assert.equal(JSON.stringify(res.body), JSON.stringify(expected));
          // Byte-level encoding: compact, Go-style escaping, no trailing newline.
          assert.equal(res.text, goJson(expected));
          assert.equal(res.headers.get('content-type'), 'application/json');
          // Asked again, the answer (from the response cache now) is the same, headers included.
          const again = await get(served.url + c.request, { method: c.method ?? 'GET' });
          assert.equal(again.status, res.status);
          assert.equal(again.text, res.text);
          for (const h of ['content-type', 'x-block-height', 'x-block-timestamp'])
            assert.equal(again.headers.get(h), res.headers.get(h), h);
        });
      }
    });
  }
}
