/**
 * The response cache through HTTP on both stores: an answer is kept on its URL's second request,
 * a new block replaces cached answers at once (ingested in this process or by another one),
 * identical requests share one query, and the memory it holds stays within its bound.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { gunzipSync, inflateSync } from 'node:zlib';
import { describe, test } from 'node:test';
import pg from 'pg';
import { ingestEvents } from '../../src/ingest/ingest.js';
import { Metrics } from '../../src/http/metrics.js';
import { ndjsonBatches } from '../../src/sources/ndjson/decoder.js';
import { runCli } from '../helpers/cli.js';
import { blockLines, hex, setCreated } from '../helpers/events.js';
import { eventually, sample } from '../helpers/serve.js';
import type { ReferralSetsBody } from '../helpers/bodies.js';
import { get, startServer } from '../helpers/server.js';
import { useServedStore } from '../helpers/served-store.js';
import { STORE_KINDS } from '../helpers/stores.js';

const SETS = '/api/v2/referral-sets';

/** A block at `height` creating a referral set newer than every fixture set. */
function newSetBlock(height: number, setByte: string): string[] {
  return blockLines(height, [setCreated(hex(setByte), hex('cd'), String(1_800_000_000_000_000_000n + BigInt(height)))]);
}

/** A GET whose body is read as sent: fetch would decode it. */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; encoding: string | undefined; vary: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            encoding: res.headers['content-encoding'],
            vary: res.headers.vary,
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function cacheCounts(url: string): Promise<Record<string, number>> {
  const text = (await get(`${url}/metrics`)).text;
  const counts: Record<string, number> = {};
  for (const outcome of ['hit', 'shared', 'miss', 'bypass'])
    counts[outcome] = sample(text, `epochview_response_cache_requests_total{outcome="${outcome}"}`) ?? 0;
  counts.notAdmitted = sample(text, 'epochview_response_cache_not_admitted_total{reason="new"}') ?? 0;
  counts.crowded = sample(text, 'epochview_response_cache_not_admitted_total{reason="crowded"}') ?? 0;
  counts.queries = sample(text, 'epochview_store_query_duration_seconds_count{kind="query",outcome="ok"}') ?? 0;
  counts.bytes = sample(text, 'epochview_response_cache_bytes') ?? 0;
  counts.entries = sample(text, 'epochview_response_cache_entries') ?? 0;
  return counts;
}

for (const kind of STORE_KINDS) {
  describe(`response cache on ${kind}`, () => {
    // The truth to compare with: a server without cache on the same store.
    const plain = useServedStore(kind, {
      dataset: 'referral-sets',
      server: { responseCacheBytes: 0, rowCacheBytes: 0 },
    });

    test('an answer is kept on its second request and a hit from the third until a block is applied, then the new head is answered', async () => {
      const metrics = new Metrics();
      const srv = await startServer(plain.store, { metrics, rowCacheBytes: 0 });
      try {
        const url = `${SETS}?pagination.first=2`;
        const first = await get(srv.url + url);
        assert.equal(first.status, 200);
        const counts1 = await cacheCounts(srv.url);
        assert.deepEqual(
          [counts1.hit, counts1.shared, counts1.miss, counts1.notAdmitted, counts1.queries, counts1.entries],
          [0, 0, 1, 1, 1, 0],
        );
        for (let i = 0; i < 2; i++) {
          const again = await get(srv.url + url);
          assert.equal(again.text, first.text);
          assert.equal(again.headers.get('x-block-height'), first.headers.get('x-block-height'));
        }
        const counts = await cacheCounts(srv.url);
        assert.deepEqual(
          [counts.hit, counts.shared, counts.miss, counts.bypass, counts.notAdmitted, counts.queries, counts.entries],
          [1, 0, 2, 0, 1, 2, 1],
        );

        const height = Number(first.headers.get('x-block-height')) + 1;
        await ingestEvents(plain.store, ndjsonBatches([newSetBlock(height, 'a1').join('\n')]));
        await eventually(
          'the new head answered',
          async () => (await get(srv.url + url)).headers.get('x-block-height') === String(height),
          5000,
        );
        const now = await get(srv.url + url);
        assert.equal(now.text, (await get(plain.url + url)).text);
        assert.equal((now.body as ReferralSetsBody).referralSets.edges[0]!.node.id, hex('a1'));
        assert.notEqual(now.text, first.text);
      } finally {
        await srv.close();
      }
    });

    test('identical requests in flight share one store query', async () => {
      const metrics = new Metrics();
      const srv = await startServer(plain.store, { metrics, rowCacheBytes: 0 });
      try {
        const url = `${srv.url}${SETS}?pagination.first=4`;
        // Asked once before: the answer computed for the burst is kept, and later arrivals hit.
        assert.equal((await get(url)).status, 200);
        const answers = await Promise.all(Array.from({ length: 20 }, () => get(url)));
        const expected = (await get(`${plain.url}${SETS}?pagination.first=4`)).text;
        for (const a of answers) assert.equal(a.text, expected);
        const counts = await cacheCounts(srv.url);
        assert.equal(counts.miss, 2);
        assert.equal(counts.notAdmitted, 1);
        assert.equal(counts.hit! + counts.shared!, 19);
        assert.equal(counts.queries, 2);
      } finally {
        await srv.close();
      }
    });

    test('the memory held stays within the bound; a full cache keeps the answers asked most per byte', async () => {
      const metrics = new Metrics();
      const bound = 16_384;
      const srv = await startServer(plain.store, { metrics, responseCacheBytes: bound, rowCacheBytes: 0 });
      try {
        // Pages of 1 to 12 sets, each asked twice (kept on the second request), smallest first;
        // not gzipped, so that each entry's bytes stay what they are when it is kept.
        const ask = (u: string) => get(u, { headers: { 'accept-encoding': 'identity' } });
        const urls = Array.from({ length: 12 }, (_, i) => `${SETS}?pagination.first=${i + 1}`);
        for (const u of urls) for (let i = 0; i < 2; i++) assert.equal((await ask(srv.url + u)).status, 200);
        const filled = await cacheCounts(srv.url);
        assert.deepEqual([filled.miss, filled.notAdmitted, filled.hit], [24, 12, 0]);
        assert.ok(filled.bytes! > 0 && filled.bytes! <= bound, `${filled.bytes} bytes held`);
        assert.ok(filled.entries! >= 1 && filled.entries! < 12, `${filled.entries} entries`);
        assert.equal(filled.crowded, 12 - filled.entries!, 'the bigger pages, asked as often as the smaller ones kept: not kept');
        // The smallest is still there, the biggest is not.
        assert.equal((await ask(srv.url + urls[0])).text, (await get(plain.url + urls[0])).text);
        const after = await cacheCounts(srv.url);
        assert.equal(after.hit! - filled.hit!, 1);
        // Asked more, the biggest earns its room: smaller answers asked less per byte go.
        let asked = 0;
        for (; asked < 50; asked++) {
          const before = await cacheCounts(srv.url);
          assert.equal((await ask(srv.url + urls[11])).text, (await get(plain.url + urls[11])).text);
          if ((await cacheCounts(srv.url)).hit! > before.hit!) break;
        }
        assert.ok(asked > 0 && asked < 50, `asked ${asked} times more`);
        const last = await cacheCounts(srv.url);
        assert.ok(last.bytes! <= bound, `${last.bytes} bytes held`);
        assert.ok(last.entries! <= filled.entries!, 'smaller answers went to make room');
      } finally {
        await srv.close();
      }
    });

    test('gzip: a cached answer is gzipped once, with the encoding @fastify/compress would choose', async () => {
      const metrics = new Metrics();
      const srv = await startServer(plain.store, { metrics, rowCacheBytes: 0 });
      try {
        const url = SETS; // 13 sets: over the 1,024 bytes from which answers are compressed.
        const identity = await rawGet(plain.url + url, {});
        assert.equal(identity.encoding, undefined);
        assert.ok(identity.body.length >= 1024, `${identity.body.length} bytes`);
        const cases: [Record<string, string>, string | undefined][] = [
          [{ 'accept-encoding': 'gzip' }, 'gzip'],
          [{ 'accept-encoding': 'gzip, deflate, br' }, 'gzip'],
          [{ 'accept-encoding': 'x-gzip' }, 'gzip'],
          [{ 'accept-encoding': '*' }, 'gzip'],
          [{ 'accept-encoding': 'deflate' }, 'deflate'],
          [{ 'accept-encoding': 'deflate, gzip;q=0.5' }, 'deflate'],
          [{ 'accept-encoding': 'identity' }, undefined],
          [{ 'accept-encoding': 'br' }, undefined],
          [{ 'accept-encoding': 'gzip', 'x-no-compression': '1' }, undefined],
          // An explicit q=0 refuses a coding, `*` or not: `*` stands for the codings not named (RFC 9110 §12.5.3).
          [{ 'accept-encoding': 'gzip;q=0, *' }, 'deflate'],
          [{ 'accept-encoding': '*, GZIP; q=0' }, 'deflate'],
          [{ 'accept-encoding': 'x-gzip;q=0, *' }, 'deflate'],
          [{ 'accept-encoding': 'gzip;q=0, deflate;q=0, *' }, undefined],
          [{ 'accept-encoding': 'deflate;q=0.5, *;q=0.8' }, 'gzip'],
          [{ 'accept-encoding': '*;q=0' }, undefined],
        ];
        // A GraphQL GET is negotiated alike.
        const graphql = `/graphql?query=${encodeURIComponent('{ referralSets { edges { node { id referrer createdAt } } } }')}`;
        const graphqlIdentity = await rawGet(plain.url + graphql, {});
        assert.ok(graphqlIdentity.body.length >= 1024, `${graphqlIdentity.body.length} bytes`);
        for (const [headers, encoding] of cases) {
          const res = await rawGet(srv.url + graphql, headers);
          assert.equal(res.encoding, encoding, `GraphQL: ${JSON.stringify(headers)}`);
          const decoded = encoding === 'gzip' ? gunzipSync(res.body) : encoding === 'deflate' ? inflateSync(res.body) : res.body;
          assert.deepEqual(decoded, graphqlIdentity.body, `GraphQL: ${JSON.stringify(headers)}`);
        }
        for (const [headers, encoding] of cases) {
          for (const server of [srv, plain]) {
            const res = await rawGet(server.url + url, headers);
            assert.equal(res.status, 200);
            assert.equal(res.encoding, encoding, JSON.stringify(headers));
            // Every answer varies by the encoding asked, compressed or not (HTTP caches: src/http/http-caching.ts).
            assert.equal(res.vary, 'accept-encoding', JSON.stringify(headers));
            const decoded = encoding === 'gzip' ? gunzipSync(res.body) : encoding === 'deflate' ? inflateSync(res.body) : res.body;
            assert.deepEqual(decoded, identity.body, JSON.stringify(headers));
          }
        }
        // The gzipped bytes are held beside the body: the same bytes each time, counted once.
        const held = (await cacheCounts(srv.url)).bytes!;
        const a = await rawGet(srv.url + url, { 'accept-encoding': 'gzip' });
        const b = await rawGet(srv.url + url, { 'accept-encoding': 'gzip' });
        assert.deepEqual(a.body, b.body);
        assert.equal((await cacheCounts(srv.url)).bytes, held);
        // A body under 1,024 bytes goes as it is.
        const small = await rawGet(`${srv.url}${SETS}?pagination.first=1`, { 'accept-encoding': 'gzip' });
        assert.equal(small.encoding, undefined);
        assert.ok(small.body.length < 1024);
      } finally {
        await srv.close();
      }
    });

    test('errors are not cached: a bad request is judged again each time', async () => {
      const metrics = new Metrics();
      const srv = await startServer(plain.store, { metrics, rowCacheBytes: 0 });
      try {
        for (let i = 0; i < 2; i++) {
          const res = await get(`${srv.url}${SETS}?pagination.first=x`);
          assert.equal(res.status, 400);
        }
        const counts = await cacheCounts(srv.url);
        assert.equal(counts.entries, 0);
        assert.equal(counts.hit, 0);
      } finally {
        await srv.close();
      }
    });
  });
}

describe('response cache on the PostgreSQL server, written by another process', { skip: !STORE_KINDS.includes('postgres') }, () => {
  const served = useServedStore('postgres', { dataset: 'referral-sets', server: false });

  const ingestBlock = async (lines: string[]) => {
    const res = await runCli(['ingest', '-', ...served.ts.args], { stdin: `${lines.join('\n')}\n` });
    assert.equal(res.code, 0, res.stderr);
  };

  test('a block committed by `epochview ingest` is answered at once, and after the listening connection was lost', async () => {
    const srv = await startServer(served.store);
    const admin = new pg.Client({ connectionString: served.ts.databaseUrl });
    await admin.connect();
    try {
      const url = `${srv.url}${SETS}?pagination.first=1`;
      const before = await get(url);
      assert.equal((await get(url)).text, before.text);
      const height = Number(before.headers.get('x-block-height'));

      await ingestBlock(newSetBlock(height + 1, 'b1'));
      await eventually(
        'the block of the other process',
        async () => (await get(url)).headers.get('x-block-height') === String(height + 1),
        5000,
      );
      assert.equal(((await get(url)).body as ReferralSetsBody).referralSets.edges[0]!.node.id, hex('b1'));

      // Cut the listening connection, then commit a block whose notice nobody hears.
      const cut = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
      );
      assert.equal(cut.rowCount, 1);
      await ingestBlock(newSetBlock(height + 2, 'b2'));
      await eventually(
        'the block committed while not listening',
        async () => (await get(url)).headers.get('x-block-height') === String(height + 2),
        5000,
      );
      assert.equal(((await get(url)).body as ReferralSetsBody).referralSets.edges[0]!.node.id, hex('b2'));
      // Listening again: the notices of later blocks are heard.
      await eventually('listening again', async () => {
        const r = await admin.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
        );
        return r.rows[0].n === 1;
      });
      await ingestBlock(newSetBlock(height + 3, 'b3'));
      await eventually('the next block', async () => (await get(url)).headers.get('x-block-height') === String(height + 3), 5000);
      assert.equal(((await get(url)).body as ReferralSetsBody).referralSets.edges[0]!.node.id, hex('b3'));
    } finally {
      await admin.end();
      await srv.close();
    }
  });
});
