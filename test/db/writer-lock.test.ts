/**
 * The writer lock's connection dying under `epochview ingest`: the lock may be another
 * process's from then on, so nothing more is written and the command exits 1 saying so.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import pg from 'pg';
import { WRITER_LOCK_KEY } from '../../src/db/writer-lock.js';
import { CLI, NODE_FLAGS, runCli } from '../helpers/cli.js';
import { blockLines, hex, setCreated } from '../helpers/events.js';
import { eventually } from '../helpers/serve.js';
import { createTestStore, STORE_KINDS } from '../helpers/stores.js';

const block = (height: number) => `${blockLines(height, [setCreated(hex(height.toString(16).padStart(2, '0')), hex('ab'))]).join('\n')}\n`;

test('ingest whose lock connection is cut writes nothing more and exits 1', {
  skip: !STORE_KINDS.includes('postgres'),
  timeout: 120_000,
}, async () => {
  const ts = await createTestStore('postgres');
  const admin = new pg.Client({ connectionString: ts.databaseUrl });
  await admin.connect();
  try {
    assert.equal((await runCli(['ingest', '-', ...ts.args], { stdin: block(10) })).code, 0);
    const child = spawn(process.execPath, [...NODE_FLAGS, CLI, 'ingest', '-', ...ts.args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Its session, once it holds the lock (its application_name is set before it asks for it).
    const lockSession = `SELECT a.pid FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid AND l.locktype = 'advisory' AND l.objid = ${WRITER_LOCK_KEY} AND l.granted
      WHERE a.datname = current_database() AND a.application_name LIKE 'epochview ingest (pid ${child.pid} %'`;
    await eventually('the ingest holding the writer lock', async () => (await admin.query(lockSession)).rowCount === 1);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM (${lockSession}) s`);
    child.stdin.end(block(11));
    assert.equal(await exited, 1);
    // The reason is what the client saw first: the server's goodbye, or a reset (read ECONNRESET) that beat it.
    assert.match(
      stderr,
      /^error: (lost the writer lock of postgres:\/\/postgres@127\.0\.0\.1:\d+\/epochview_test_\w+ \(its connection: [^)\n]+\); nothing more is written through it|store unavailable: .*)\nthe blocks committed before stay applied; run the same command again to continue\n$/,
    );
    assert.equal((await admin.query('SELECT height::text AS h FROM chain_head')).rows[0].h, '10');
  } finally {
    await admin.end();
    await ts.drop();
  }
});
