/**
 * The topology of "Running at scale" (README), on a primary and a streaming hot standby that are
 * private clusters of this test: a writer follows a growing file on the primary, `serve` runs
 * with the read-only role of the README on the standby and on the primary. The standby's answers
 * converge to the primary's, page for page; GraphQL and gRPC answer there as REST does; X-Block-Height
 * advances there; its response cache hits; a restart of the standby gives 503s and then answers again, the same process throughout;
 * and two writers at once leave the data exactly as one writer does.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openStore } from '../../src/db/open.js';
import { WRITER_LOCK_KEY } from '../../src/db/writer-lock.js';
import { runCli } from '../helpers/cli.js';
import { dumpReadModels } from '../helpers/dump.js';
import { createPgCluster, createStandby, type PgCluster } from '../../scripts/pg-cluster.js';
import { eventually, sample, startServe, type ServeProcess } from '../helpers/serve.js';
import { get } from '../helpers/server.js';
import { type Connection, decode, encode, grpcAddress, rawCall, rawClient, SERVICE } from '../helpers/grpc.js';
import { STORE_KINDS } from '../helpers/stores.js';

const UNAVAILABLE = '{"code":14,"message":"Unavailable error","details":[]}';
const SETS = '/api/v2/referral-sets?pagination.first=3';
/** serve's gRPC door too, on a free loopback port. */
const GRPC = ['--grpc-port', '0', '--grpc-host', '127.0.0.1'];

/** The README's statements for the roles, as written there: [as a superuser, in the database]. */
function readmeGrants(): [string, string] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Running at scale'));
  const blocks = [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
  assert.equal(blocks.length >= 2, true, 'two sql blocks in Running at scale');
  return [blocks[0]!, blocks[1]!];
}

/** Runs each statement of `text` (one per line or more, ending with ";") on its own, as psql does. */
async function sql(url: string, text: string): Promise<pg.QueryResult[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const results: pg.QueryResult[] = [];
    for (const statement of text.split(/;\s*(?:\n|$)/).filter((t) => t.trim() !== '')) results.push(await c.query(statement));
    return results;
  } finally {
    await c.end();
  }
}

async function height(url: string): Promise<string | null> {
  const res = await get(`${url}/readyz`);
  return res.status === 200 ? ((res.body as { blockHeight: string | null }).blockHeight ?? null) : null;
}

/** Every page of every operation (each team's statistics), walked forward: the bodies in order. */
async function everyPage(base: string, teams: string[]): Promise<string[]> {
  const bodies: string[] = [];
  const walk = async (path: string, key: string, size: number) => {
    let after: string | undefined;
    for (;;) {
      const sep = path.includes('?') ? '&' : '?';
      const res = await get(`${base}${path}${sep}pagination.first=${size}${after ? `&pagination.after=${encodeURIComponent(after)}` : ''}`);
      assert.equal(res.status, 200, res.text);
      bodies.push(res.text);
      const page = (res.body as Record<string, { pageInfo: { hasNextPage: boolean; endCursor: string } }>)[key]!;
      if (!page.pageInfo.hasNextPage) return;
      after = page.pageInfo.endCursor;
    }
  };
  await walk('/api/v2/referral-sets', 'referralSets', 10);
  await walk('/api/v2/rewards/epoch/summaries', 'summaries', 100);
  for (const team of teams) await walk(`/api/v2/teams/${team}/stats?aggregationEpochs=20`, 'statistics', 5);
  return bodies;
}

async function cacheHits(url: string): Promise<number> {
  return sample((await get(`${url}/metrics`)).text, 'epochview_response_cache_requests_total{outcome="hit"}') ?? 0;
}

/** Whether a repeated request is answered from the cache (once the head it knows is the page's). */
async function repeatHits(url: string): Promise<boolean> {
  const first = await get(url + SETS);
  const before = await cacheHits(url);
  const again = await get(url + SETS);
  assert.equal(again.text, first.text);
  return (await cacheHits(url)) === before + 1;
}

describe('scale out: one writer on the primary, serve on a hot standby, a read-only role', {
  skip: !STORE_KINDS.includes('postgres'),
  timeout: 600_000,
}, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'epochview-scale-'));
  const file = join(tmp, 'chain.ndjson');
  const full = join(tmp, 'full.ndjson');
  let primary: PgCluster;
  let standby: PgCluster;
  /** The rest of the chain, appended to the followed file piece by piece: its text, and the height of its last block. */
  const pieces: { text: string; height: string }[] = [];
  /** The height of the last block in the followed file. */
  let fileHeight: string;
  let finalHeight: string;
  let teams: string[];
  const serves: ServeProcess[] = [];
  const writerUrl = () => primary.urlOf('epochview', 'epochview');
  const standbyReaderUrl = () => standby.urlOf('epochview', 'epochview_reader');
  let onStandby: ServeProcess;
  let onPrimary: ServeProcess;
  let writer: ServeProcess;

  const serve = async (args: string[], opts: { listening?: boolean } = {}) => {
    const s = await startServe([...args, '--log-level', 'info'], { EPOCHVIEW_FOLLOW_POLL_MS: '50' }, opts);
    serves.push(s);
    return s;
  };
  const appendPiece = () => {
    const piece = pieces.shift()!;
    appendFileSync(file, piece.text);
    fileHeight = piece.height;
    return piece.height;
  };
  /** The X-Block-Height of a page. */
  const pageHeight = async (url: string) => (await get(url + SETS)).headers.get('x-block-height');

  before(async () => {
    primary = await createPgCluster();
    const [asSuperuser, inDatabase] = readmeGrants();
    await sql(primary.url, asSuperuser);
    await sql(primary.urlOf('epochview'), inDatabase);
    await sql(primary.url, 'CREATE DATABASE single OWNER epochview;\nCREATE DATABASE twice OWNER epochview;');
    standby = await createStandby(primary);

    assert.equal((await runCli(['demo', '--scale', 'small', '--out', full])).code, 0);
    // Cut at block ends, so that the height each piece ends with is known.
    const lines = readFileSync(full, 'utf8')
      .split('\n')
      .slice(0, -1)
      .map((l) => `${l}\n`);
    const ends = lines.flatMap((l, i) =>
      l.includes('"type":"BUS_EVENT_TYPE_END_BLOCK"') ? [{ i: i + 1, height: /"endBlock":\{"height":"(\d+)"/.exec(l)![1]! }] : [],
    );
    const cut = (fraction: number) => ends.find((e) => e.i >= lines.length * fraction)!;
    const first = cut(0.4);
    writeFileSync(file, lines.slice(0, first.i).join(''));
    fileHeight = first.height;
    let from = first.i;
    for (const fraction of [0.5, 0.6, 0.7, 0.8, 0.9, 1]) {
      const end = cut(fraction);
      pieces.push({ text: lines.slice(from, end.i).join(''), height: end.height });
      from = end.i;
    }
    assert.equal(from, lines.length);
    // What one writer makes of the whole chain, to compare with.
    const single = await runCli(['ingest', full, '--database-url', primary.urlOf('single', 'epochview')]);
    assert.equal(single.code, 0, single.stderr);
    finalHeight = /last height: (\d+)/.exec(single.stderr)![1]!;
    teams = (await sql(primary.urlOf('single'), `SELECT encode(id, 'hex') AS id FROM teams ORDER BY id`))[0]!.rows.map(
      (r) => r.id as string,
    );
    assert.ok(teams.length > 3);
  });

  after(async () => {
    await Promise.all(serves.map((s) => s.stop('SIGKILL')));
    await standby?.destroy();
    await primary?.destroy();
    rmSync(tmp, { recursive: true, force: true });
  });

  test('serve waits for the schema the writer migrates; a writer on the standby is refused with a clear message', async () => {
    onStandby = await serve(['--database-url', standbyReaderUrl(), ...GRPC], { listening: true });
    const behind = new RegExp(
      `^the schema of postgres://epochview_reader@127\\.0\\.0\\.1:${standby.port}/epochview is behind: migrations 001_read_models, 002_[a-z_]+, .* not applied; run \`epochview migrate\` against the primary`,
    );
    await eventually('the schema check in the log', () =>
      onStandby.logs().some((l) => l.msg === 'waiting for the schema' && behind.test(String(l.err))),
    );
    assert.equal((await get(`${onStandby.url}/healthz`)).status, 200);
    for (const path of ['/readyz', SETS]) {
      const res = await get(onStandby.url + path);
      assert.equal(res.status, 503, path);
      assert.equal(res.text, UNAVAILABLE);
    }

    const standbyWriter = standby.urlOf('epochview', 'epochview');
    const location = `postgres://epochview@127.0.0.1:${standby.port}/epochview`;
    const ingest = await runCli(['ingest', file, '--database-url', standbyWriter]);
    assert.equal(ingest.code, 1);
    assert.equal(ingest.stderr, `error: ${location} is a hot standby (read-only); point the writer at the primary\n`);
    const migrate = await runCli(['migrate', '--database-url', standbyWriter]);
    assert.equal(migrate.code, 1);
    assert.equal(migrate.stderr, `error: ${location} is a hot standby (read-only); point epochview migrate at the primary\n`);
    const follow = await runCli(['serve', '--port', '0', '--database-url', standbyWriter, '--follow', file, '--log-level', 'silent']);
    assert.equal(follow.code, 1);
    assert.equal(follow.stderr, `error: ${location} is a hot standby (read-only); point the writer at the primary\n`);

    // The read-only role given to a writer on the primary: refused at once, not waited out as a
    // store that is down.
    const readOnly = await runCli(['ingest', file, '--database-url', primary.urlOf('epochview', 'epochview_reader')]);
    assert.equal(readOnly.code, 1);
    assert.equal(readOnly.stderr, 'error: cannot execute CREATE TABLE in a read-only transaction\n');

    writer = await serve(['--database-url', writerUrl(), '--follow', file]);
    onPrimary = await serve(['--database-url', primary.urlOf('epochview', 'epochview_reader'), ...GRPC]);
    // Ready by itself once the migrations are replayed: the same process.
    await eventually('serve on the standby ready', async () => (await get(`${onStandby.url}/readyz`)).status === 200, 60_000);
    await eventually('the first part of the chain on the standby', async () => (await height(onStandby.url)) === fileHeight, 60_000);
    // The banner follows readiness once the server has read the chain head.
    const banner = /^epochview serving postgres:\/\/epochview_reader@127\.0\.0\.1:\d+\/epochview on http/m;
    await eventually('the banner', () => banner.test(onStandby.stdout()));
    assert.equal(onStandby.child.exitCode, null);
  });

  test('X-Block-Height advances on the standby as the writer follows the growing file', async () => {
    const seen = [Number(await pageHeight(onStandby.url))];
    for (let i = 0; i < 3; i++) {
      const target = appendPiece();
      // The primary's reader hears of the new blocks from the trigger's NOTIFY (a read-only role): its cached page moves on.
      await eventually(`the primary at ${target}`, async () => (await pageHeight(onPrimary.url)) === target, 60_000);
      await eventually(`the standby at ${target}`, async () => (await pageHeight(onStandby.url)) === target, 60_000);
      seen.push(Number(target));
    }
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! > seen[i - 1]!, `heights ${seen.join(', ')}`);
  });

  test('/readyz and /metrics say primary or standby, and the replay lag', async () => {
    const ready = (await get(`${onStandby.url}/readyz`)).body as Record<string, unknown>;
    assert.deepEqual(Object.keys(ready), ['status', 'store', 'role', 'replayLagBytes', 'blockHeight', 'blockTime', 'chainId']);
    assert.equal(ready.role, 'standby');
    assert.equal(typeof ready.replayLagBytes, 'number');
    assert.ok((ready.replayLagBytes as number) >= 0);
    assert.deepEqual(Object.keys((await get(`${onPrimary.url}/readyz`)).body as object), [
      'status',
      'store',
      'role',
      'blockHeight',
      'blockTime',
      'chainId',
    ]);
    const metrics = (await get(`${onStandby.url}/metrics`)).text;
    assert.equal(sample(metrics, 'epochview_store_role{role="standby"}'), 1);
    assert.equal(sample(metrics, 'epochview_store_role{role="primary"}'), 0);
    assert.ok(sample(metrics, 'epochview_store_replay_lag_bytes')! >= 0);
    assert.equal(sample((await get(`${onPrimary.url}/metrics`)).text, 'epochview_store_role{role="primary"}'), 1);
  });

  test('the standby converges to the primary: every page of every operation is the same', async () => {
    const target = appendPiece();
    await eventually('the primary caught up', async () => (await pageHeight(onPrimary.url)) === target, 60_000);
    await eventually('the standby caught up', async () => (await pageHeight(onStandby.url)) === target, 60_000);
    const fromPrimary = await everyPage(onPrimary.url, teams);
    const fromStandby = await everyPage(onStandby.url, teams);
    assert.ok(fromPrimary.length > 2 * teams.length, `${fromPrimary.length} pages`);
    assert.deepEqual(fromStandby, fromPrimary);
  });

  test('GraphQL and gRPC answer on the standby and with the read-only role as REST does', async () => {
    const rest = await get(`${onStandby.url}/api/v2/referral-sets?pagination.first=1000`);
    const restIds = (rest.body as { referralSets: Connection }).referralSets.edges.map((e) => e.node.id);
    const restHeight = rest.headers.get('x-block-height')!;
    assert.ok(restIds.length > 10, `${restIds.length} sets`);
    for (const s of [onStandby, onPrimary]) {
      const graphql = await get(
        `${s.url}/graphql?query=${encodeURIComponent('{ referralSets(pagination: {first: 1000}) { edges { node { id } } } }')}`,
      );
      assert.equal(graphql.status, 200, graphql.text);
      const data = (graphql.body as { data: { referralSets: Connection } }).data;
      assert.deepEqual(
        data.referralSets.edges.map((e) => e.node.id),
        restIds,
      );
      assert.equal(graphql.headers.get('x-block-height'), restHeight);
      const client = rawClient(grpcAddress(s));
      try {
        const call = await rawCall(
          client,
          `/${SERVICE}/ListReferralSets`,
          encode('ListReferralSetsRequest', { pagination: { first: 1000 } }),
        );
        assert.equal(call.error, null);
        assert.deepEqual(
          decode('ListReferralSetsResponse', call.response).referralSets!.edges.map((e) => e.node.id),
          restIds,
        );
        assert.deepEqual(call.headers?.get('x-block-height'), [restHeight]);
      } finally {
        client.close();
      }
    }
  });

  test('the response cache records hits on the standby', async () => {
    await eventually('a cache hit on the standby', () => repeatHits(onStandby.url));
  });

  test('a restart of the standby: 503s, then answers again without restarting serve', async () => {
    await standby.stop();
    // Cached answers of the head last read may still come for up to one poll (200 ms).
    await eventually('503s', async () => (await get(onStandby.url + SETS)).status === 503);
    for (const path of [SETS, '/readyz']) {
      const res = await get(onStandby.url + path);
      assert.equal(res.status, 503, path);
      assert.equal(res.text, UNAVAILABLE);
    }
    assert.equal((await get(`${onStandby.url}/healthz`)).status, 200);
    // Blocks arrive while the standby is down; they stream once it is back.
    const target = appendPiece();
    await eventually('the blocks on the primary', async () => (await pageHeight(onPrimary.url)) === target, 60_000);
    await standby.start();
    await eventually('answers again, caught up', async () => (await pageHeight(onStandby.url)) === target, 60_000);
    await eventually('the cache working again', () => repeatHits(onStandby.url));
    assert.equal(onStandby.child.exitCode, null, 'the same process throughout');
  });

  test('two writers at once leave the data as one writer would', async () => {
    // A second follower of the same file waits for the lock, answering requests meanwhile.
    const spare = await serve(['--database-url', writerUrl(), '--follow', file]);
    const waiting = () => spare.logs().find((l) => l.msg === 'waiting for the writer lock: another process writes to this database');
    await eventually('the spare waiting for the lock', () => waiting() !== undefined);
    assert.match(
      String(waiting()!.holder),
      new RegExp(`^epochview serve --follow \\(pid ${writer.child.pid} on .* \\(server pid \\d+, from 127\\.0\\.0\\.1\\)$`),
    );
    assert.equal((await get(spare.url + SETS)).status, 200);
    // An ingest that would rather not wait says so and exits 75.
    const busy = await runCli(['ingest', full, '--no-wait', '--database-url', writerUrl()]);
    assert.equal(busy.code, 75);
    assert.match(
      busy.stderr,
      /^another writer holds the writer lock of postgres:\/\/epochview@127\.0\.0\.1:\d+\/epochview: epochview serve --follow \(pid \d+ on .* \(server pid \d+, from 127\.0\.0\.1\)\nnot waiting \(--no-wait\): nothing was ingested; run again once it is done\n$/,
    );

    // The writer dies: the spare takes over and follows what comes next.
    await writer.stop('SIGKILL');
    await eventually('the spare holding the lock', () => spare.logs().some((l) => l.msg === 'writer lock held'));
    appendPiece();
    // Its lock connection is cut: it stops writing, takes the lock again, and goes on.
    const admin = new pg.Client({ connectionString: primary.urlOf('epochview') });
    await admin.connect();
    try {
      await eventually('the lock connection cut', async () => {
        const r = await admin.query(
          `SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity WHERE application_name LIKE 'epochview serve --follow%'`,
        );
        return r.rowCount === 1;
      });
    } finally {
      await admin.end();
    }
    await eventually('the lock held again', () => spare.logs().filter((l) => l.msg === 'writer lock held').length === 2);
    assert.ok(spare.logs().some((l) => l.msg === 'lost the writer lock: stopped writing; taking it again'));
    assert.equal(pieces.length, 0);
    assert.equal(fileHeight, finalHeight);
    await eventually('the whole chain applied', async () => (await height(onPrimary.url)) === finalHeight, 60_000);

    // Two ingests of the whole chain at once into an empty database, both waiting at first for
    // a lock this test holds: one ingests, the other waits for it and then finds nothing to do.
    const twice = primary.urlOf('twice', 'epochview');
    const holder = new pg.Client({ connectionString: primary.urlOf('twice'), application_name: 'the test' });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [WRITER_LOCK_KEY]);
      const both = Promise.all([runCli(['ingest', full, '--database-url', twice]), runCli(['ingest', full, '--database-url', twice])]);
      await eventually('both ingests waiting', async () => {
        const r = await holder.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted`, [
          WRITER_LOCK_KEY,
        ]);
        return r.rows[0].n === 2;
      });
      await holder.query('SELECT pg_advisory_unlock($1)', [WRITER_LOCK_KEY]);
      const [a, b] = await both;
      for (const r of [a, b]) {
        assert.equal(r.code, 0, r.stderr);
        assert.match(
          r.stderr,
          /^waiting for the writer lock of postgres:\/\/epochview@127\.0\.0\.1:\d+\/twice, held by the test \(server pid \d+\) \(--no-wait: exit instead\)$/m,
        );
      }
      assert.deepEqual([a, b].map((r) => /ingested (\d+) blocks/.exec(r.stderr)![1] === '0').sort(), [false, true]);
    } finally {
      await holder.end();
    }

    const dump = async (url: string) => {
      const store = await openStore({ databaseUrl: url, dataDir: '' });
      try {
        return await dumpReadModels(store);
      } finally {
        await store.close();
      }
    };
    const one = await dump(primary.urlOf('single'));
    assert.equal(one.chain_head![0]!.split('|')[0], finalHeight);
    assert.deepEqual(await dump(primary.urlOf('epochview')), one);
    assert.deepEqual(await dump(twice), one);
  });
});
