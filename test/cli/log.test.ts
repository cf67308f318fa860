/** The log's batching: info lines wait for a batch, a warning goes out at once with what came before it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runNode } from '../helpers/cli.js';

const LOG = fileURLToPath(new URL('../../dist/log.js', import.meta.url));

test('a warning is written at once with the lines before it; a kill -9 takes only the info lines after it', async () => {
  // The event loop is blocked after the third line, so no periodic flush can run: only the write
  // the warning started (in libuv's thread pool) reaches stdout before the kill.
  const script = `
    const { createLogger } = await import(${JSON.stringify(LOG)});
    const log = createLogger('info');
    log.info('one'); log.warn('two'); log.info('three');
    const until = Date.now() + 2000; while (Date.now() < until);
    process.kill(process.pid, 'SIGKILL');`;
  const r = await runNode(['--input-type=module', '-e', script]);
  assert.deepEqual(r.stdout.trim().split('\n').map((l) => JSON.parse(l).msg), ['one', 'two']);
});

test('info lines alone are written in a batch, and all of them at exit', async () => {
  const script = `
    const { createLogger } = await import(${JSON.stringify(LOG)});
    const log = createLogger('info');
    for (let i = 0; i < 3; i++) log.info('line ' + i);
    const until = Date.now() + 500; while (Date.now() < until);
    process.kill(process.pid, 'SIGKILL');`;
  assert.equal((await runNode(['--input-type=module', '-e', script])).stdout, '', 'nothing before the batch is full or the timer runs');
  const exits = `
    const { createLogger } = await import(${JSON.stringify(LOG)});
    const log = createLogger('info');
    for (let i = 0; i < 3; i++) log.info('line ' + i);`;
  const r = await runNode(['--input-type=module', '-e', exits]);
  assert.equal(r.code, 0);
  assert.deepEqual(r.stdout.trim().split('\n').map((l) => JSON.parse(l).msg), ['line 0', 'line 1', 'line 2']);
});
