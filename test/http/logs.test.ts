/** The logs of the real `epochview serve`: one JSON line per request, levels, no secrets. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { eventually, startServe } from '../helpers/serve.js';
import { get } from '../helpers/server.js';
import { createTestStore, STORE_KINDS } from '../helpers/stores.js';

for (const kind of STORE_KINDS) {
  describe(`logs on ${kind}`, () => {
    test('one JSON line per request with operation, status and duration; probes at debug; LOG_LEVEL', { timeout: 120_000 }, async () => {
      const ts = await createTestStore(kind, { dataset: 'referral-sets' });
      let serve = await startServe([...ts.args]);
      try {
        assert.equal((await get(`${serve.url}/api/v2/referral-sets?pagination.first=1`)).status, 200);
        assert.equal((await get(`${serve.url}/api/v2/teams/zz/stats`)).status, 400);
        assert.equal((await get(`${serve.url}/healthz`)).status, 200);
        await eventually('two request lines', () => serve.logs().filter((l) => l.msg === 'request').length === 2);
        const [ok, bad] = serve.logs().filter((l) => l.msg === 'request');
        assert.equal(typeof ok!.ms, 'number');
        assert.match(String(ok!.time), /^\d{4}-\d\d-\d\dT/);
        assert.ok(typeof ok!.reqId === 'string');
        const fields = (l: Record<string, unknown>) => ({
          level: l.level,
          service: l.service,
          operation: l.operation,
          method: l.method,
          url: l.url,
          route: l.route,
          status: l.status,
        });
        assert.deepEqual(fields(ok!), {
          level: 30,
          service: 'epochview',
          operation: 'ListReferralSets',
          method: 'GET',
          url: '/api/v2/referral-sets?pagination.first=1',
          route: '/api/v2/referral-sets',
          status: 200,
        });
        assert.deepEqual(fields(bad!), {
          level: 30,
          service: 'epochview',
          operation: 'ListTeamMembersStatistics',
          method: 'GET',
          url: '/api/v2/teams/zz/stats',
          route: '/api/v2/teams/:teamId/stats',
          status: 400,
        });
        assert.equal(await serve.stop(), 0);

        // LOG_LEVEL=warn: no request lines; --log-level debug: probes too.
        serve = await startServe([...ts.args], { LOG_LEVEL: 'warn' });
        assert.equal((await get(`${serve.url}/api/v2/referral-sets`)).status, 200);
        assert.equal(await serve.stop(), 0);
        assert.deepEqual(
          serve.logs().filter((l) => (l.level as number) < 40),
          [],
        );
        serve = await startServe([...ts.args, '--log-level', 'debug']);
        assert.equal((await get(`${serve.url}/healthz`)).status, 200);
        await eventually('the probe line', () => serve.logs().some((l) => l.msg === 'request' && l.operation === 'healthz'));
        assert.equal(serve.logs().find((l) => l.msg === 'request' && l.operation === 'healthz')!.level, 20);
        assert.equal(await serve.stop(), 0);
      } finally {
        await serve.stop();
        await ts.drop();
      }
    });
  });
}

describe('secrets', { skip: !STORE_KINDS.includes('postgres') }, () => {
  test('the DATABASE_URL password never reaches the output of serve; it is shown masked', { timeout: 120_000 }, async () => {
    const ts = await createTestStore('postgres');
    // Trust authentication accepts any password, so the URL with one works.
    const withPassword = ts.databaseUrl!.replace('postgres@', 'postgres:s3cret-pw@');
    const masked = ts.databaseUrl!.replace('postgres@', 'postgres:***@');
    assert.equal((await runCli(['migrate', ...ts.args])).code, 0);
    const serve = await startServe(['--database-url', withPassword, '--log-level', 'debug']);
    try {
      assert.equal((await get(`${serve.url}/api/v2/referral-sets`)).status, 200);
      assert.equal((await get(`${serve.url}/readyz`)).status, 200);
      assert.equal(await serve.stop(), 0);
      const output = serve.stdout() + serve.stderr();
      assert.doesNotMatch(output, /s3cret-pw/);
      assert.match(serve.stdout(), new RegExp(`^epochview serving ${masked.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} on http`, 'm'));
      const starting = serve.logs().find((l) => l.msg === 'starting')!;
      assert.equal((starting.settings as Record<string, unknown>).databaseUrl, masked);
      assert.equal(serve.logs().find((l) => l.msg === 'store ready')!.store, masked);
    } finally {
      await serve.stop();
      await ts.drop();
    }
    // Given by the environment, to a server that refuses: the wait's log lines and the error name no password either.
    const down = await runCli(['serve', '--port', '0', '--startup-timeout-ms', '1000'], {
      env: { DATABASE_URL: 'postgres://postgres:s3cret-pw@127.0.0.1:1/x' },
    });
    assert.equal(down.code, 1);
    assert.match(
      down.stderr,
      /^error: PostgreSQL at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/x did not answer within 1000 ms \(--startup-timeout-ms\); the last attempt: .*ECONNREFUSED/m,
    );
    assert.ok(down.stdout.includes('"msg":"store unreachable: retrying"'));
    assert.doesNotMatch(down.stdout + down.stderr, /s3cret-pw/);
    const starting = down.stdout.split('\n').find((l) => l.includes('"starting"'))!;
    assert.equal(JSON.parse(starting).settings.databaseUrl, 'postgres://postgres:***@127.0.0.1:1/x');
  });
});
