/**
 * The API's fast path (src/http/fast-path.ts) against Fastify's route, on both stores: every
 * request of the shared fixtures, errors included, and the variants a client may send (pretty,
 * gzip, a request id), asked both ways of one server, must get the same status, the same headers
 * in the same order, and the same bytes. A GET with `content-length: 0` is one the fast path
 * leaves to Fastify; an onRequest hook counts what Fastify answered, so the test knows which way
 * each request went.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { before, after, describe, test } from 'node:test';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/http/server.js';
import { OPERATIONS } from '../../src/operations/index.js';
import { FIXTURES } from '../helpers/cli.js';
import { loadExpectations } from '../helpers/fixtures.js';
import { useServedStore } from '../helpers/served-store.js';
import { STORE_KINDS } from '../helpers/stores.js';

interface RawAnswer {
  status: number;
  /** Name and value pairs as sent, Date left out (it may tick between the two). */
  headers: [string, string][];
  body: Buffer;
}

function ask(base: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const pairs: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2)
          if (res.rawHeaders[i] !== 'Date') pairs.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
        resolve({ status: res.statusCode!, headers: pairs, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The paths the fast path takes as they are: an operation's, with no escape in the team id. */
const PLAIN = /^\/api\/v2\/(referral-sets|rewards\/epoch\/summaries|teams\/[^/%#]+\/stats)$/;

const DATASETS = ['referral-sets', 'team-stats', 'epoch-summaries'] as const;
const ERRORS = loadExpectations('errors');

for (const kind of STORE_KINDS) {
  for (const dataset of DATASETS) {
    describe(`the fast path and Fastify answer alike: ${dataset} on ${kind}`, () => {
      const served = useServedStore(kind, { ingest: { file: `${FIXTURES}${dataset}.ndjson` }, server: false });
      let app: FastifyInstance;
      let base: string;
      let viaFastify = 0;
      before(async () => {
        // No response cache, so that each answer is the store's, made for that request.
        app = await buildServer({ store: served.store, operations: OPERATIONS, logger: pino({ level: 'silent' }), responseCacheBytes: 0 });
        app.addHook('onRequest', async () => void viaFastify++);
        base = await app.listen({ port: 0, host: '127.0.0.1' });
      });
      after(() => app.close());

      const requests = [...loadExpectations(dataset), ...ERRORS.filter((e) => e.dataset === dataset)]
        .filter((c) => (c.method ?? 'GET') === 'GET')
        .map((c) => c.request);
      const first = requests[0]!;
      const variants: [string, Record<string, string>][] = [
        ...requests.map((r): [string, Record<string, string>] => [r, {}]),
        [`${first}${first.includes('?') ? '&' : '?'}pretty`, {}],
        [first, { 'accept-encoding': 'gzip, deflate, br' }],
        [first, { 'accept-encoding': '*' }],
        [first, { 'accept-encoding': 'x-gzip' }],
        [first, { 'x-no-compression': '1', 'accept-encoding': 'gzip' }],
        [first, { origin: 'https://console.vega.xyz' }],
      ];

      test(`${variants.length} requests, each asked both ways`, async () => {
        let plain = 0;
        for (const [path, headers] of variants) {
          const before = viaFastify;
          const fast = await ask(base, path, headers);
          const isPlain = PLAIN.test(path.split('?')[0]!);
          assert.equal(viaFastify - before, isPlain ? 0 : 1, `${path} went the ${isPlain ? 'fast' : 'Fastify'} way`);
          if (isPlain) plain++;
          const routed = await ask(base, path, { ...headers, 'content-length': '0' });
          assert.equal(viaFastify - before, isPlain ? 1 : 2, `${path} with a body went to Fastify`);
          assert.deepEqual({ ...fast, body: fast.body.toString('latin1') }, { ...routed, body: routed.body.toString('latin1') }, path);
        }
        assert.ok(plain >= requests.length / 2, `most of the fixtures' requests are plain (${plain})`);
      });

      test('deflate alone, HEAD, a trailing slash and an escaped team id go to Fastify', async () => {
        const before = viaFastify;
        const deflated = await ask(base, first, { 'accept-encoding': 'deflate' });
        assert.equal(deflated.status, 200);
        const head = await ask(base, first, {}, 'HEAD');
        assert.equal(head.status, 200);
        assert.equal((await ask(base, `${first.split('?')[0]}/`)).status, 404);
        assert.equal((await ask(base, '/api/v2/teams/%61%62/stats')).status, (await ask(base, '/api/v2/teams/ab/stats')).status);
        assert.equal(viaFastify - before, 4, 'all but the plain team id');
      });
    });
  }
}
