/** The CLI as a user runs it: help, migrate, demo → ingest, and `npm start` on an empty store. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CLI, NODE_FLAGS, runCli, runNode } from '../helpers/cli.js';
import type { ReferralSetsBody } from '../helpers/bodies.js';
import { eventually } from '../helpers/serve.js';
import { get } from '../helpers/server.js';
import { createTestStore, STORE_KINDS } from '../helpers/stores.js';

const tmp = mkdtempSync(join(tmpdir(), 'epochview-cli-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

test('help for the program and every command', async () => {
  const top = await runCli(['--help']);
  assert.equal(top.code, 0);
  for (const cmd of ['serve', 'ingest', 'demo', 'migrate']) {
    assert.match(top.stdout, new RegExp(`^  ${cmd} `, 'm'));
    const res = await runCli([cmd, '--help']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, new RegExp(`^usage: epochview ${cmd}`));
  }
  assert.match((await runCli(['serve', '--help'])).stdout, /--database-url <value> .*env DATABASE_URL/);
  const unknown = await runCli(['frobnicate']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command "frobnicate"/);
  const badFlag = await runCli(['ingest', '--nope', 'x']);
  assert.equal(badFlag.code, 2);
  assert.match(badFlag.stderr, /Unknown option '--nope'/);
  // Judged before anything is opened.
  const badProxy = await runCli(['serve', '--trust-proxy', '10.0.0.0/33']);
  assert.equal(badProxy.code, 2);
  assert.match(
    badProxy.stderr,
    /^--trust-proxy \(EPOCHVIEW_TRUST_PROXY\): "10\.0\.0\.0\/33" is not an IP address, a CIDR range, loopback, linklocal, uniquelocal or a number of hops$/m,
  );
});

test('a setting past its range, or not one of its values, is refused before anything starts, naming the flag (rc 2)', async () => {
  // A timer past 2^31−1 ms fires at once: every request was a 504, every shutdown "too long".
  // (A bad --trust-proxy, judged after them, keeps a build without the ranges from serving.)
  const badLater = ['--data-dir', join(tmp, 'ranges'), '--trust-proxy', 'nowhere'];
  const timeout = await runCli(['serve', '--request-timeout-ms', '99999999999', ...badLater]);
  assert.equal(timeout.code, 2);
  assert.match(
    timeout.stderr,
    /^--request-timeout-ms \(EPOCHVIEW_REQUEST_TIMEOUT_MS\) must be an integer from 0 to 2147483647, got "99999999999"$/m,
  );
  const shutdown = await runCli(['serve', ...badLater], { env: { EPOCHVIEW_SHUTDOWN_TIMEOUT_MS: '99999999999' } });
  assert.equal(shutdown.code, 2);
  assert.match(shutdown.stderr, /^--shutdown-timeout-ms \(EPOCHVIEW_SHUTDOWN_TIMEOUT_MS\) must be an integer from 0 to 2147483647/m);
  const url = await runCli(['serve', '--max-url-length', '0', ...badLater]);
  assert.equal(url.code, 2);
  assert.match(url.stderr, /^--max-url-length \(EPOCHVIEW_MAX_URL_LENGTH\) must be an integer from 1024 to 536870888, got "0"$/m);
  const pool = await runCli(['migrate', '--pool-size', '0', '--data-dir', join(tmp, 'ranges')]);
  assert.equal(pool.code, 2);
  assert.match(pool.stderr, /^--pool-size \(EPOCHVIEW_POOL_SIZE\) must be a positive integer, got "0"$/m);
  const level = await runCli(['serve', '--log-level', 'bogus', ...badLater]);
  assert.equal(level.code, 2);
  assert.match(level.stderr, /^--log-level \(LOG_LEVEL\) must be one of fatal, error, warn, info, debug, trace, silent, got "bogus"$/m);
  // A mistyped server URL was retried for ever (pg read "not a url" as a host named "base"); the password is never echoed.
  for (const [given, said] of <[string, string][]>[
    ['not a url', '--database-url (DATABASE_URL) is not a URL (postgres://user:password@host:port/database): "not a url"'],
    [
      'postgres://u:hunter2@127.0.0.1:99999/x',
      'is not a URL (postgres://user:password@host:port/database): "postgres://u:***@127.0.0.1:99999/x"',
    ],
    ['mysql://u:hunter2@127.0.0.1/x', 'is a mysql: URL, not postgres: or postgresql: (or socket:): "mysql://u:***@127.0.0.1/x"'],
  ]) {
    const bad = await runCli(['serve', ...badLater], { env: { DATABASE_URL: given } });
    assert.equal(bad.code, 2, given);
    assert.ok(bad.stderr.includes(said), bad.stderr);
    assert.ok(!bad.stderr.includes('hunter2') && !bad.stdout.includes('hunter2'));
  }
  // With --workers, the primary refuses them before any worker starts: exit 2, the help once.
  for (const args of [
    ['--trust-proxy', 'bogus!!'],
    ['--follow', 'a.ndjson', '--broker-listen', '127.0.0.1:3005'],
  ]) {
    const workers = await runCli(['serve', '--workers', '2', '--database-url', 'postgres://u@127.0.0.1:1/x', ...args]);
    assert.equal(workers.code, 2, workers.stderr);
    assert.equal(workers.stderr.split('usage: epochview serve').length, 2, workers.stderr);
  }
  // A password given as the URL's password parameter, or in libpq's key=value form, is masked too.
  for (const given of ['postgres://u@127.0.0.1:1/x?password=hunter2', 'host=127.0.0.1 port=1 user=u password=hunter2 dbname=x']) {
    const unreachable = await runCli(['migrate', '--startup-timeout-ms', '1'], { env: { DATABASE_URL: given } });
    assert.notEqual(unreachable.code, 0, given);
    assert.match(unreachable.stderr, /password=\*\*\*/, unreachable.stderr);
    assert.ok(!unreachable.stderr.includes('hunter2') && !unreachable.stdout.includes('hunter2'), unreachable.stderr);
  }
  // The help says each range.
  assert.match((await runCli(['serve', '--help'])).stdout, /--port <n> .*\(default 3008; an integer from 0 to 65535\)/);
  // demo: each block of ours costs 1/share blocks, so a tiny share never ended.
  const share = await runCli(['demo', '--our-share', '1e-300']);
  assert.equal(share.code, 2);
  assert.match(share.stderr, /^--our-share must be a number from 0\.001 to 1$/m);
});

test('stray arguments are refused by every command (rc 2) before it opens or writes anything', async () => {
  const dataDir = join(tmp, 'stray');
  for (const args of [
    ['migrate', 'extra', '--data-dir', dataDir],
    ['demo', 'out.ndjson'],
    ['serve', 'x', '--data-dir', dataDir],
    ['proto', 'x'],
  ]) {
    const r = await runNode([CLI, ...args], { cwd: tmp });
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, new RegExp(`^${args[0]} takes no arguments`), args.join(' '));
    assert.equal(r.stdout, '', args.join(' '));
  }
  assert.ok(!existsSync(dataDir));
});

/** Runs the CLI with its stdout given (a file, or a pipe that `read` may close), collecting its stderr. */
function runWithStdout(args: string[], stdout: number | 'pipe', read?: (out: NodeJS.ReadableStream) => void) {
  const child = spawn(process.execPath, [...NODE_FLAGS, CLI, ...args], { stdio: ['ignore', stdout, 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  if (child.stdout) read?.(child.stdout);
  return new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

test('output that cannot be written is a clean error; a reader that went away ends the command quietly', {
  skip: !existsSync('/dev/full'),
}, async () => {
  for (const args of [['proto'], ['demo']]) {
    const full = openSync('/dev/full', 'w');
    const r = await runWithStdout(args, full);
    closeSync(full);
    assert.equal(r.code, 1, args[0]);
    assert.equal(r.stderr, 'error: ENOSPC: no space left on device, write\n', args[0]);
  }
  // As `| head` does: read a little, then close the pipe (demo's output is larger than a pipe's
  // buffer). 141: a shell's status for a tool killed by SIGPIPE.
  const r = await runWithStdout(['demo'], 'pipe', (out) => out.once('data', () => (out as Readable).destroy()));
  assert.equal(r.stderr, '');
  assert.equal(r.code, 141);
});

test('demo writes the same bytes for the same seed', async () => {
  const a = join(tmp, 'a.ndjson');
  const b = join(tmp, 'b.ndjson');
  const first = await runCli(['demo', '--scale', 'small', '--seed', '7', '--out', a]);
  assert.equal(first.code, 0);
  assert.equal((await runCli(['demo', '--scale', 'small', '--seed', '7', '--out', b])).code, 0);
  const hash = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
  assert.equal(hash(a), hash(b));
  // One event per line.
  const bytes = readFileSync(a);
  const lines = bytes.toString().split('\n').length - 1;
  assert.equal(first.stderr, `demo small seed 7: ${lines} events, ${bytes.length} bytes\n`);
  const bad = await runCli(['demo', '--scale', 'huge']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--scale must be one of small, medium, mainnet/);
});

test('an empty flag is no value: the environment variable is taken, then the default', {
  skip: !STORE_KINDS.includes('pglite'),
}, async () => {
  const cwd = join(tmp, 'empty-flag');
  mkdirSync(cwd);
  const fromEnv = join(tmp, 'empty-flag-env');
  const r = await runNode([CLI, 'migrate', '--data-dir='], { cwd, env: { EPOCHVIEW_DATA_DIR: fromEnv } });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.endsWith(` to pglite ${fromEnv}\n`), r.stdout);
  assert.ok(existsSync(fromEnv));
  // Not the default, ./data.
  assert.ok(!existsSync(join(cwd, 'data')));
});

for (const kind of STORE_KINDS) {
  describe(`commands on ${kind}`, () => {
    test('migrate applies the schema once; a demo chain ingests and re-ingests', async () => {
      const s = await createTestStore(kind, { empty: true });
      try {
        const first = await runCli(['migrate', ...s.args]);
        assert.equal(first.code, 0, first.stderr);
        assert.match(
          first.stdout,
          /^applied migrations 1(, \d+)* and referral_sets_render, epoch_reward_summaries_render \(made from the definitions\) to /,
        );
        const again = await runCli(['migrate', ...s.args]);
        assert.match(again.stdout, /is up to date/);
        const file = join(tmp, `demo-${kind}.ndjson`);
        assert.equal((await runCli(['demo', '--out', file])).code, 0);
        const res = await runCli(['ingest', file, ...s.args]);
        assert.equal(res.code, 0, res.stderr);
        assert.match(res.stderr, /rewardPayout\s+\d+/);
        assert.match((await runCli(['ingest', file, ...s.args])).stderr, /ingested 0 blocks/);
        // Database URLs are never printed with their password.
        if (s.databaseUrl) {
          const withPassword = s.databaseUrl.replace('postgres@', 'postgres:s3cret@');
          const out = await runCli(['migrate', '--database-url', withPassword]);
          assert.doesNotMatch(out.stdout + out.stderr, /s3cret/);
        }
      } finally {
        await s.drop();
      }
    });
  });
}

test('npm start on an empty data dir seeds the demo chain and serves it', { timeout: 120_000 }, async () => {
  const dataDir = join(tmp, 'start');
  const child = spawn(
    'npm',
    ['start', '--silent', '--', '--data-dir', dataDir, '--port', '0', '--host', '127.0.0.1', '--log-level', 'warn'],
    {
      cwd: new URL('../..', import.meta.url),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let url = '';
  try {
    url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        stdout += d;
        const m = /serving .* on (http:\/\/[0-9.:]+)/.exec(stdout);
        if (m) resolve(m[1]!);
      });
      void exited.then(() => reject(new Error(`exited early: ${stderr}`)));
    });
    assert.match(stderr, /empty store: ingesting the small demo chain/);
    assert.match(stdout, /curl '.*\/api\/v2\/referral-sets\?pagination\.first=3'/);
    assert.match(stdout, /curl '.*\/api\/v2\/teams\/[0-9a-f]{64}\/stats\?aggregationEpochs=5'/);
    assert.match(stdout, new RegExp(`^explorer: ${url}/$`, 'm'));
    assert.match(stdout, new RegExp(`^API docs: ${url}/docs$`, 'm'));
    assert.match(stdout, new RegExp(`^GraphQL: ${url}/graphql \\(GraphiQL in a browser\\)$`, 'm'));
    const explorer = await fetch(`${url}/`);
    assert.equal(explorer.status, 200);
    assert.equal(explorer.headers.get('content-type'), 'text/html; charset=utf-8');
    const res = await get(`${url}/api/v2/referral-sets?pagination.first=3`);
    assert.equal(res.status, 200);
    assert.equal((res.body as ReferralSetsBody).referralSets.edges.length, 3);
    assert.ok(Number(res.headers.get('x-block-height')) > 0);
  } finally {
    // npm and the server it started, together.
    process.kill(-child.pid!, 'SIGTERM');
  }
  await exited;
  // npm exits at once; serve finishes its shutdown after it: wait until no process of the group is left.
  await eventually('serve gone with npm', () => {
    try {
      process.kill(-child.pid!, 0);
      return false;
    } catch {
      return true;
    }
  });
  await assert.rejects(fetch(`${url}/api/v2/referral-sets`), 'the server is gone');
});
