/**
 * The embedded store's folder belongs to one process: a second process is refused, naming the
 * first; a folder left by a killed process opens again; a folder holding other files is not made
 * a store; and `serve` gives its folder back whenever it stops, at a failed start or at a signal
 * while the store opens.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CLI, NODE_FLAGS, runCli } from '../helpers/cli.js';
import { startServe } from '../helpers/serve.js';

const tmp = mkdtempSync(join(tmpdir(), 'epochview-folder-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

test('a second process on the folder is refused, naming the first; a killed one leaves it to the next', async () => {
  const dir = join(tmp, 'shared');
  const serve = await startServe(['--data-dir', dir, '--demo-on-empty', 'false']);
  try {
    const second = await runCli(['migrate', '--data-dir', dir]);
    assert.equal(second.code, 1, second.stderr);
    assert.match(
      second.stderr,
      new RegExp(
        `^error: the data folder ${dir} is open in process ${serve.child.pid} on \\S+: the embedded store belongs to one process`,
        'm',
      ),
    );
    // ingest --no-wait: the busy writer's exit, as on a server whose writer lock is held.
    const busy = await runCli(['ingest', '-', '--no-wait', '--data-dir', dir], { stdin: '' });
    assert.equal(busy.code, 75, busy.stderr);
    assert.match(
      busy.stderr,
      /is open in process \d+ on \S+: the embedded store belongs to one process[^\n]*\nnot waiting \(--no-wait\): nothing was ingested; run again once it is done\n$/,
    );
  } finally {
    serve.child.kill('SIGKILL');
    await serve.exited;
  }
  const next = await runCli(['migrate', '--data-dir', dir]);
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stdout, /is up to date/);
  assert.ok(!readdirSync(dir).includes('epochview.pid'), 'given back at exit');
});

test('a folder holding other files is not made a store', async () => {
  const dir = join(tmp, 'archive');
  mkdirSync(dir);
  writeFileSync(join(dir, 'readme.txt'), 'not a store');
  const res = await runCli(['migrate', '--data-dir', dir]);
  assert.equal(res.code, 1, res.stderr);
  assert.match(
    res.stderr,
    /^error: the data folder \S+ holds files and no embedded store \(no PG_VERSION\): give an empty or a new folder$/m,
  );
  assert.deepEqual(readdirSync(dir), ['readme.txt']);
});

test('serve on a port already taken: exit 1 at once, and the folder given back', { timeout: 60_000 }, async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as { port: number }).port;
  const dir = join(tmp, 'port-taken');
  try {
    const res = await runCli(['serve', '--data-dir', dir, '--demo-on-empty', 'false', '--host', '127.0.0.1', '--port', String(port)]);
    assert.equal(res.code, 1, res.stderr);
    assert.match(res.stderr, /^error: listen EADDRINUSE: address already in use/m);
    // The gRPC port taken: the same (it was a usage error, exit 2 with the help).
    const grpc = await runCli([
      'serve',
      '--data-dir',
      dir,
      '--demo-on-empty',
      'false',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--grpc-port',
      String(port),
    ]);
    assert.equal(grpc.code, 1, grpc.stderr);
    assert.match(grpc.stderr, new RegExp(`^error: gRPC \\(--grpc-port\\): cannot listen on 127\\.0\\.0\\.1:${port}: .+$`, 'm'));
    assert.doesNotMatch(grpc.stderr, /usage:/);
  } finally {
    taken.close();
  }
  assert.equal((await runCli(['migrate', '--data-dir', dir])).code, 0);
});

test('SIGTERM while the embedded store opens: exit 0, the folder given back', { timeout: 60_000 }, async () => {
  const dir = join(tmp, 'opening');
  const child = spawn(process.execPath, [...NODE_FLAGS, CLI, 'serve', '--data-dir', dir, '--host', '127.0.0.1', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // The first line is logged before the store opens; a first start's store takes seconds to open.
  await new Promise<void>((resolve) =>
    child.stdout.on('data', (d) => {
      stdout += d;
      if (stdout.includes('"msg":"starting"')) resolve();
    }),
  );
  child.kill('SIGTERM');
  assert.equal(await exited, 0, stdout);
  assert.match(stdout, /"msg":"stopped( before the store was open)?"/);
  assert.ok(!readdirSync(dir).includes('epochview.pid'));
});
