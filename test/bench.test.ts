/**
 * The benchmark harnesses (bench/): `npm run bench` (bench/run.ts) ingests a tiny chain, serves
 * it, measures every scenario against its ceiling and writes the table; the A/B harness
 * (bench/ab.ts) serves it two ways and measures both, interleaved. No real benchmark: a handful
 * of requests or a second per measurement, so that the harnesses cannot rot unnoticed; nothing
 * here asserts a speed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { splitChain } from '../bench/broker-chain.js';
import { runLoad, wrkInstalled } from '../bench/load.js';
import { renderMarkdown, type PageMeasurement, type RunResult } from '../bench/report.js';
import { SCENARIO_IDS, selectScenarioIds } from '../bench/scenarios.js';
import { OTHER_PAYLOADS } from '../src/demo/other-kinds.js';
import { EventRecordReader } from '../src/sources/binary/records.js';
import { encodeBusEvent, eventRecord } from '../src/sources/binary/encode-event.js';
import { beginBlockHeight } from '../src/sources/broker/buffer-files.js';
import { runNode, type CliResult } from './helpers/cli.js';
import { referralBlock } from './helpers/events.js';
import { STORE_KINDS } from './helpers/stores.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'epochview-bench-test-'));
after(() => rmSync(work, { recursive: true, force: true }));

function run(args: string[]): Promise<CliResult> {
  return runNode(['--import', 'tsx', join(ROOT, 'bench', 'run.ts'), ...args], { cwd: ROOT });
}

// The server when the suite has it (quicker to start than PGlite), else PGlite.
const store = STORE_KINDS.includes('postgres') ? 'postgres' : 'pglite';

/** The bench on that store and the small chain (its demo file kept for the next test), results in `out`. */
function runSmall(out: string, args: string[]): Promise<CliResult> {
  return run([
    '--store',
    store,
    ...(process.env.TEST_DATABASE_URL ? ['--database-url', process.env.TEST_DATABASE_URL] : []),
    '--scales',
    'small',
    '--cache',
    join(work, 'cache'),
    '--out',
    out,
    ...args,
  ]);
}

test(`bench harness on a small chain (${store}): every scenario row with the cache off and on, ceiling ratios, results file`, {
  timeout: 300_000,
}, async () => {
  const out = join(work, 'results');
  const res = await runSmall(out, [
    ...['--requests', '5', '--concurrency', '1,2', '--urls', '20', '--log-level', 'warn'],
    ...['--mix-scale', 'small', '--mix-share', '0.1', '--mix-other-events', '5'],
  ]);
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stdout, /## Ingest/);
  assert.match(res.stdout, /\| small \| [\d,]+ \| \d+ \| [\d.]+ \| [\d,]+ \| [\d,]+ \|/);
  // The mix: every block and event of its file, ours among them; all events/s and ours/s.
  assert.match(
    res.stdout,
    /^\| small mix \| 2,851 \| 64,626 \| 13,941 \| \d+ \| [\d.]+ \| [\d,]+ \| [\d,]+ \| [\d.]+ \| \d+ \| [\d. ]+ \|$/m,
  );
  assert.match(
    res.stdout,
    /^- (met|\*\*missed\*\*): ingest of the small mix \(event file\): [\d,]+ events\/s, [\d,]+ of ours \(target ≥ 1,000,000 events\/s\)$/m,
  );
  for (const id of SCENARIO_IDS) {
    for (const c of [1, 2]) {
      for (const cache of ['off', 'on']) {
        const row = res.stdout
          .split('\n')
          .find((l) => l.startsWith(`| ${id}: `) && l.split(' | ')[1] === String(c) && l.split(' | ')[2] === cache);
        assert.ok(row, `no row for ${id} c=${c} cache ${cache} in\n${res.stdout}`);
        // URLs (20 distinct, or as many as the small chain has), rows, req/s, p50, p99, errors (none), hits (with the cache on), ceiling ratio.
        assert.match(
          row,
          new RegExp(`\\| \\d+ \\| [\\d,]+ \\| [\\d,]+ \\| [\\d.]+ \\| [\\d.]+ \\| 0 \\| ${cache === 'on' ? '\\d+%' : '-'} \\| \\d+% \\|$`),
          row,
        );
      }
    }
  }
  // Every scenario drew its 20 distinct URLs from the small chain but the few-keyed ones.
  const urlCounts = new Map(
    res.stdout
      .split('\n')
      .filter((l) => l.startsWith('| '))
      .map((l) => [l.split(': ')[0]!.slice(2), Number(l.split(' | ')[3])]),
  );
  for (const id of ['referral-sets/first50', 'epoch-reward-summaries/default', 'team-member-stats/first50']) {
    assert.equal(urlCounts.get(id), 20, id);
  }
  const files = readdirSync(out).sort();
  assert.deepEqual(
    files.map((f) => f.replace(/^\d{4}-\d{2}-\d{2}-/, '')),
    [`${store}.json`, `${store}.md`],
  );
  assert.equal(readFileSync(join(out, files[1]!), 'utf8').trimEnd(), res.stdout.trimEnd());
  const json = JSON.parse(readFileSync(join(out, files[0]!), 'utf8')) as RunResult;
  assert.deepEqual(
    {
      ...json.mix,
      load: '',
      ingest: { blocks: json.mix?.ingest.blocks, events: json.mix?.ingest.events, allEvents: json.mix?.ingest.allEvents },
    },
    {
      scale: 'small',
      ourShare: 0.1,
      shareSource: 'as given',
      otherEvents: 5,
      load: '',
      ingest: { blocks: 2851, events: 13_941, allEvents: 64_626 },
    },
  );
  assert.ok(json.mix!.ingest.allEventsPerSec! > json.mix!.ingest.eventsPerSec);
});

test(`bench --ingest-formats --baseline (${store}): both formats by both builds interleaved, the ratios, the results file`, {
  timeout: 300_000,
}, async () => {
  const out = join(work, 'formats');
  const res = await runSmall(out, [
    '--ingest-formats',
    '--baseline',
    ROOT,
    '--mix-scale',
    'small',
    '--mix-share',
    '0.1',
    '--mix-other-events',
    '0',
  ]);
  assert.equal(res.code, 0, res.stderr);
  // Every event counted: 43,633 in the small chain of seed 1, 68 % of them not applied.
  for (const format of ['NDJSON', 'event file']) {
    assert.match(
      res.stdout,
      new RegExp(
        `^\\| small \\| ${format} \\| this build \\([^)]+\\) \\| \\d+ \\| 43,633 \\| 68 % \\| [\\d.]+ \\| [\\d,]+ \\| [\\d,]+ \\| [\\d.]+ \\| \\d+ \\| [\\d. ]+ \\|$`,
        'm',
      ),
    );
  }
  assert.match(res.stdout, /^\| small \| event file ÷ NDJSON, this build \([^)]+\) \| \*\*[\d.]+×\*\* \|$/m);
  assert.deepEqual(
    readdirSync(out).map((f) => f.replace(/^\d{4}-\d{2}-\d{2}-/, '')),
    [`${store}-ingest-formats.md`],
  );
  // Baseline, this, this, baseline: per format, in that order.
  const builds = [...res.stdout.matchAll(/^\| small \| (NDJSON|event file) \| (this build|baseline)[^|]*\|/gm)].map(
    (m) => `${m[1]} ${m[2]}`,
  );
  const abba = (f: string) => [`${f} baseline`, `${f} this build`, `${f} this build`, `${f} baseline`];
  assert.deepEqual(builds, [...abba('NDJSON'), ...abba('event file')]);
  // The mix, by both builds in the same order, and its ratio.
  const mixRows = [...res.stdout.matchAll(/^\| small mix \| event file \| (this build|baseline)[^|]*\| \d+ \| ([\d,]+) \| (\d+) % \|/gm)];
  assert.deepEqual(
    mixRows.map((m) => `${m[1]} ${m[2]} ${m[3]}`),
    ['baseline', 'this build', 'this build', 'baseline'].map((b) => `${b} 50,376 72`),
  );
  assert.match(
    res.stdout,
    /^\| small mix \| event file: this build \([^)]+\) ÷ baseline[^|]* \| \*\*[\d.]+×\*\* \([\d,]+ ÷ [\d,]+ events\/s\) \|$/m,
  );
  for (const format of ['NDJSON', 'event file']) {
    assert.match(
      res.stdout,
      new RegExp(
        `^\\| small \\| ${format}: this build \\([^)]+\\) ÷ baseline[^|]* \\| \\*\\*[\\d.]+×\\*\\* \\([\\d,]+ ÷ [\\d,]+ events/s\\) \\|$`,
        'm',
      ),
    );
  }
});

test('bench scenarios: selected by id, resource (its former name too) or name', () => {
  assert.deepEqual(selectScenarioIds(['referral-sets/first50']), ['referral-sets/first50']);
  const teams = SCENARIO_IDS.filter((id) => id.startsWith('team-member-stats/'));
  assert.equal(teams.length, 6);
  assert.deepEqual(selectScenarioIds(['team-member-stats']), teams);
  assert.deepEqual(selectScenarioIds(['team-stats']), teams);
  assert.deepEqual(selectScenarioIds(['summaries/last50', 'first50']), [
    'referral-sets/first50',
    'team-member-stats/first50',
    'epoch-reward-summaries/first50',
    'epoch-reward-summaries/last50',
  ]);
  assert.throws(() => selectScenarioIds(['teams']), /^Error: unknown scenario\(s\) teams; known: referral-sets\/default, /);
});

test('bench broker: an event file split into the blocks sent at once (a file of its own) and its last blocks, each a byte range of whole records', async () => {
  const lines = [1, 2, 3, 4, 5].flatMap((h) => referralBlock(h).trimEnd().split('\n'));
  const records = lines.map((l, i) =>
    eventRecord(BigInt(i + 1), encodeBusEvent({ version: 1, chainId: 'c', ...(JSON.parse(l) as object) }, OTHER_PAYLOADS)),
  );
  const file = join(work, 'chain.evts');
  const bytes = Buffer.concat(records);
  writeFileSync(file, bytes);
  const heights = (b: Buffer) => [...new EventRecordReader().push(b)].map((r) => beginBlockHeight(r.buf.subarray(r.start, r.end)));
  const split = await splitChain(file, 2);
  assert.equal(split.headBlocks, 3);
  assert.equal(split.head, join(work, 'chain-head2.evts'));
  // Each block: BeginBlock, four events, EndBlock.
  const perBlock = records.length / 5;
  assert.deepEqual(readFileSync(split.head), Buffer.concat(records.slice(0, 3 * perBlock)));
  assert.deepEqual(
    split.tail.map((b) => ({ height: b.height, records: heights(bytes.subarray(b.from, b.from + b.length)) })),
    [4, 5].map((h) => ({ height: h, records: [BigInt(h), ...Array<undefined>(perBlock - 1).fill(undefined)] })),
  );
  await assert.rejects(splitChain(file, 5), { message: `${file} has 5 blocks: fewer than --live-blocks 5 and one more` });
});

function ab(args: string[]): Promise<CliResult> {
  return runNode(['--import', 'tsx', join(ROOT, 'bench', 'ab.ts'), ...args], { cwd: ROOT });
}

// Both stores when the suite tests both (PostgreSQL server A, PGlite B), else the one store twice.
const abSides = STORE_KINDS.length > 1 ? ['--store', 'postgres,pglite'] : ['--store', STORE_KINDS[0]!, '--build', '.,.'];
const AB_SCENARIOS = ['referral-sets/first50'];

test(`bench A/B (${abSides.join(' ')}): answers compared, both sides measured together, the table and its file`, {
  timeout: 300_000,
}, async () => {
  const out = join(work, 'ab');
  const res = await ab([
    ...abSides,
    ...(process.env.TEST_DATABASE_URL ? ['--database-url', process.env.TEST_DATABASE_URL] : []),
    '--scale',
    'small',
    '--scenarios',
    AB_SCENARIOS.join(','),
    '--urls',
    '20',
    '--concurrency',
    '2',
    '--duration',
    '1',
    '--warmup',
    '0',
    '--rounds',
    '2',
    '--together',
    '--log-level',
    'warn',
    '--cache',
    join(work, 'cache'),
    '--out',
    out,
  ]);
  assert.equal(res.code, 0, res.stderr);
  const lines = res.stdout.split('\n');
  assert.ok(
    lines.includes(
      '| scenario | URLs | cache | c | A req/s | B req/s | B ÷ A | A p50 / p99 ms | B p50 / p99 ms | A CPU µs | B CPU µs | hits A / B | errors A / B |',
    ),
    res.stdout,
  );
  // A row per scenario and cache setting, in that order: 20 distinct URLs each, both rounds' req/s,
  // the ratio and its rounds' range, latencies, each serve's CPU per answer, the cache's hits when on, no errors.
  const rows = lines.filter((l) => AB_SCENARIOS.some((id) => l.startsWith(`| ${id} |`)));
  assert.deepEqual(
    rows.map((r) => r.split(' | ').slice(0, 4).join(' | ')),
    AB_SCENARIOS.flatMap((id) => [`| ${id} | 20 | off | 2`, `| ${id} | 20 | on | 2`]),
  );
  const reqs = '[\\d,]+ \\([\\d,]+; [\\d,]+\\)';
  const latencies = '[\\d.]+ / [\\d.]+';
  for (const row of rows) {
    const hits = row.includes(' | on | ') ? '\\d+% / \\d+%' : '- / -';
    assert.match(
      row,
      new RegExp(
        ` \\| 2 \\| ${reqs} \\| ${reqs} \\| ×[\\d.]+ \\([\\d.]+–[\\d.]+\\) \\| ${latencies} \\| ${latencies} \\| [\\d,]+ \\| [\\d,]+ \\| ${hits} \\| 0 / 0 \\|$`,
      ),
      row,
    );
  }
  assert.match(res.stdout, /Before measuring, 20 URLs answered alike \(status and body\) by every side\./);
  assert.match(res.stdout, /2 rounds, each loading every side at the same time \(a wrk of 2 connections each\)\./);
  // The rounds list the sides in alternate order: A then B, then B then A.
  const order = [...res.stderr.matchAll(/referral-sets\/first50 cache off c=2 round (\d) ([AB]):/g)].map((m) => `${m[1]}${m[2]}`);
  assert.deepEqual(order, ['1A', '1B', '2B', '2A']);
  const files = readdirSync(out);
  assert.equal(files.length, 1);
  assert.match(
    files[0]!,
    new RegExp(`^\\d{4}-\\d{2}-\\d{2}-${STORE_KINDS.length > 1 ? 'stores' : 'builds'}-[0-9a-f]{7,}(-changes)?\\.md$`),
  );
  assert.equal(readFileSync(join(out, files[0]!), 'utf8'), res.stdout);
});

test('bench A/B: bad options are refused with a clear message, before anything runs', { timeout: 60_000 }, async () => {
  const cases: [string[], RegExp][] = [
    [['--store', 'postgres,mysql'], /--store: mysql is not one of postgres, pglite, primary, standby/],
    [['--store', 'postgres'], /nothing to compare: give two or more values of --build, --store, --workers or --node/],
    [
      ['--node', `${process.execPath},/nonexistent/node`],
      /--node: \/nonexistent\/node does not run \(spawnSync \/nonexistent\/node ENOENT\)/,
    ],
    [['--store', 'pglite', '--workers', '1,2'], /PGlite is served by one worker only/],
    [['--workers', '1,2', '--rounds', '0'], /--rounds must be whole numbers ≥ 1/],
    [['--workers', '1,2', '--scenarios', 'teams/first50'], /unknown scenario\(s\) teams\/first50/],
  ];
  for (const [args, message] of cases) {
    const res = await ab(args);
    assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
    assert.match(res.stderr, message);
    assert.equal(res.stdout, '');
  }
});

test('bench report: targets and medium → mainnet p50 growth', () => {
  const load = (reqPerSec: number, p50: number, p99: number) => ({ requests: 100, seconds: 1, reqPerSec, p50, p99, errors: 0 });
  const page = (id: string, pageSize: number, rows: number, p50: number): PageMeasurement => ({
    scenario: { id, resource: 'referral-sets', name: id.split('/')[1]!, description: id, pageSize },
    urls: 1000,
    concurrency: 32,
    cache: 'off',
    outcomes: null,
    rows,
    bytes: rows * 100,
    real: load(1000, p50, p50 * 2),
    ceiling: load(1500, 0.1, 0.2),
  });
  const ingest = { events: 1_000_000, seconds: 10, eventsPerSec: 100_000, peakRssMiB: 200, fileMiB: 500, reused: false };
  const population = { referees: 10 };
  const run: RunResult = {
    store: 'postgres',
    date: '2026-01-01',
    machine: 'test',
    versions: 'test',
    settings: 'test',
    scales: [
      {
        scale: 'medium',
        ingest,
        population,
        pages: [
          page('referral-sets/first50', 50, 50, 2),
          page('referral-sets/default', 1000, 1000, 4),
          page('team-member-stats/default', 1000, 200, 2),
        ],
      },
      {
        scale: 'mainnet',
        ingest: { ...ingest, eventsPerSec: 40_000 },
        population,
        pages: [
          page('referral-sets/first50', 50, 50, 4),
          page('referral-sets/default', 1000, 1000, 5),
          page('team-member-stats/default', 1000, 800, 6),
        ],
      },
    ],
  };
  const md = renderMarkdown(run);
  assert.match(md, /- met: ingest medium: 100,000 events\/s/);
  assert.match(md, /- \*\*missed\*\*: ingest mainnet: 40,000 events\/s/);
  assert.match(md, /- met: medium referral-sets\/first50 c=32 cache off: p99 4.00 ms/);
  assert.match(md, /- met: medium referral-sets\/default c=32 cache off: 67% of its ceiling/);
  assert.match(md, /- \*\*missed\*\*: p50 medium→mainnet referral-sets\/first50 c=32 cache off: ×2.00/);
  assert.match(md, /- met: p50 medium→mainnet referral-sets\/default c=32 cache off: ×1.25/);
  // A page that holds more rows at the larger scale is compared per row.
  assert.match(md, /- met: p50 per row medium→mainnet team-member-stats\/default c=32 cache off: ×0.75 \(200 → 800 rows/);
  assert.match(
    md,
    /\| referral-sets\/first50: referral-sets\/first50 \| 32 \| off \| 1,000 \| 50 \| 1,000 \| 2.00 \| 4.00 \| 0 \| - \| 67% \| 1,000 \| 50 \| 1,000 \| 4.00 \| 8.00 \| 0 \| - \| 67% \| ×2.00 \|/,
  );
});

test('bench load: wrk for a second against a trivial server, its report read: requests, errors, rate, latencies in ms', {
  timeout: 20_000,
}, async () => {
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
    const r = await runLoad({
      baseUrl: `http://127.0.0.1:${port}`,
      urls: ['/'],
      connections: 2,
      duration: 1,
      headers: { 'accept-encoding': 'gzip' },
    });
    // wrk counts the answers it read; the server also saw those of the 2 connections still waiting when it stopped.
    assert.ok(r.requests > 0 && served - r.requests >= 0 && served - r.requests <= 2, `${JSON.stringify(r)}, served ${served}`);
    assert.ok(Math.abs(r.errors - Math.floor(served / 10)) <= 1, `${JSON.stringify(r)}, served ${served}`);
    assert.ok(Math.abs(r.reqPerSec * r.seconds - (r.requests - r.errors)) < 1e-6 * r.requests, JSON.stringify(r));
    assert.ok(r.seconds > 0.9, JSON.stringify(r));
    // Milliseconds, read from wrk's microseconds: a trivial answer on loopback takes far less than a second.
    assert.ok(r.p50 > 0 && r.p50 < 1000 && r.p99 >= r.p50, JSON.stringify(r));
  } finally {
    server.close();
  }
});

test('bench load: wrk sends the URLs of the list in the order given, from two threads', { timeout: 20_000 }, async () => {
  assert.ok(wrkInstalled(), 'wrk is missing: apt-get install -y wrk (.ci/run does)');
  const seen = new Map<string, number>();
  const server = createServer((req, res) => {
    seen.set(req.url!, (seen.get(req.url!) ?? 0) + 1);
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const urls = ['/a?x=1&y=%2F', '/b', '/never'];
    const r = await runLoad({ baseUrl: `http://127.0.0.1:${port}`, urls, order: [0, 0, 1], connections: 4, duration: 1 });
    assert.equal(r.errors, 0);
    assert.deepEqual([...seen.keys()].sort(), ['/a?x=1&y=%2F', '/b']);
    // Each of the two threads walks the sequence a, a, b from a place of its own: in any stretch
    // of it, the a's are twice the b's give or take 2, so both threads' give or take 4.
    const [a, b] = [seen.get('/a?x=1&y=%2F')!, seen.get('/b')!];
    assert.ok(Math.abs(a - 2 * b) <= 4, `/a ${a} times, /b ${b} times`);
  } finally {
    server.close();
  }
});
