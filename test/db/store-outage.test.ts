/**
 * The PostgreSQL server going away and coming back under a running `epochview serve --follow`:
 * 503s with the contract's body while it is down, answers again once it is back, without a
 * restart of the service. The writer lock went with the server, so the follower stops; once the
 * lock is held again it starts over from the checkpoint and applies what arrived meanwhile.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { blockLines, hex, setCreated } from '../helpers/events.js';
import { createPgCluster } from '../../scripts/pg-cluster.js';
import { eventually, sample, startServe } from '../helpers/serve.js';
import type { ReferralSetsBody } from '../helpers/bodies.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS } from '../helpers/stores.js';

const UNAVAILABLE = '{"code":14,"message":"Unavailable error","details":[]}';
const block = (height: number) => `${blockLines(height, [setCreated(hex(height.toString(16).padStart(2, '0')), hex('ab'))]).join('\n')}\n`;

test('PostgreSQL stopped and started again: 503 while down, recovery without a restart', {
  skip: !STORE_KINDS.includes('postgres'),
  timeout: 180_000,
}, async () => {
  const cluster = await createPgCluster();
  const tmp = mkdtempSync(join(tmpdir(), 'epochview-outage-'));
  const file = join(tmp, 'chain.ndjson');
  writeFileSync(file, block(10) + block(11));
  const serve = await startServe(['--database-url', cluster.url, '--follow', file, '--follow-poll-ms', '50', '--log-level', 'warn']);
  try {
    const sets = `${serve.url}/api/v2/referral-sets`;
    await eventually('blocks 10-11', async () => (await get(sets)).headers.get('x-block-height') === '11');
    assert.equal((await get(`${serve.url}/readyz`)).status, 200);

    await cluster.stop();
    for (let i = 0; i < 3; i++) {
      const res = await get(sets);
      assert.equal(res.status, 503);
      assert.equal(res.text, UNAVAILABLE);
    }
    const ready = await get(`${serve.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.equal(ready.text, UNAVAILABLE);
    assert.equal((await get(`${serve.url}/healthz`)).status, 200, 'the process itself is alive');
    // A block arrives while the store is down: read, queued, applied once it is back.
    appendFileSync(file, block(12));
    await eventually('the writer noticing the outage', () =>
      serve.logs().some((l) => l.msg === 'lost the writer lock: stopped writing; taking it again'),
    );

    await cluster.start();
    await eventually('answers again', async () => (await get(sets)).status === 200);
    await eventually('block 12 applied after the outage', async () => (await get(sets)).headers.get('x-block-height') === '12');
    const after = await get(sets);
    assert.equal((after.body as ReferralSetsBody).referralSets.edges.length, 3);
    // The follower made again once the writer lock was taken says so in /readyz.
    await eventually(
      'the follower caught up again',
      async () => ((await get(`${serve.url}/readyz`)).body as { source?: { state: string } }).source?.state === 'caught-up',
    );
    assert.deepEqual((await get(`${serve.url}/readyz`)).body, {
      status: 'ready',
      store: 'postgres',
      role: 'primary',
      blockHeight: '12',
      blockTime: expectBlockTime(after),
      chainId: null,
      source: { kind: 'file', path: file, state: 'caught-up' },
    });
    assert.equal(serve.child.exitCode, null, 'the same process throughout');

    const metrics = (await get(`${serve.url}/metrics`)).text;
    assert.equal(sample(metrics, 'epochview_http_requests_total{operation="ListReferralSets",status="503"}'), 3);
    assert.equal(sample(metrics, 'epochview_http_requests_total{operation="readyz",status="503"}'), 1);
    assert.ok(sample(metrics, 'epochview_store_query_duration_seconds_count{kind="query",outcome="unavailable"}')! >= 4);
    assert.equal(sample(metrics, 'epochview_ingest_last_height'), 12);
    assert.equal(await serve.stop(), 0);
  } finally {
    await serve.stop();
    await cluster.destroy();
    rmSync(tmp, { recursive: true, force: true });
  }
});

function expectBlockTime(res: { headers: Headers }): string {
  return res.headers.get('x-block-timestamp')!;
}
