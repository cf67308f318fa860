/**
 * The fixtures of test/fixtures, on both stores: each events file is ingested through the CLI into an
 * empty store, then every expected request is sent to a running server and must return exactly
 * the expected status and body, byte for byte as the contract encodes it. The API's fast path
 * (src/http/fast-path.ts) and Fastify's route must answer alike, status, headers in order and
 * bytes, for every request (from the store, then from the response cache) and the variants a
 * client may send (gzip, pretty, an origin). A GET with `content-length: 0` is one the fast path
 * leaves to Fastify; an onRequest hook counts what Fastify answered, so the test knows which way
 * each request went.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { goJson } from '../../src/contract/json.js';
import { loadExpectations } from '../helpers/fixtures.js';
import { useServedStore } from '../helpers/served-store.js';
import { ROUTES } from '../../src/http/routes.js';
import { routePattern } from '../../src/http/fast-path.js';
import { buildServer } from '../../src/http/server.js';
import { assertPagingConsistent } from '../helpers/paging.js';
import { get, rawRequest, type RawAnswer } from '../helpers/server.js';
import { DATASETS, STORE_KINDS } from '../helpers/stores.js';

const ERRORS = loadExpectations('errors');

/** A JSON object's field; undefined on anything else. */
function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

/** The expected body with its loose string fields taken from the actual body. */
function withLooseFrom(expected: unknown, actual: unknown, loose: string[] = []): unknown {
  const copy = structuredClone(expected) as Record<string, unknown>;
  for (const path of loose) {
    const keys = path.split('.');
    let e: unknown = copy;
    let a: unknown = actual;
    for (const k of keys.slice(0, -1)) {
      e = field(e, k);
      a = field(a, k);
    }
    const last = keys[keys.length - 1]!;
    const loosened = field(a, last);
    if (typeof loosened === 'string' && typeof field(e, last) === 'string') (e as Record<string, unknown>)[last] = loosened;
  }
  return copy;
}

test('the datasets are those errors.expected.json names, so that every error case runs', () => {
  assert.deepEqual([...new Set(ERRORS.map((e) => e.dataset))].sort(), [...DATASETS].sort());
});

for (const kind of STORE_KINDS) {
  for (const dataset of DATASETS) {
    describe(`fixtures ${dataset} on ${kind}`, () => {
      const served = useServedStore(kind, { dataset, server: false });
      let app: FastifyInstance;
      let base: string;
      let viaFastify = 0;
      before(async () => {
        app = await buildServer({ store: served.store, routes: ROUTES, logger: pino({ level: 'silent' }) });
        app.addHook('onRequest', async () => void viaFastify++);
        base = await app.listen({ port: 0, host: '127.0.0.1' });
      });
      after(() => app.close());

      /** The request asked through Fastify, then as it is: equal answers; returns whether the second went the fast path. */
      async function askedBothWays(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<boolean> {
        const routed = await rawRequest(base + path, { ...headers, 'content-length': '0' }, method);
        const before = viaFastify;
        const plain = await rawRequest(base + path, headers, method);
        const text = (a: RawAnswer) => ({ ...a, body: a.body.toString('latin1') });
        assert.deepEqual(text(plain), text(routed), `${method} ${path} ${JSON.stringify(headers)}`);
        return viaFastify === before;
      }

      const cases = [...loadExpectations(dataset), ...ERRORS.filter((e) => e.dataset === dataset)];
      for (const c of cases) {
        test(c.name, async () => {
          const res = await get(base + c.request, { method: c.method ?? 'GET' });
          assert.equal(res.status, c.status, res.text);
          const expected = withLooseFrom(c.body, res.body, c.loose);
          assert.equal(JSON.stringify(res.body), JSON.stringify(expected));
          // Byte-level encoding: compact, Go-style escaping, no trailing newline.
          assert.equal(res.text, goJson(expected));
          assert.equal(res.headers.get('content-type'), 'application/json');
          // Both ways (the URL's second request, which admits a success to the response cache),
          // then both ways again (a success from the cache): every answer alike. The fast path
          // takes a GET of a route's path without escapes.
          const path = c.request.split('?')[0]!;
          const plain = (c.method ?? 'GET') === 'GET' && !path.includes('%') && ROUTES.some((r) => routePattern(r.path).test(path));
          assert.equal(await askedBothWays(c.request, {}, c.method), plain, 'went the fast path');
          assert.equal(await askedBothWays(c.request, {}, c.method), plain, 'went the fast path, asked again');
          const again = await rawRequest(base + c.request, {}, c.method);
          assert.equal(again.body.toString(), res.text);
        });
      }

      if (dataset === 'teams') {
        test('paging walks of the four lists: pages of 1 and 2 both ways against one page, ties on createdAt included', async () => {
          const lists: [string, string, number][] = [
            ['/api/v2/teams', 'teams', 6],
            ['/api/v2/teams/stats', 'statistics', 4],
            ['/api/v2/teams/stats?aggregationEpochs=2', 'statistics', 4],
            [`/api/v2/teams/referees/${'d2'.repeat(32)}`, 'teamReferees', 4],
            [`/api/v2/teams/referees/history/${'f1'.repeat(32)}`, 'teamRefereeHistory', 2],
          ];
          for (const [path, key, rows] of lists) {
            for (const size of [1, 2])
              assert.equal(await assertPagingConsistent(base + path, key, size), rows, `${path}, pages of ${size}`);
          }
        });
      }

      test('the variants of a request: gzip, pretty, an origin; deflate and HEAD go to Fastify', async () => {
        const path = cases.find((c) => c.status === 200 && (c.method ?? 'GET') === 'GET')!.request;
        const pretty = `${path}${path.includes('?') ? '&' : '?'}pretty`;
        await get(base + pretty);
        await get(base + pretty);
        const variants: [string, Record<string, string>, string?][] = [
          [pretty, {}],
          [path, { 'accept-encoding': 'gzip, deflate, br' }],
          [path, { 'accept-encoding': '*' }],
          [path, { 'accept-encoding': 'x-gzip' }],
          [path, { 'x-no-compression': '1', 'accept-encoding': 'gzip' }],
          [path, { origin: 'https://console.vega.xyz' }],
        ];
        for (const [p, headers] of variants)
          assert.ok(await askedBothWays(p, headers), `${p} ${JSON.stringify(headers)} went the fast path`);
        // An error long enough to compress: gzipped alike both ways (the fast path's errors never
        // pass Fastify's compression plugin).
        const long = `/api/v2/referral-sets?referrer=${'z'.repeat(2000)}`;
        assert.ok(await askedBothWays(long, { 'accept-encoding': 'gzip' }), 'a long error went the fast path');
        assert.equal(
          (await rawRequest(base + long, { 'accept-encoding': 'gzip' })).headers.find(([h]) => h === 'content-encoding')?.[1],
          'gzip',
        );
        // A '#' in a path (sent by a client as it is: never a fragment) is cut there by Fastify's
        // router, and the fast path leaves it to it: the teams' route without its last segment.
        const hashed = await rawRequest(`${base}/api/v2/teams/ab#c/stats`);
        assert.equal(hashed.status, 404, hashed.body.toString());
        assert.equal(await askedBothWays(path, { 'accept-encoding': 'deflate' }), false, 'deflate goes to Fastify');
        assert.equal(await askedBothWays(path, {}, 'HEAD'), false, 'HEAD goes to Fastify');
      });
    });
  }
}
