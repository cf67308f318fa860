/**
 * The benchmark harness (bench/): it starts, ingests a tiny chain, serves it, measures every
 * scenario against its ceiling and writes the table. No real benchmark: a handful of requests
 * per measurement, so that the harness cannot rot unnoticed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runLoad, wrkInstalled } from '../bench/load.js';
import { renderMarkdown, type PageMeasurement, type RunResult } from '../bench/report.js';
import { SCENARIO_IDS } from '../bench/scenarios.js';
import { runNode, type CliResult } from './helpers/cli.js';
import { STORE_KINDS } from './helpers/stores.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'epochview-bench-test-'));
after(() => rmSync(work, { recursive: true, force: true }));

function run(args: string[]): Promise<CliResult> {
  return runNode(['--import', 'tsx', join(ROOT, 'bench', 'run.ts'), ...args], { cwd: ROOT });
}

// The server when the suite has it (quicker to start than PGlite), else PGlite.
const store = STORE_KINDS.includes('postgres') ? 'postgres' : 'pglite';

test(`bench harness on a small chain (${store}): every scenario row, ceiling ratios, results file`, { timeout: 120_000 }, async () => {
  const out = join(work, 'results');
  const res = await run([
    '--store', store,
    ...(process.env.TEST_DATABASE_URL ? ['--database-url', process.env.TEST_DATABASE_URL] : []),
    '--scales', 'small',
    '--requests', '5',
    '--concurrency', '1,2',
    '--cache', join(work, 'cache'),
    '--out', out,
    '--log-level', 'warn',
  ]);
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stdout, /## Ingest/);
  assert.match(res.stdout, /\| small \| [\d,]+ \| \d+ \| [\d.]+ \| [\d,]+ \| [\d,]+ \|/);
  for (const id of SCENARIO_IDS) {
    for (const c of [1, 2]) {
      const row = res.stdout.split('\n').find((l) => l.startsWith(`| ${id}: `) && l.split(' | ')[1] === String(c));
      assert.ok(row, `no row for ${id} c=${c} in\n${res.stdout}`);
      // rows, req/s, p50, p99, errors (none), ceiling ratio.
      assert.match(row, /\| [\d,]+ \| [\d,]+ \| [\d.]+ \| [\d.]+ \| 0 \| \d+% \|$/, row);
    }
  }
  const files = readdirSync(out).sort();
  assert.deepEqual(files.map((f) => f.replace(/^\d{4}-\d{2}-\d{2}-/, '')), [`${store}.json`, `${store}.md`]);
  assert.equal(readFileSync(join(out, files[1]!), 'utf8').trimEnd(), res.stdout.trimEnd());
});

test(`bench --ingest-formats on a small chain (${store}): both formats, the ratio, the results file`, { timeout: 120_000 }, async () => {
  const out = join(work, 'formats');
  const res = await run([
    '--store', store,
    ...(process.env.TEST_DATABASE_URL ? ['--database-url', process.env.TEST_DATABASE_URL] : []),
    '--scales', 'small',
    '--ingest-formats',
    '--cache', join(work, 'cache'),
    '--out', out,
  ]);
  assert.equal(res.code, 0, res.stderr);
  // Every event counted: 39,184 in the small chain of seed 1, 67 % of them not applied.
  for (const format of ['NDJSON', 'event file']) {
    assert.match(res.stdout, new RegExp(`^\\| small \\| ${format} \\| \\d+ \\| 39,184 \\| 68 % \\| [\\d.]+ \\| [\\d,]+ \\| [\\d,]+ \\| \\d+ \\|$`, 'm'));
  }
  assert.match(res.stdout, /^\| small \| event file ÷ NDJSON \| \| \| \| \| \*\*[\d.]+×\*\* \| \| \|$/m);
  const files = readdirSync(out);
  assert.deepEqual(files.map((f) => f.replace(/^\d{4}-\d{2}-\d{2}-/, '')), [`${store}-ingest-formats.md`]);
});

test('bench report: targets and medium → mainnet p50 growth', () => {
  const load = (reqPerSec: number, p50: number, p99: number) => ({ requests: 100, seconds: 1, reqPerSec, p50, p99, errors: 0 });
  const page = (id: string, pageSize: number, rows: number, p50: number): PageMeasurement => ({
    scenario: { id, operation: 'referral-sets', name: id.split('/')[1]!, description: id, url: '/', pageSize },
    concurrency: 32,
    rows,
    bytes: rows * 100,
    real: load(1000, p50, p50 * 2),
    ceiling: load(1500, 0.1, 0.2),
  });
  const ingest = { events: 1_000_000, seconds: 10, eventsPerSec: 100_000, peakRssMiB: 200, fileMiB: 500, reused: false };
  const discovered = { referee: '', referrer: '', asset: '', fromEpoch: '0', toEpoch: '4', team: '', middle: { referralSets: '', teamStats: '', summaries: '' } };
  const run: RunResult = {
    store: 'postgres',
    date: '2026-01-01',
    machine: 'test',
    versions: 'test',
    settings: 'test',
    scales: [
      { scale: 'medium', ingest, discovered, pages: [page('referral-sets/first50', 50, 50, 2), page('referral-sets/default', 1000, 1000, 4), page('team-stats/default', 1000, 200, 2)] },
      { scale: 'mainnet', ingest: { ...ingest, eventsPerSec: 40_000 }, discovered, pages: [page('referral-sets/first50', 50, 50, 4), page('referral-sets/default', 1000, 1000, 5), page('team-stats/default', 1000, 800, 6)] },
    ],
  };
  const md = renderMarkdown(run);
  assert.match(md, /- met: ingest medium: 100,000 events\/s/);
  assert.match(md, /- \*\*missed\*\*: ingest mainnet: 40,000 events\/s/);
  assert.match(md, /- met: medium referral-sets\/first50 c=32: p99 4.00 ms/);
  assert.match(md, /- met: medium referral-sets\/default c=32: 67% of its ceiling/);
  assert.match(md, /- \*\*missed\*\*: p50 medium→mainnet referral-sets\/first50 c=32: ×2.00/);
  assert.match(md, /- met: p50 medium→mainnet referral-sets\/default c=32: ×1.25/);
  // A page that holds more rows at the larger scale is compared per row.
  assert.match(md, /- met: p50 per row medium→mainnet team-stats\/default c=32: ×0.75 \(200 → 800 rows/);
  assert.match(md, /\| referral-sets\/first50: referral-sets\/first50 \| 32 \| 50 \| 1,000 \| 2.00 \| 4.00 \| 0 \| 67% \| 50 \| 1,000 \| 4.00 \| 8.00 \| 0 \| 67% \| ×2.00 \|/);
});

test('bench load: autocannon for a second against a trivial server, latencies in fractional ms', { timeout: 20_000 }, async () => {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const r = await runLoad({ url: `http://127.0.0.1:${port}/`, connections: 2, duration: 1 });
    assert.ok(r.requests > 100 && r.errors === 0, JSON.stringify(r));
    assert.ok(r.p50 > 0 && r.p50 < 50 && r.p99 >= r.p50 && !Number.isInteger(r.p50), JSON.stringify(r));
  } finally {
    server.close();
  }
});

test('bench load: wrk for a second against a trivial server, its report read in fractional ms', { timeout: 20_000 }, async () => {
  assert.ok(wrkInstalled(), 'wrk is missing: apt-get install -y wrk (.ci/run does)');
  let served = 0;
  const server = createServer((req, res) => {
    served++;
    // Every tenth answer is a 500, to see wrk's status errors counted; without the header, all are.
    res.statusCode = req.headers['accept-encoding'] !== 'gzip' || served % 10 === 0 ? 500 : 200;
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const r = await runLoad({ url: `http://127.0.0.1:${port}/`, connections: 2, duration: 1, headers: { 'accept-encoding': 'gzip' }, client: 'wrk' });
    assert.ok(r.requests > 100 && Math.abs(r.requests - served) <= 2, `${JSON.stringify(r)}, served ${served}`);
    assert.ok(Math.abs(r.errors - Math.floor(served / 10)) <= 1, JSON.stringify(r));
    assert.ok(Math.abs(r.reqPerSec * r.seconds - (r.requests - r.errors)) < 1, JSON.stringify(r));
    assert.ok(r.seconds > 0.9 && r.seconds < 2, JSON.stringify(r));
    assert.ok(r.p50 > 0 && r.p50 < 50 && r.p99 >= r.p50, JSON.stringify(r));
  } finally {
    server.close();
  }
});
