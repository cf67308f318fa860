/** `epochview serve --workers N`: N processes on one port, through the real CLI. */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { runCli } from './helpers/cli.js';
import { blockId as id, referralBlock as block } from './helpers/events.js';
import { eventually, sample, startServe } from './helpers/serve.js';
import { get } from './helpers/server.js';
import { createTestStore, STORE_KINDS } from './helpers/stores.js';

const tmp = mkdtempSync(join(tmpdir(), 'epochview-cluster-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const BASE = 100;

/** A GET on a connection of its own (the cluster hands each new connection to the next worker). */
function getFresh(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; worker: string | undefined; etag: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { agent: false, headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () =>
        resolve({ status: res.statusCode!, worker: res.headers['x-epochview-worker'] as string | undefined, etag: res.headers.etag, body }),
      );
    })
      .on('error', reject)
      .end();
  });
}

type Log = Record<string, unknown>;

describe('serve --workers on PGlite', { skip: !STORE_KINDS.includes('pglite') }, () => {
  test('more than one worker is refused with a usage error: one process owns the data folder', async () => {
    const dataDir = join(tmp, 'pglite');
    const r = await runCli(['serve', '--data-dir', dataDir, '--workers', '2']);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /^--workers \(EPOCHVIEW_WORKERS\): the embedded store \(PGlite\) is opened by one process only, so it cannot be served by 2 processes; use --database-url \(a PostgreSQL server\) for more workers, or --workers 1 \(PGlite then runs SQL in a thread of its own, off the HTTP thread\)\n/,
    );
    const zero = await runCli(['serve', '--data-dir', dataDir], { env: { EPOCHVIEW_WORKERS: '0' } });
    assert.equal(zero.code, 2);
    assert.match(zero.stderr, /^--workers \(EPOCHVIEW_WORKERS\) must be a positive integer, got "0"\n/);
  });
});

describe('serve --workers on the PostgreSQL server', { skip: !STORE_KINDS.includes('postgres') }, () => {
  test('a worker that cannot start stops the others: exit 1, as one process would', { timeout: 120_000 }, async () => {
    // Nothing listens on port 1: the store is never reachable within the startup timeout.
    const r = await runCli([
      'serve',
      '--workers',
      '2',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--database-url',
      'postgres://postgres@127.0.0.1:1/none',
      '--startup-timeout-ms',
      '1000',
    ]);
    assert.equal(r.code, 1);
    const logs = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Log);
    const failed = logs.filter((l) => l.msg === 'worker could not start: stopping the others');
    assert.ok(failed.length >= 1);
    assert.equal(failed[0]!.code, 1);
    assert.equal(logs.at(-1)!.msg, 'stopped');
    assert.equal(logs.at(-1)!.failed, true);
    assert.match(r.stderr, /error: .*postgres:\/\/postgres@127\.0\.0\.1:1\/none/);
  });

  test('two workers answer on one port, /metrics adds them up, --follow applies each block once, a dead worker comes back, SIGTERM stops all', {
    timeout: 240_000,
  }, async () => {
    const ts = await createTestStore('postgres');
    const file = join(tmp, 'chain.ndjson');
    writeFileSync(file, block(BASE) + block(BASE + 1));
    const serve = await startServe([...ts.args, '--workers', '2', '--follow', file, '--log-level', 'info'], {
      EPOCHVIEW_FOLLOW_POLL_MS: '50',
    });
    const logs = (msg: string): Log[] => serve.logs().filter((l) => l.msg === msg);
    try {
      await eventually('both workers ready', () => logs('worker ready').length === 2, 60_000);
      await eventually(
        'blocks 100-101',
        async () => (await get(`${serve.url}/api/v2/referral-sets`)).headers.get('x-block-height') === String(BASE + 1),
      );

      // Every new connection goes to the next worker: both answer, alike.
      const page = `${serve.url}/api/v2/referral-sets?pagination.first=1000`;
      const counted = async () =>
        sample((await get(`${serve.url}/metrics`)).text, 'epochview_http_requests_total{operation="ListReferralSets",status="200"}') ?? 0;
      const before = await counted();
      const answers = await Promise.all(Array.from({ length: 10 }, () => getFresh(page)));
      assert.deepEqual(new Set(answers.map((a) => a.worker)), new Set(['1', '2']));
      for (const a of answers) {
        assert.equal(a.status, 200);
        assert.equal(a.body, answers[0]!.body);
      }
      assert.equal((JSON.parse(answers[0]!.body) as { referralSets: { edges: unknown[] } }).referralSets.edges.length, 4);

      // The metrics of both workers in one answer, whichever worker is asked: the 10 pages,
      // some counted by each worker, are 10 more here.
      const scrapes = await Promise.all(Array.from({ length: 4 }, () => getFresh(`${serve.url}/metrics`)));
      assert.deepEqual(new Set(scrapes.map((s) => s.worker)), new Set(['1', '2']));
      for (const s of scrapes)
        assert.equal(
          sample(s.body, 'epochview_http_requests_total{operation="ListReferralSets",status="200"}'),
          before + 10,
          `asked worker ${s.worker}`,
        );

      // The same answer has the same tag from either worker (src/http/http-caching.ts; once both
      // heard of the head), and either answers 304 to it.
      let tagged: Awaited<ReturnType<typeof getFresh>>[] = [];
      await eventually('both workers tag the page', async () => {
        tagged = await Promise.all(Array.from({ length: 4 }, () => getFresh(page)));
        return new Set(tagged.map((a) => a.worker)).size === 2 && tagged.every((a) => a.etag !== undefined);
      });
      assert.equal(new Set(tagged.map((a) => a.etag)).size, 1);
      const revalidated = await Promise.all(Array.from({ length: 4 }, () => getFresh(page, { 'if-none-match': tagged[0]!.etag! })));
      assert.deepEqual(new Set(revalidated.map((a) => a.worker)), new Set(['1', '2']));
      for (const a of revalidated) assert.equal(a.status, 304, `worker ${a.worker}`);

      // One writer: worker 1 follows the file; each block is applied once.
      appendFileSync(file, Array.from({ length: 20 }, (_, i) => block(BASE + 2 + i)).join(''));
      await eventually('block 121', async () => (await getFresh(page)).body.includes(id(BASE + 21, 2)));
      const metrics = (await get(`${serve.url}/metrics`)).text;
      assert.equal(sample(metrics, 'epochview_ingest_blocks_total'), 22);
      assert.equal(sample(metrics, 'epochview_ingest_events_total{kind="referralSetCreated"}'), 44);
      assert.equal(sample(metrics, 'epochview_ingest_last_height'), BASE + 21);
      const followers = new Set(
        serve
          .logs()
          .filter((l) => l.component === 'follow' || l.component === 'writer')
          .map((l) => l.worker),
      );
      assert.deepEqual(followers, new Set([1]));
      assert.equal(logs('writer lock held').length, 1);

      // A worker killed is logged and started again, under its number.
      const second = logs('worker ready').find((l) => l.worker === 2)!;
      process.kill(second.workerPid as number, 'SIGKILL');
      await eventually('worker 2 ready again', () => logs('worker ready').filter((l) => l.worker === 2).length === 2, 60_000);
      const died = logs('worker died: starting it again');
      assert.equal(died.length, 1);
      assert.equal(died[0]!.worker, 2);
      assert.equal(died[0]!.signal, 'SIGKILL');
      assert.equal(died[0]!.level, 50);
      const again = await Promise.all(Array.from({ length: 6 }, () => getFresh(page)));
      assert.deepEqual(new Set(again.map((a) => a.worker)), new Set(['1', '2']));

      // SIGTERM: both workers finish and exit 0, then the primary.
      assert.equal(await serve.stop('SIGTERM'), 0);
      const stopped = logs('worker stopped');
      assert.deepEqual(stopped.map((l) => [l.worker, l.code]).sort(), [
        [1, 0],
        [2, 0],
      ]);
      assert.equal(logs('stopped').length, 3, 'each worker and the primary');
      assert.equal(serve.logs().at(-1)!.component, 'cluster');
      await assert.rejects(fetch(`${serve.url}/healthz`), 'no longer listening');
    } finally {
      await serve.stop();
      await ts.drop();
    }
  });
});
