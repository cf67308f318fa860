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
  assert.deepEqual(
    r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).msg),
    ['one', 'two'],
  );
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
  assert.deepEqual(
    r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).msg),
    ['line 0', 'line 1', 'line 2'],
  );
});

test('a request line is byte for byte what pino writes for it: escapes, non-ASCII, a long URL, no route, no duration', async () => {
  // Written both ways: pino's child logger, then writeRequestLine.
  const script = `
    const { createLogger, writeRequestLine } = await import(${JSON.stringify(LOG)});
    const log = createLogger('info');
    const lines = [
      { operation: 'ListReferralSets', method: 'GET', url: '/api/v2/referral-sets?referee=ab', route: '/api/v2/referral-sets', status: 200, ms: 1.23 },
      { operation: 'unmatched', method: 'POST', url: '/x?a="b"&c=\\\\d&e=\\u0001\\t\\u007f&f=é€𝄞', route: null, status: 404, ms: 0 },
      { operation: 'ListTeamMembersStatistics', method: 'GET', url: '/api/v2/teams/' + 'é'.repeat(150) + '/stats', route: '/api/v2/teams/:teamId/stats', status: 400, ms: NaN },
    ];
    for (const [i, line] of lines.entries()) {
      log.child({ reqId: 'req-' + i }).info(line, 'request');
      writeRequestLine(log, 'req-' + i, line);
    }`;
  const r = await runNode(['--input-type=module', '-e', script]);
  assert.equal(r.code, 0, r.stderr);
  // The time is made once per millisecond, so the two of a pair may differ there.
  const written = r.stdout.replace(/"time":"[^"]+"/g, '"time":"T"').split('\n');
  assert.equal(written.length, 7);
  assert.equal(written.pop(), '');
  for (let i = 0; i < 6; i += 2) assert.equal(written[i + 1], written[i]);
  assert.deepEqual(JSON.parse(written[3]!), {
    level: 30,
    time: 'T',
    service: 'epochview',
    reqId: 'req-1',
    operation: 'unmatched',
    method: 'POST',
    url: '/x?a="b"&c=\\d&e=\u0001\t\u007f&f=é€𝄞',
    route: null,
    status: 404,
    ms: 0,
    msg: 'request',
  });
  assert.equal(JSON.parse(written[5]!).ms, null);
});
