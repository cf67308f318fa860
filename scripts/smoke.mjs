// Smoke test of a build on the Node that runs this script (CI runs it on each supported major):
// `epochview serve` on the embedded store (PGlite) in a temporary folder, which it fills with the
// demo chain, then one request per operation of its OpenAPI document, the explorer's page and
// script, the API docs, a bad request, and a clean stop. Plain JavaScript, so that it needs
// nothing but node and dist/. Exits 1 at the first failure, with the server's output.
//
//   node scripts/smoke.mjs          (after npm run build)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const START_MS = 120_000;

const dataDir = mkdtempSync(join(tmpdir(), 'epochview-smoke-'));
const server = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, '--log-level', 'warn'], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
server.stdout.on('data', (d) => (output += d));
server.stderr.on('data', (d) => (output += d));
const exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve(code ?? signal)));

/** The server's URL once its banner says it serves (the demo chain ingested). */
async function started() {
  const until = Date.now() + START_MS;
  for (;;) {
    const m = /serving .* on (http:\/\/[0-9.:]+)/.exec(output);
    if (m) return m[1];
    if (server.exitCode !== null) throw new Error(`serve exited (${server.exitCode}) before serving`);
    if (Date.now() > until) throw new Error(`serve did not serve within ${START_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let base;
/** GET `path`: its status, content type and text; asserts the status and the content type's start. */
async function get(path, status, type) {
  const res = await fetch(base + path);
  const text = await res.text();
  assert.equal(res.status, status, `GET ${path}: ${text.slice(0, 300)}`);
  assert.ok(
    res.headers.get('content-type')?.startsWith(type),
    `GET ${path}: content-type ${res.headers.get('content-type')}, expected ${type}`,
  );
  console.log(`ok  GET ${path}  ${status} ${res.headers.get('content-type')}`);
  return { headers: res.headers, text, json: () => JSON.parse(text) };
}

/** The paths of the OpenAPI document asked so far. */
const checked = new Set();

/** GET `path`, a request of the documented operation at `route`: 200 and JSON; `route` counts as asked. */
function askOperation(route, path) {
  checked.add(route);
  return get(path, 200, 'application/json');
}

/** A page of the API: exactly `{ <key>: { edges, pageInfo } }`, its nodes with exactly `fields` in that order. */
function page(body, key, fields, path) {
  assert.deepEqual(Object.keys(body), [key], path);
  assert.deepEqual(Object.keys(body[key]), ['edges', 'pageInfo'], path);
  assert.ok(body[key].edges.length > 0, `${path}: no rows`);
  for (const e of body[key].edges) assert.deepEqual(Object.keys(e.node), fields, path);
  return body[key].edges;
}

try {
  base = await started();
  console.log(`node ${process.version}: ${base}, demo chain in ${dataDir}`);

  const overview = (await askOperation('/explorer/api/overview', '/explorer/api/overview')).json();
  assert.deepEqual(Object.keys(overview), ['chainHead', 'lastEndedEpoch', 'counts', 'examples']);
  const { height } = overview.chainHead;
  assert.ok(Number(height) > 0, `chain head ${height}`);

  let path = '/api/v2/referral-sets?pagination.first=2';
  let res = await askOperation('/api/v2/referral-sets', path);
  assert.equal(res.headers.get('x-block-height'), height, 'x-block-height is the chain head the overview gives');
  const sets = page(res.json(), 'referralSets', ['id', 'referrer', 'createdAt', 'updatedAt', 'totalMembers'], path);
  assert.equal(sets.length, 2);

  const { teamId, teamEpochs } = overview.examples;
  path = `/api/v2/teams/${teamId}/stats?aggregationEpochs=${teamEpochs}&pagination.first=1`;
  res = await askOperation('/api/v2/teams/{teamId}/stats', path);
  const stat = [
    'partyId',
    'totalQuantumVolume',
    'totalQuantumRewards',
    'quantumRewards',
    'totalGamesPlayed',
    'gamesPlayed',
    'quantumVolumes',
  ];
  assert.equal(page(res.json(), 'statistics', stat, path).length, 1);

  path = '/api/v2/rewards/epoch/summaries?pagination.first=3';
  res = await askOperation('/api/v2/rewards/epoch/summaries', path);
  const summaries = page(res.json(), 'summaries', ['epoch', 'assetId', 'marketId', 'rewardType', 'amount'], path);
  assert.ok(
    summaries.every((e) => Number(e.node.epoch) <= Number(overview.lastEndedEpoch)),
    'summaries of ended epochs only',
  );

  // The family's operations, each asked with ids an earlier answer gave.
  path = '/api/v2/teams?pagination.first=2';
  res = await askOperation('/api/v2/teams', path);
  const teamRow = [
    'teamId',
    'referrer',
    'name',
    'teamUrl',
    'avatarUrl',
    'createdAt',
    'closed',
    'createdAtEpoch',
    'allowList',
    'totalMembers',
  ];
  assert.equal(page(res.json(), 'teams', teamRow, path).length, 2);

  path = '/api/v2/teams/stats?pagination.first=2';
  res = await askOperation('/api/v2/teams/stats', path);
  const teamStat = ['teamId', ...stat.slice(1)];
  assert.equal(page(res.json(), 'statistics', teamStat, path).length, 2);

  path = `/api/v2/teams/referees/${teamId}?pagination.first=1`;
  res = await askOperation('/api/v2/teams/referees/{teamId}', path);
  const [member] = page(res.json(), 'teamReferees', ['teamId', 'referee', 'joinedAt', 'joinedAtEpoch'], path);
  assert.equal(member.node.teamId, teamId);

  path = `/api/v2/teams/referees/history/${member.node.referee}`;
  res = await askOperation('/api/v2/teams/referees/history/{referee}', path);
  const history = page(res.json(), 'teamRefereeHistory', ['teamId', 'joinedAt', 'joinedAtEpoch'], path);
  assert.ok(
    history.some((e) => e.node.teamId === teamId),
    `${path}: the member's history holds the team`,
  );

  path = '/api/v2/referral-sets/referees?pagination.first=1';
  res = await askOperation('/api/v2/referral-sets/referees', path);
  const refereeRow = ['referralSetId', 'referee', 'joinedAt', 'atEpoch', 'totalRefereeNotionalTakerVolume', 'totalRefereeGeneratedRewards'];
  const [referee] = page(res.json(), 'referralSetReferees', refereeRow, path);

  path = `/api/v2/referral-sets/stats?referralSetId=${referee.node.referralSetId}&pagination.first=1`;
  res = await askOperation('/api/v2/referral-sets/stats', path);
  assert.equal(res.json().stats.edges.length, 1, `${path}: one row`);

  path = '/api/v2/referral-programs/current';
  res = await askOperation(path, path);
  const programFields = ['version', 'id', 'benefitTiers', 'endOfProgramTimestamp', 'windowLength', 'stakingTiers', 'endedAt'];
  assert.deepEqual(Object.keys(res.json().currentReferralProgram), programFields, path);

  const assets = (await askOperation('/explorer/api/assets', '/explorer/api/assets')).json();
  assert.equal(String(assets.assets.length), overview.counts.assets, 'as many assets as the overview counts');

  path = '/explorer/api/teams?pagination.first=2';
  res = await askOperation('/explorer/api/teams', path);
  const teamFields = ['id', 'name', 'referrer', 'totalMembers', 'createdAt', 'closed', 'epochsWithStats', 'eligibleEpochs'];
  assert.equal(page(res.json(), 'teams', teamFields, path).length, 2);

  // The contract's error body on a bad parameter, not a crash.
  res = await get('/api/v2/referral-sets?pagination.first=x', 400, 'application/json');
  const error = res.json();
  assert.deepEqual([Object.keys(error), error.code, error.details], [['code', 'message', 'details'], 3, []]);

  // Every operation the service documents was asked above.
  const document = (await get('/api/v2/openapi.json', 200, 'application/json')).json();
  assert.deepEqual(Object.keys(document.paths).sort(), [...checked].sort(), 'one request per operation of the OpenAPI document');

  // The explorer's page, and the script it loads.
  const html = (await get('/', 200, 'text/html')).text;
  assert.match(html, /^<!doctype html>/i);
  const script = /<script type="module" src="([^"]+)"/.exec(html)?.[1];
  assert.ok(script, 'the page loads its script');
  await get(`/${script}`, 200, 'text/javascript');

  // The API docs (Swagger UI, its files served by @fastify/static).
  assert.match((await get('/docs', 200, 'text/html')).text, /swagger-ui-bundle\.js/);
  await get('/docs/static/swagger-ui-bundle.js', 200, 'application/javascript');

  server.kill('SIGTERM');
  assert.equal(await exited, 0, 'serve stops cleanly on SIGTERM');
  console.log(`smoke test passed on node ${process.version}`);
} catch (err) {
  console.error(`smoke test FAILED on node ${process.version}: ${err.message}\n--- serve output ---\n${output}`);
  process.exitCode = 1;
} finally {
  if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  await exited;
  rmSync(dataDir, { recursive: true, force: true });
}
