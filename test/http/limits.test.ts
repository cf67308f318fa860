/** Request limits through HTTP: URL length, repeated values, request timeout, rate limit. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openStore } from '../../src/db/open.js';
import type { SqlParam, Store } from '../../src/db/store.js';
import { runCli } from '../helpers/cli.js';
import { useServedStore } from '../helpers/served-store.js';
import { startServe } from '../helpers/serve.js';
import type { ErrorBody } from '../helpers/bodies.js';
import { postGraphql } from '../helpers/graphql.js';
import { encode, grpcAddress, rawCall, rawClient, SERVICE, status } from '../helpers/grpc.js';
import { Metadata } from '@grpc/grpc-js';
import { connect } from 'node:net';
import { get, rawRequest, startServer } from '../helpers/server.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';

const SETS = '/api/v2/referral-sets';
const SUMMARIES = '/api/v2/rewards/epoch/summaries';

/** A URL of exactly `bytes` bytes (path and query) on the referral sets route. */
function urlOfLength(bytes: number): string {
  const prefix = `${SETS}?pad=`;
  return prefix + 'x'.repeat(bytes - prefix.length);
}

const repeated = (key: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${key}=${(i + 1).toString(16).padStart(2, '0')}`).join('&');

/** The store with `before()` awaited ahead of each of its queries (both kinds: query and queryRow). */
function delayedStore(store: Store, before: (params?: readonly SqlParam[]) => Promise<unknown>): Store {
  return Object.create(store, {
    query: {
      value: async <Row extends object>(sql: string, params?: readonly SqlParam[]) => {
        await before(params);
        return store.query<Row>(sql, params);
      },
    },
    queryRow: {
      value: async <Row extends object>(sql: string, params?: readonly SqlParam[]) => {
        await before(params);
        return store.queryRow<Row>(sql, params);
      },
    },
  }) as Store;
}

/**
 * A store whose queries, once `hold()` is called, wait until `release()`: an answer given in
 * between did not wait for the store. (Held from the start, the server's first read of the chain
 * head would keep it from starting.)
 */
function heldStore(store: Store): { store: Store; hold(): void; release(): void } {
  let held: Promise<void> | undefined;
  let release = () => {};
  return {
    store: delayedStore(store, async () => held),
    hold() {
      held = new Promise((resolve) => {
        release = resolve;
      });
    },
    release: () => release(),
  };
}

/** What the server at `url` answers `bytes` with, the connection read to its end. */
function rawExchange(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

for (const kind of STORE_KINDS) {
  describe(`limits on ${kind}`, () => {
    const served = useServedStore(kind, { dataset: 'referral-sets', server: false });

    test('URL length: at the limit is answered, one byte more is a 400 with code 3, on any route', async () => {
      const srv = await startServer(served.store, { limits: { maxUrlLength: 200 } });
      try {
        assert.equal((await get(srv.url + urlOfLength(200))).status, 200);
        const over = await get(srv.url + urlOfLength(201));
        assert.equal(over.status, 400);
        assert.equal(over.text, '{"code":3,"message":"request URL too long: 201 bytes, the limit is 200","details":[]}');
        const unknown = await get(`${srv.url}/nope?${'y'.repeat(300)}`);
        assert.equal(unknown.status, 400);
        assert.equal(unknown.text, '{"code":3,"message":"request URL too long: 306 bytes, the limit is 200","details":[]}');
        // A long path parameter reaches the operation (which judges the id) up to the URL limit…
        const longId = await get(`${srv.url}/api/v2/teams/${'z'.repeat(150)}/stats`);
        assert.equal(longId.status, 400);
        assert.equal((longId.body as ErrorBody).details[0]!.message, 'failed to list team referees');
        // …beyond it the router's own error keeps the contract's body, as does a bad path escape.
        const longPath = await get(`${srv.url}/api/v2/teams/${'z'.repeat(300)}/stats`);
        assert.equal(longPath.status, 400);
        assert.equal(longPath.text, '{"code":3,"message":"request URL too long: 320 bytes, the limit is 200","details":[]}');
        // /graphql's keeps GraphQL's body.
        const graphql = await get(`${srv.url}/graphql?query=${'y'.repeat(300)}`);
        assert.equal(graphql.status, 400);
        assert.equal(
          graphql.text,
          '{"errors":[{"message":"request URL too long: 315 bytes, the limit is 200","extensions":{"code":3,"type":"InvalidArgument"}}],"data":null}',
        );
        const badEscape = await get(`${srv.url}/api/v2/teams/%zz/stats`);
        assert.equal(badEscape.status, 400);
        assert.equal(badEscape.text, '{"code":3,"message":"invalid URL escape in the path","details":[]}');
        // Raised by the router before any hook, it still lets any web page read it (contract §3).
        assert.equal(badEscape.headers.get('access-control-allow-origin'), '*');
      } finally {
        await srv.close();
      }
    });

    test("URL length: the default (16384) and a larger limit are ours to enforce, not Node's header limit", async () => {
      const byDefault = await startServer(served.store);
      const large = await startServer(served.store, { limits: { maxUrlLength: 40_000 } });
      try {
        assert.equal((await get(byDefault.url + urlOfLength(16_384))).status, 200);
        const over = await get(byDefault.url + urlOfLength(16_385));
        assert.equal(over.status, 400);
        assert.equal(over.text, '{"code":3,"message":"request URL too long: 16385 bytes, the limit is 16384","details":[]}');
        assert.equal((await get(large.url + urlOfLength(40_000))).status, 200);
        assert.equal((await get(large.url + urlOfLength(40_001))).status, 400);
        // Past Node's limit on the head (the URL limit and 16 KiB), Node refuses it before any
        // request exists: a 431, and still the contract's body; bytes that are no HTTP, a 400.
        const head = await rawExchange(byDefault.url, `GET ${urlOfLength(40_000)} HTTP/1.1\r\nhost: x\r\n\r\n`);
        assert.equal(
          head,
          'HTTP/1.1 431 Request Header Fields Too Large\r\naccess-control-allow-origin: *\r\ncontent-type: application/json\r\n' +
            'cache-control: no-store\r\ncontent-length: 119\r\nconnection: close\r\n\r\n' +
            '{"code":3,"message":"request head too large: more than 32768 bytes (the URL limit and 16 KiB of headers)","details":[]}',
        );
        const garbage = await rawExchange(byDefault.url, 'GARBAGE\r\n\r\n');
        assert.match(
          garbage,
          /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*\r\n\r\n\{"code":3,"message":"malformed HTTP request","details":\[\]\}$/,
        );
        // An OPTIONS that is no CORS preflight is another method (501 on a route's path, else
        // 404), not the CORS plugin's plain-text 400; a preflight is the plugin's 204.
        const options = (path: string, headers: Record<string, string> = {}) => rawRequest(byDefault.url + path, headers, 'OPTIONS');
        const plain = await options('/api/v2/referral-sets');
        assert.equal(plain.status, 501);
        assert.equal(plain.body.toString(), '{"code":12,"message":"Method Not Allowed","details":[]}');
        assert.deepEqual(plain.headers.slice(0, 2), [
          ['access-control-allow-origin', '*'],
          ['content-type', 'application/json'],
        ]);
        assert.equal((await options('/nowhere')).status, 404);
        assert.equal((await options('/api/v2/referral-sets', { origin: 'https://x', 'access-control-request-method': 'GET' })).status, 204);
      } finally {
        await byDefault.close();
        await large.close();
      }
    });

    test('repeated filter values: up to the limit per field, both spellings counted together', async () => {
      const srv = await startServer(served.store, { limits: { maxFilterValues: 3 } });
      try {
        const ok = await get(`${srv.url}${SUMMARIES}?${repeated('filter.assetIds', 3)}&${repeated('filter.marketIds', 3)}`);
        assert.equal(ok.status, 200, ok.text);
        const over = await get(`${srv.url}${SUMMARIES}?${repeated('filter.assetIds', 4)}`);
        assert.equal(over.status, 400);
        assert.equal(over.text, '{"code":3,"message":"too many values for field \\"filter.assetIds\\": 4, the limit is 3","details":[]}');
        const mixed = await get(`${srv.url}${SUMMARIES}?${repeated('filter.market_ids', 2)}&${repeated('filter.marketIds', 2)}`);
        assert.equal(mixed.status, 400);
        assert.equal(mixed.text, '{"code":3,"message":"too many values for field \\"filter.marketIds\\": 4, the limit is 3","details":[]}');
        // Singular fields keep their own rule (given twice is a parse error) whatever the limit.
        const twice = await get(`${srv.url}${SETS}?referrer=aa&referrer=bb`);
        assert.equal(twice.text, '{"code":3,"message":"too many values for field \\"referrer\\": aa, bb","details":[]}');
        // A GraphQL list argument keeps the same limit, as the same operation's request field.
        const ids = (n: number) => Array.from({ length: n }, (_, i) => (i + 1).toString(16).padStart(2, '0'));
        const query = 'query($ids: [ID!]) { epochRewardSummaries(filter: { assetIds: $ids }) { edges { node { epoch } } } }';
        const graphql = async (n: number) => JSON.parse((await postGraphql(srv.url, { query, variables: { ids: ids(n) } })).text);
        assert.equal((await graphql(3)).errors, undefined);
        assert.deepEqual((await graphql(4)).errors, [
          {
            message: 'too many values for field "filter.assetIds": 4, the limit is 3',
            path: ['epochRewardSummaries'],
            extensions: { code: 3, type: 'InvalidArgument' },
          },
        ]);
      } finally {
        await srv.close();
      }
    });

    test('request timeout: 504 with code 4 when the store is slower than the limit; /readyz 503', { timeout: 60_000 }, async () => {
      // The store answers nothing while held: the answers meanwhile came from the timer.
      const held = heldStore(served.store);
      const srv = await startServer(held.store, { limits: { requestTimeoutMs: 300 } });
      held.hold();
      try {
        const started = Date.now();
        const res = await get(`${srv.url}${SETS}`);
        const took = Date.now() - started;
        assert.equal(res.status, 504);
        assert.equal(res.text, '{"code":4,"message":"Deadline exceeded error: no answer within 300 ms","details":[]}');
        assert.ok(took >= 290, `answered after ${took} ms, before the limit`);
        const ready = await get(`${srv.url}/readyz`);
        assert.equal(ready.status, 503);
        assert.equal(ready.text, '{"code":14,"message":"Unavailable error","details":[]}');
      } finally {
        held.release();
        await srv.close();
      }
      // Without the delay the same limit is no problem.
      const fast = await startServer(served.store, { limits: { requestTimeoutMs: 300 } });
      try {
        assert.equal((await get(`${fast.url}${SETS}`)).status, 200);
      } finally {
        await fast.close();
      }
    });

    test('rate limit: off by default; when on, 429 with code 8 past max per client IP, probes exempt', async () => {
      const unlimited = await startServer(served.store);
      try {
        for (let i = 0; i < 30; i++) assert.equal((await get(`${unlimited.url}${SETS}?pagination.first=1`)).status, 200);
      } finally {
        await unlimited.close();
      }
      const srv = await startServer(served.store, { limits: { rateLimitMax: 3, rateLimitWindowMs: 60_000 } });
      try {
        for (let i = 0; i < 3; i++) {
          const res = await get(`${srv.url}${SETS}?pagination.first=1`);
          assert.equal(res.status, 200);
          // A shared cache may keep the answer: the client's own counts are not in it.
          assert.match(res.headers.get('cache-control') ?? '', /^public/);
          assert.equal(res.headers.get('x-ratelimit-remaining'), null);
        }
        const limited = await get(`${srv.url}${SUMMARIES}`);
        assert.equal(limited.status, 429);
        assert.equal(limited.headers.get('x-ratelimit-limit'), '3');
        assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');
        const retry = limited.headers.get('retry-after');
        assert.ok(retry === '59' || retry === '60', `retry-after ${retry}`);
        assert.equal(
          limited.text,
          `{"code":8,"message":"Resource exhausted error: more than 3 requests in 60000 ms from this client, retry in ${retry} s","details":[]}`,
        );
        for (const probe of ['/healthz', '/readyz', '/metrics']) assert.equal((await get(srv.url + probe)).status, 200, probe);
      } finally {
        await srv.close();
      }
    });

    test('rate limit behind a proxy: X-Forwarded-For names the client only when the proxy is trusted', async () => {
      const limits = { rateLimitMax: 2, rateLimitWindowMs: 60_000 };
      const from = (srv: { url: string }, client: string) =>
        get(`${srv.url}${SETS}?pagination.first=1`, { headers: { 'x-forwarded-for': client } });
      const trusting = await startServer(served.store, { limits, trustProxy: ['loopback'] });
      try {
        for (let i = 0; i < 2; i++) assert.equal((await from(trusting, '203.0.113.1')).status, 200);
        assert.equal((await from(trusting, '203.0.113.1')).status, 429);
        assert.equal((await from(trusting, '203.0.113.2')).status, 200, 'another client behind the same proxy');
      } finally {
        await trusting.close();
      }
      // Not trusted: the header is anyone's to write, and every request is the proxy's.
      const plain = await startServer(served.store, { limits });
      try {
        for (let i = 0; i < 2; i++) assert.equal((await from(plain, `203.0.113.${i + 1}`)).status, 200);
        assert.equal((await from(plain, '203.0.113.3')).status, 429);
      } finally {
        await plain.close();
      }
      // A proxy that is not the one connecting is not believed either.
      const other = await startServer(served.store, { limits, trustProxy: ['10.0.0.0/8'] });
      try {
        for (let i = 0; i < 2; i++) assert.equal((await from(other, `203.0.113.${i + 1}`)).status, 200);
        assert.equal((await from(other, '203.0.113.3')).status, 429);
      } finally {
        await other.close();
      }
    });

    test('the CLI takes every limit as a flag and as an environment variable', { timeout: 120_000 }, async (t) => {
      // A store of its own: a PGlite folder is never opened by two processes at once.
      const own = await createTestStore(kind);
      // Dropped however the start goes (a setting refused, say): nothing left behind.
      t.after(() => own.drop());
      // serve only reads a PostgreSQL server: its schema comes from `epochview migrate` (or a writer).
      assert.equal((await runCli(['migrate', ...own.args])).code, 0);
      const serve = await startServe(
        [
          ...own.args,
          '--demo-on-empty',
          'false',
          '--max-url-length',
          '1100',
          '--rate-limit-max',
          '4',
          '--log-level',
          'warn',
          '--grpc-port',
          '0',
        ],
        {
          EPOCHVIEW_MAX_FILTER_VALUES: '2',
          EPOCHVIEW_RATE_LIMIT_WINDOW_MS: '5000',
          EPOCHVIEW_REQUEST_TIMEOUT_MS: '7000',
          EPOCHVIEW_TRUST_PROXY: '127.0.0.1/32, ::1',
        },
      );
      try {
        assert.equal(
          (await get(serve.url + urlOfLength(1101))).text,
          '{"code":3,"message":"request URL too long: 1101 bytes, the limit is 1100","details":[]}',
        );
        assert.equal(
          (await get(`${serve.url}${SUMMARIES}?${repeated('filter.assetIds', 3)}`)).text,
          '{"code":3,"message":"too many values for field \\"filter.assetIds\\": 3, the limit is 2","details":[]}',
        );
        // gRPC keeps the same limits, and its calls count with REST's requests of the same client.
        const grpc = rawClient(grpcAddress(serve));
        const summaries = (assetIds: string[]) =>
          rawCall(grpc, `/${SERVICE}/ListEpochRewardSummaries`, encode('ListEpochRewardSummariesRequest', { filter: { assetIds } }));
        const tooMany = await summaries(['01', '02', '03']);
        assert.deepEqual(
          [tooMany.error?.code, tooMany.error?.details],
          [status.INVALID_ARGUMENT, 'too many values for field "filter.assetIds": 3, the limit is 2'],
        );
        // The 400 for repeated values and that call were the first 2 of 4 requests the limiter let through.
        for (let i = 0; i < 2; i++) assert.equal((await get(`${serve.url}${SETS}`)).status, 200);
        const limited = await get(`${serve.url}${SETS}`);
        assert.equal(limited.status, 429);
        assert.match(
          limited.text,
          /^\{"code":8,"message":"Resource exhausted error: more than 4 requests in 5000 ms from this client, retry in [1-5] s","details":\[\]\}$/,
        );
        const over = await summaries([]);
        assert.equal(over.error?.code, status.RESOURCE_EXHAUSTED);
        assert.match(over.error!.details, /^Resource exhausted error: more than 4 requests in 5000 ms from this client, retry in [1-5] s$/);
        // The trusted proxy (this test) forwards another client: counted apart.
        assert.equal((await get(`${serve.url}${SETS}`, { headers: { 'x-forwarded-for': '198.51.100.7' } })).status, 200);
        // gRPC through the proxy (nginx's grpc_pass and Envoy send X-Forwarded-For) names the
        // client the same way: counted with its REST requests, apart from the proxy's own.
        const forwarded = new Metadata();
        forwarded.set('x-forwarded-for', '198.51.100.7');
        const viaProxy = () =>
          rawCall(grpc, `/${SERVICE}/ListEpochRewardSummaries`, encode('ListEpochRewardSummariesRequest', {}), undefined, forwarded);
        for (let i = 0; i < 3; i++) assert.equal((await viaProxy()).error, null, `forwarded call ${i + 2} of 4`);
        assert.equal((await viaProxy()).error?.code, status.RESOURCE_EXHAUSTED);
        grpc.close();
      } finally {
        assert.equal(await serve.stop(), 0);
      }
    });
  });
}

describe('request timeout on the PostgreSQL server', { skip: !STORE_KINDS.includes('postgres') }, () => {
  let ts: TestStore;
  before(async () => {
    ts = await createTestStore('postgres', { dataset: 'referral-sets' });
  });
  after(async () => ts?.drop());

  /** One statement on a connection of the test's own, not the store's. */
  async function adminQuery<Row>(sql: string): Promise<Row[]> {
    const c = new pg.Client({ connectionString: ts.databaseUrl });
    await c.connect();
    try {
      return (await c.query(sql)).rows as Row[];
    } finally {
      await c.end();
    }
  }

  /** Statements running pg_sleep in the test database now. */
  async function sleeping(): Promise<number> {
    const [row] = await adminQuery<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE 'SELECT pg_sleep%'`,
    );
    return row!.n;
  }

  /** Cancels the statements running pg_sleep in the test database. */
  async function cancelSleeping(): Promise<void> {
    await adminQuery(
      `SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'SELECT pg_sleep%' AND pid <> pg_backend_pid()`,
    );
  }

  /** A store whose every page query (one with parameters: not the chain head's reads) first sleeps `seconds` on the server. */
  function sleepyStore(store: Store, seconds: number): Store {
    return delayedStore(store, async (params) => {
      if (params?.length) await store.query(`SELECT pg_sleep(${seconds})`);
    });
  }

  test('statement_timeout cancels the statement on the server; its cancellation is a 504 too', async () => {
    const store = await openStore({ databaseUrl: ts.databaseUrl, dataDir: '', statementTimeoutMs: 300 });
    // The request timer (100 s) is longer than the sleep (30 s), which is longer than the statement
    // timeout: without the server's cancellation the answer would be a 200 after the sleep.
    const srv = await startServer(sleepyStore(store, 30), { limits: { requestTimeoutMs: 100_000 }, responseCacheBytes: 0 });
    try {
      const res = await get(`${srv.url}${SETS}`);
      assert.equal(res.status, 504);
      assert.equal(res.text, '{"code":4,"message":"Deadline exceeded error: no answer within 100000 ms","details":[]}');
      assert.equal(await sleeping(), 0, 'no statement left running');
      // Transactions (ingestion) are not bounded by it.
      assert.deepEqual(await store.transaction((tx) => tx.query('SELECT pg_sleep(0.5)::text AS slept')), [{ slept: '' }]);
    } finally {
      await srv.close();
      await store.close();
    }
  });

  test('without statement_timeout the statement would go on running after the 504 (control)', async () => {
    const store = await openStore({ databaseUrl: ts.databaseUrl, dataDir: '' });
    const srv = await startServer(sleepyStore(store, 60), { limits: { requestTimeoutMs: 300 }, responseCacheBytes: 0 });
    try {
      const res = await get(`${srv.url}${SETS}`);
      assert.equal(res.status, 504);
      assert.equal(await sleeping(), 1);
    } finally {
      // Ended here, not by waiting out its minute: the pool closes once its connections are back.
      await cancelSleeping();
      await srv.close();
      await store.close();
    }
  });
});
