/**
 * Starting while PostgreSQL is not there: `serve` listens at once (/healthz 200, /readyz and the
 * API 503), waits with backoff, logging each attempt, and serves once the server is up and its
 * schema current, without a restart; `--startup-timeout-ms` ends the wait with exit 1.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { createPgCluster, freePort, type PgCluster } from '../../scripts/pg-cluster.js';
import { eventually, startServe } from '../helpers/serve.js';
import type { ReferralSetsBody } from '../helpers/bodies.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS } from '../helpers/stores.js';

const UNAVAILABLE = '{"code":14,"message":"Unavailable error","details":[]}';
const SETS = '/api/v2/referral-sets';

test('serve waits for an unreachable PostgreSQL, then for its schema, and serves without a restart', {
  skip: !STORE_KINDS.includes('postgres'),
  timeout: 180_000,
}, async () => {
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const serve = await startServe(['--database-url', url, '--log-level', 'info'], {}, { listening: true });
  let cluster: PgCluster | undefined;
  try {
    const retries = () => serve.logs().filter((l) => l.msg === 'store unreachable: retrying');
    await eventually('three attempts logged', () => retries().length >= 3);
    assert.deepEqual(
      retries()
        .slice(0, 3)
        .map((l) => [l.attempt, l.delayMs]),
      [
        [1, 250],
        [2, 500],
        [3, 1000],
      ],
    );
    assert.match(String(retries()[0]!.err), /ECONNREFUSED/);
    assert.deepEqual((await get(`${serve.url}/healthz`)).body, { status: 'ok' });
    for (const path of ['/readyz', SETS]) {
      const res = await get(serve.url + path);
      assert.equal(res.status, 503, path);
      assert.equal(res.text, UNAVAILABLE);
    }

    cluster = await createPgCluster({ port });
    // Reachable now, but an empty database: serve only reads, so it waits for a migration.
    await eventually('the schema check in the log', () => serve.logs().some((l) => l.msg === 'waiting for the schema'));
    const behind = serve.logs().find((l) => l.msg === 'waiting for the schema')!;
    assert.match(
      String(behind.err),
      new RegExp(
        `^the schema of ${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is behind: migrations 001_read_models, .* not applied; run \`epochview migrate\` against the primary \\(or start the writer: \`epochview ingest\`, \`epochview serve --follow\`\\)$`,
      ),
    );
    assert.equal((await get(`${serve.url}/readyz`)).status, 503);

    const migrated = await runCli(['migrate', '--database-url', url]);
    assert.equal(migrated.code, 0, migrated.stderr);
    await eventually('ready', async () => (await get(`${serve.url}/readyz`)).status === 200, 30_000);
    const page = await get(serve.url + SETS);
    assert.equal(page.status, 200);
    assert.deepEqual((page.body as ReferralSetsBody).referralSets.edges, []);
    // The banner follows readiness once the server has read the chain head (and its output may
    // reach this process after an answer does).
    const banner = /^epochview serving postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres on http/m;
    await eventually('the banner', () => banner.test(serve.stdout()));
    assert.equal(await serve.stop(), 0);
  } finally {
    await serve.stop();
    await cluster?.destroy();
  }
});

test('--startup-timeout-ms ends the wait of ingest and serve with exit 1', async () => {
  const url = `postgres://postgres@127.0.0.1:${await freePort()}/x`;
  const ingest = await runCli(['ingest', '-', '--database-url', url, '--startup-timeout-ms', '1000']);
  assert.equal(ingest.code, 1);
  const lines = ingest.stderr.trimEnd().split('\n');
  assert.match(
    lines[0]!,
    new RegExp(`^${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} unreachable \\(attempt 1: .*ECONNREFUSED.*\\); retrying in 250 ms$`),
  );
  assert.match(lines[1]!, /unreachable \(attempt 2: .*\); retrying in 500 ms$/);
  assert.match(
    lines[lines.length - 1]!,
    /^error: PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/x did not answer within 1000 ms \(--startup-timeout-ms\); the last attempt: .*ECONNREFUSED/,
  );

  const serve = await runCli(['serve', '--port', '0', '--database-url', url, '--startup-timeout-ms', '800', '--log-level', 'warn']);
  assert.equal(serve.code, 1);
  assert.match(serve.stderr, /^error: PostgreSQL at .* did not answer within 800 ms/m);
  const logs = serve.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
  assert.ok(logs.some((l) => l.msg === 'could not start'));
});
