/** SIGTERM on the real `epochview serve`: requests in flight finish, then the process exits 0. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { eventually, startServe } from '../helpers/serve.js';
import { get } from '../helpers/server.js';
import { createTestStore, STORE_KINDS } from '../helpers/stores.js';

const BIG_PAGE = '/api/v2/rewards/epoch/summaries?pagination.first=5000';

for (const kind of STORE_KINDS) {
  describe(`shutdown on ${kind}`, () => {
    test('SIGTERM during a burst of big pages: every request received is answered in full, then exit 0', { timeout: 120_000 }, async () => {
      const ts = await createTestStore(kind);
      const serve = await startServe([...ts.args, '--demo-on-empty', 'true', '--log-level', 'debug']);
      try {
        const expected = await get(serve.url + BIG_PAGE);
        assert.equal(expected.status, 200);
        // Log lines are written in batches: the first request's line may not be out yet.
        const received = () => serve.logs().filter((l) => l.msg === 'request received' && l.url === BIG_PAGE).length;
        await eventually('the first request logged', () => received() === 1);
        const n = 20;
        const burst = Array.from({ length: n }, () => get(serve.url + BIG_PAGE));
        await eventually('the burst received', () => received() === 1 + n);
        serve.child.kill('SIGTERM');
        const answers = await Promise.all(burst);
        for (const a of answers) {
          assert.equal(a.status, 200);
          assert.equal(a.text, expected.text);
        }
        assert.equal(await serve.exited, 0);
        const msgs = serve.logs().map((l) => l.msg);
        const down = msgs.indexOf('shutting down: finishing requests in flight');
        assert.ok(down > 0);
        assert.equal(msgs[msgs.length - 1], 'stopped');
        await assert.rejects(fetch(`${serve.url}/healthz`), 'no longer listening');
      } finally {
        await serve.stop();
        await ts.drop();
      }
    });
  });
}

describe('shutdown on the PostgreSQL server', { skip: !STORE_KINDS.includes('postgres') }, () => {
  test('SIGTERM while a request waits on a lock: no new connections, the request completes, exit 0', { timeout: 120_000 }, async () => {
    const ts = await createTestStore('postgres', { dataset: 'referral-sets' });
    // No response cache: the repeated request must reach the store and wait on the lock.
    const serve = await startServe([...ts.args, '--log-level', 'info', '--response-cache-mb', '0']);
    const locker = new pg.Client({ connectionString: ts.databaseUrl });
    await locker.connect();
    try {
      const url = `${serve.url}/api/v2/referral-sets?pagination.first=2`;
      const expected = await get(url);
      assert.equal(expected.status, 200);
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE referral_sets IN ACCESS EXCLUSIVE MODE');
      const slow = get(url);
      await eventually('the request waiting on the lock', async () => {
        const r = await locker.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        return r.rows[0].n === 1;
      });
      serve.child.kill('SIGTERM');
      await eventually('the shutdown log line', () => serve.logs().some((l) => l.msg === 'shutting down: finishing requests in flight'));
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(serve.child.exitCode, null, 'still running while the request is in flight');
      await assert.rejects(fetch(`${serve.url}/healthz`), 'new connections are refused');
      await locker.query('COMMIT');
      const answer = await slow;
      assert.equal(answer.status, 200);
      assert.equal(answer.text, expected.text);
      assert.equal(answer.headers.get('x-block-height'), '5121');
      assert.equal(await serve.exited, 0);
    } finally {
      await locker.end();
      await serve.stop();
      await ts.drop();
    }
  });
});
