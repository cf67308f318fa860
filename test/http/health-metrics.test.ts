/** /healthz, /readyz and /metrics through HTTP on both stores. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Metrics } from '../../src/http/metrics.js';
import { useServedStore } from '../helpers/served-store.js';
import { sample } from '../helpers/serve.js';
import { get, startServer } from '../helpers/server.js';
import { createTestStore, STORE_KINDS } from '../helpers/stores.js';

for (const kind of STORE_KINDS) {
  describe(`health and metrics on ${kind}`, () => {
    const served = useServedStore(kind, { dataset: 'referral-sets' });

    test('/healthz is 200 {"status":"ok"} and /readyz carries the last block', async () => {
      const health = await get(`${served.url}/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(health.body, { status: 'ok' });
      const ready = await get(`${served.url}/readyz`);
      assert.equal(ready.status, 200);
      // A PostgreSQL server says which it is (a hot standby also its replay lag: test/db/scale-out.test.ts).
      const role = kind === 'postgres' ? { role: 'primary' } : {};
      assert.deepEqual(ready.body, {
        status: 'ready',
        store: kind,
        ...role,
        blockHeight: '5121',
        blockTime: '1709252110000000000',
        chainId: 'vega-mainnet-0011',
      });
      assert.equal(
        ready.text.slice(0, 40),
        kind === 'postgres' ? '{"status":"ready","store":"postgres","ro' : '{"status":"ready","store":"pglite","bloc',
      );
      assert.equal(ready.headers.get('cache-control'), 'no-store');
    });

    test('/readyz on an empty store is ready, without a block', async () => {
      const empty = await createTestStore(kind);
      const s = await empty.open();
      const srv = await startServer(s);
      try {
        const ready = await get(`${srv.url}/readyz`);
        assert.equal(ready.status, 200);
        assert.deepEqual(ready.body, {
          status: 'ready',
          store: kind,
          ...(kind === 'postgres' ? { role: 'primary' } : {}),
          blockHeight: null,
          blockTime: null,
          chainId: null,
        });
      } finally {
        await srv.close();
        await s.close();
        await empty.drop();
      }
    });

    test('/readyz is 503 with the contract body when the store fails', async () => {
      const broken = await createTestStore(kind);
      const s = await broken.open();
      const srv = await startServer(s);
      try {
        await s.close(); // every query fails from here on
        const ready = await get(`${srv.url}/readyz`);
        assert.equal(ready.status, 503);
        assert.equal(ready.text, '{"code":14,"message":"Unavailable error","details":[]}');
        assert.equal((await get(`${srv.url}/healthz`)).status, 200, 'liveness does not depend on the store');
      } finally {
        await srv.close();
        await broken.drop();
      }
    });

    test('/metrics: requests and latency per operation and status, store calls, process metrics', async () => {
      const metrics = new Metrics();
      const srv = await startServer(served.store, { metrics });
      const other = await startServer(served.store); // its own registry: counts nothing of srv's
      try {
        for (let i = 0; i < 3; i++) assert.equal((await get(`${srv.url}/api/v2/referral-sets?pagination.first=2`)).status, 200);
        assert.equal((await get(`${srv.url}/api/v2/referral-sets?pagination.first=x`)).status, 400);
        assert.equal((await get(`${srv.url}/api/v2/rewards/epoch/summaries`)).status, 200);
        assert.equal((await get(`${srv.url}/nope`)).status, 404);
        assert.equal((await get(`${srv.url}/readyz`)).status, 200);

        const res = await get(`${srv.url}/metrics`);
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
        const text = res.text;
        assert.equal(sample(text, 'epochview_http_requests_total{operation="ListReferralSets",status="200"}'), 3);
        assert.equal(sample(text, 'epochview_http_requests_total{operation="ListReferralSets",status="400"}'), 1);
        assert.equal(sample(text, 'epochview_http_requests_total{operation="ListEpochRewardSummaries",status="200"}'), 1);
        assert.equal(sample(text, 'epochview_http_requests_total{operation="unmatched",status="404"}'), 1);
        assert.equal(sample(text, 'epochview_http_requests_total{operation="readyz",status="200"}'), 1);
        assert.equal(sample(text, 'epochview_http_request_duration_seconds_count{operation="ListReferralSets",status="200"}'), 3);
        assert.equal(
          sample(text, 'epochview_http_request_duration_seconds_bucket{le="+Inf",operation="ListReferralSets",status="200"}'),
          3,
        );
        assert.ok(sample(text, 'epochview_http_request_duration_seconds_sum{operation="ListReferralSets",status="200"}')! > 0);
        // The page asked three times is computed twice (kept on its second request, then a hit):
        // its rows' versions both times, and their text once, when the row cache did not have it
        // yet; the summaries (none: no text to ask for) once, and one statement for /readyz. The
        // 400 never reached the store (a miss, not admitted: the cache saw its URL once).
        assert.equal(sample(text, 'epochview_store_query_duration_seconds_count{kind="query",outcome="ok"}'), 5);
        assert.deepEqual(
          [sample(text, 'epochview_row_cache_pages_total{outcome="hit"}'), sample(text, 'epochview_row_cache_pages_total{outcome="miss"}')],
          [2, 1],
        );
        assert.equal(sample(text, 'epochview_response_cache_requests_total{outcome="miss"}'), 4);
        assert.equal(sample(text, 'epochview_response_cache_not_admitted_total{reason="new"}'), 3);
        assert.equal(sample(text, 'epochview_response_cache_requests_total{outcome="hit"}'), 1);
        assert.ok(sample(text, 'epochview_response_cache_bytes')! > 0);
        assert.equal(sample(text, 'epochview_response_cache_entries'), 1);
        // Process metrics under their usual names.
        assert.ok(sample(text, 'process_cpu_user_seconds_total')! > 0);
        assert.ok(sample(text, 'nodejs_heap_size_total_bytes')! > 0);
        assert.match(text, /^# TYPE epochview_ingest_events_total counter$/m);
        // The server's role, from the chain head watch's reads; the embedded store has none.
        assert.equal(sample(text, 'epochview_store_role{role="primary"}'), kind === 'postgres' ? 1 : undefined);
        assert.equal(sample(text, 'epochview_store_role{role="standby"}'), kind === 'postgres' ? 0 : undefined);
        assert.equal(sample(text, 'epochview_store_replay_lag_bytes'), 0);

        const otherText = (await get(`${other.url}/metrics`)).text;
        assert.equal(sample(otherText, 'epochview_http_requests_total{operation="ListReferralSets",status="200"}'), undefined);
      } finally {
        await srv.close();
        await other.close();
      }
    });
  });
}
