/**
 * Every request of the shared REST fixtures that GraphQL can express, asked both ways of a real
 * `serve` on both stores: the GraphQL data equals the REST body converted by the rules of
 * graphql.md §3 (numbers, RFC3339Nano times, null edges of an empty summaries page), and REST's
 * errors with details are the data-node's GraphQL errors of §5. A request GraphQL cannot express
 * is one whose query string does not parse (GraphQL's types refuse such values before any
 * operation runs), asks oldest first (GraphQL has no newestFirst), or gives a number beyond Int.
 * Each is asked as a plain document (answered by the compiled writers) and with a directive
 * (answered by graphql-js's executor): both answer alike.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { goJson } from '../../src/contract/json.js';
import { asGraphql, graphqlAnswer } from '../../bench/graphql-urls.js';
import { type Expectation, loadExpectations } from '../helpers/fixtures.js';
import { postGraphql } from '../helpers/graphql.js';
import { type ServeProcess, startServe } from '../helpers/serve.js';
import { get, rawRequest } from '../helpers/server.js';
import { createTestStore, DATASETS, STORE_KINDS, type TestStore } from '../helpers/stores.js';

/**
 * The headers of a GET asked both ways: none (every request), gzip (answers of 1 KB or more are
 * gzipped) and an origin (every fourth request: how they are answered does not depend on the document).
 */
const GET_VARIANTS: Record<string, string>[] = [{}, { 'accept-encoding': 'gzip, deflate, br' }, { origin: 'https://console.vega.xyz' }];
const ERRORS = loadExpectations('errors');

for (const kind of STORE_KINDS) {
  for (const dataset of DATASETS) {
    describe(`GraphQL and REST fixtures, ${dataset} on ${kind}`, () => {
      let ts: TestStore;
      let serve: ServeProcess;
      before(async () => {
        ts = await createTestStore(kind, { dataset });
        serve = await startServe([...ts.args, '--response-cache-mb', '0']);
      });
      after(async () => {
        await serve?.stop();
        await ts?.drop();
      });

      test('the first answers after the banner are tagged for HTTP caches, both ways', async () => {
        // serve prints its banner once it follows the chain head: no answer after it is no-store.
        const rest = await rawRequest(`${serve.url}/api/v2/referral-sets`);
        const graphql = await rawRequest(`${serve.url}/graphql?query=${encodeURIComponent('{ referralSets { edges { cursor } } }')}`);
        for (const answer of [rest, graphql]) {
          assert.equal(answer.status, 200);
          const headers = new Map(answer.headers);
          assert.equal(headers.get('cache-control'), 'public, max-age=1, stale-while-revalidate=1');
          assert.match(headers.get('etag') ?? '', /^"[A-Za-z0-9_-]{43}"$/);
        }
      });

      const cases: Expectation[] = [...loadExpectations(dataset), ...ERRORS.filter((e) => e.dataset === dataset)];
      test('every expressible request answers alike both ways', async () => {
        let asked = 0;
        for (const c of cases) {
          if ((c.method ?? 'GET') !== 'GET') continue;
          const gql = asGraphql(c.request);
          if (!gql) continue;
          const rest = await get(serve.url + c.request);
          assert.equal(rest.status, c.status, `${c.name}: REST as the fixture says`);
          const answer = await postGraphql(serve.url, { operationName: 'Fixture', query: gql.query, variables: gql.variables });
          assert.equal(answer.status, 200, `${c.name}: ${answer.text}`);
          const expected = goJson(graphqlAnswer(gql.field, rest.status, rest.body as Record<string, unknown>));
          assert.equal(answer.text, expected, c.name);
          // Again: the rows now come from the row cache's texts and the compiled writers' kept edges.
          const again = await postGraphql(serve.url, { operationName: 'Fixture', query: gql.query, variables: gql.variables });
          assert.equal(again.text, expected, `${c.name}, again`);
          // As a GET: the fast path (src/http/fast-path.ts) answers as Fastify's route (a GET with a body goes there), header for header.
          const url = `/graphql?query=${encodeURIComponent(gql.query)}&variables=${encodeURIComponent(JSON.stringify(gql.variables))}`;
          for (const headers of asked % 4 === 0 ? GET_VARIANTS : GET_VARIANTS.slice(0, 1)) {
            const routed = await rawRequest(serve.url + url, { ...headers, 'content-length': '0' });
            const fast = await rawRequest(serve.url + url, headers);
            assert.deepEqual(fast, routed, `${c.name}, GET ${JSON.stringify(headers)}`);
            if (!headers['accept-encoding']) assert.equal(fast.body.toString(), expected, `${c.name}, GET`);
          }
          // A directive leaves the document to graphql-js's executor (the plain one is compiled: compiled.ts): alike.
          const executed = await postGraphql(serve.url, {
            query: gql.query.replace(') { edges', ') @include(if: true) { edges'),
            variables: gql.variables,
          });
          assert.equal(executed.text, expected, `${c.name}, executed`);
          // Every GraphQL answer shows the head, an error's too (REST's errors show none).
          if (rest.status === 200) assert.equal(answer.headers.get('x-block-height'), rest.headers.get('x-block-height'), c.name);
          else assert.match(answer.headers.get('x-block-height') ?? '', /^\d+$/, c.name);
          asked++;
        }
        // Exactly these many are expressible: a request that stopped translating would go unseen.
        assert.equal(asked, { 'referral-sets': 57, 'team-stats': 34, 'epoch-summaries': 37, teams: 69, 'referral-family': 40 }[dataset]);
      });
    });
  }
}
