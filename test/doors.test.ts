/**
 * The shared REST fixtures through the other doors, on both stores: each dataset ingested by the
 * CLI and served by one real `serve --grpc-port` (the response cache off), which is asked
 *
 * - by GraphQL: every request of the fixtures that GraphQL can express, asked both ways. The
 *   GraphQL data equals the REST body converted by the rules of graphql.md §3 (numbers,
 *   RFC3339Nano times, null edges of an empty summaries page), and REST's errors with details are
 *   the data-node's GraphQL errors of §5. A request GraphQL cannot express is one whose query
 *   string does not parse (GraphQL's types refuse such values before any operation runs), asks
 *   oldest first (GraphQL has no newestFirst), or gives a number beyond Int. Each is asked as a
 *   plain document (answered by the compiled writers) and with a directive (answered by
 *   graphql-js's executor): both answer alike.
 * - by gRPC: an independent client in its own process (Debian's python3-grpcio with stubs protoc
 *   generates from the project's .proto files: grpc/client.py) asks every fixture request gRPC can
 *   express and compares the answers field for field with the REST bodies, errors included, then
 *   pages every list the way vega_query does.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { asGraphql, graphqlAnswer } from '../bench/graphql-urls.js';
import { goJson } from '../src/contract/json.js';
import { FIXTURES } from './helpers/cli.js';
import { type Expectation, loadExpectations } from './helpers/fixtures.js';
import { postGraphql } from './helpers/graphql.js';
import { grpcAddress, pythonStubs, runPython } from './helpers/grpc.js';
import { type ServeProcess, startServe } from './helpers/serve.js';
import { get, rawRequest } from './helpers/server.js';
import { createTestStore, DATASETS, STORE_KINDS, type TestStore } from './helpers/stores.js';

const CLIENT = fileURLToPath(new URL('./grpc/client.py', import.meta.url));

/**
 * The headers of a GET asked both ways: none (every request), gzip (answers of 1 KB or more are
 * gzipped) and an origin (every fourth request: how they are answered does not depend on the document).
 */
const GET_VARIANTS: Record<string, string>[] = [{}, { 'accept-encoding': 'gzip, deflate, br' }, { origin: 'https://console.vega.xyz' }];
const ERRORS = loadExpectations('errors');

interface Report {
  asked: number;
  ok: number;
  errors: number;
  skipped: string[];
  failures: unknown[];
  walks: Record<string, { rows: number; pages: number; smallPages: number; sameAsRest: boolean; eachOnce: boolean }>;
}

/**
 * Per dataset: the fixture requests asked (answered OK, answered with an error), the requests
 * gRPC cannot express (a query string that does not parse, another route or method: REST's
 * own), and the rows of each vega_query-style walk.
 */
const EXPECTED = {
  'referral-sets': { asked: 70, ok: 54, errors: 16, skipped: 15, walks: { '/api/v2/referral-sets': 13 } },
  'team-stats': { asked: 42, ok: 35, errors: 7, skipped: 6, walks: {} as Record<string, number> },
  'epoch-summaries': { asked: 55, ok: 45, errors: 10, skipped: 5, walks: { '/api/v2/rewards/epoch/summaries': 35 } },
  teams: {
    asked: 80,
    ok: 63,
    errors: 17,
    skipped: 6,
    walks: {
      '/api/v2/teams': 6,
      '/api/v2/teams/stats': 4,
      '/api/v2/teams/referees/d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2': 4,
      '/api/v2/teams/referees/history/f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1': 2,
    },
  },
  'referral-family': {
    asked: 47,
    ok: 36,
    errors: 11,
    skipped: 4,
    walks: { '/api/v2/referral-sets/referees': 4, '/api/v2/referral-sets/stats': 4 },
  },
} as const;

/** The teams the team-stats fixture asks about (valid ids), walked with aggregation_epochs=1. */
function fixtureTeams(): string[] {
  const teams = loadExpectations('team-stats').map((e) => /^\/api\/v2\/teams\/([0-9a-f]+)\/stats/.exec(e.request)?.[1]);
  return [...new Set(teams.filter((t): t is string => t !== undefined))].sort();
}

let stubs: string;
before(() => {
  stubs = pythonStubs();
});

for (const kind of STORE_KINDS) {
  for (const dataset of DATASETS) {
    describe(`fixtures through GraphQL and gRPC, ${dataset} on ${kind}`, () => {
      let ts: TestStore;
      let serve: ServeProcess;
      before(async () => {
        ts = await createTestStore(kind, { dataset });
        serve = await startServe([...ts.args, '--grpc-port', '0', '--response-cache-mb', '0', '--log-level', 'warn']);
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

      // Before every field is asked, so that the rows kept for the totals are kept first: a later
      // answer of every field that took them would lack its lists.
      test("the console's selections of statistics, made without the per-epoch lists, answer as REST does; every field after them has its lists", async () => {
        let asked = 0;
        for (const c of cases) {
          const doc = (c.method ?? 'GET') === 'GET' ? asGraphql(c.request, 'console') : undefined;
          if (doc?.field !== 'teamsStatistics' && doc?.field !== 'teamMembersStatistics') continue;
          const first = await postGraphql(serve.url, { query: doc.query, variables: doc.variables });
          const rest = await get(serve.url + c.request);
          assert.equal(rest.status, c.status, `${c.name}: REST as the fixture says`);
          const body = rest.body as Record<string, unknown>;
          const expected = goJson(graphqlAnswer(doc.field, rest.status, body, 'console'));
          assert.equal(first.text, expected, c.name);
          const again = await postGraphql(serve.url, { query: doc.query, variables: doc.variables });
          assert.equal(again.text, expected, `${c.name}, again`);
          const all = asGraphql(c.request)!;
          const every = await postGraphql(serve.url, { query: all.query, variables: all.variables });
          assert.equal(every.text, goJson(graphqlAnswer(all.field, rest.status, body)), `${c.name}, every field`);
          asked++;
        }
        assert.equal(asked, { 'referral-sets': 0, 'team-stats': 34, 'epoch-summaries': 0, teams: 15, 'referral-family': 0 }[dataset]);
      });

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

      test('every request gRPC can express answers as REST does; vega_query paging walks every row once', async () => {
        const files = [`${FIXTURES}${dataset}.expected.json`, `${FIXTURES}errors.expected.json`];
        const teams = dataset === 'team-stats' ? fixtureTeams().join('\n') : '';
        const run = await runPython([CLIENT, stubs, grpcAddress(serve), serve.url, dataset, ...files], teams);
        assert.equal(run.code, 0, run.stderr);
        const report = JSON.parse(run.stdout) as Report;
        assert.deepEqual(report.failures, []);
        const expected = EXPECTED[dataset];
        assert.deepEqual(
          { asked: report.asked, ok: report.ok, errors: report.errors, skipped: report.skipped.length },
          { asked: expected.asked, ok: expected.ok, errors: expected.errors, skipped: expected.skipped },
          report.skipped.join('\n'),
        );
        // What gRPC cannot ask is REST's own: a query string that does not parse, a route, a method.
        for (const name of report.skipped) assert.match(name, /^(parse|route|method)\b/);
        for (const [target, walk] of Object.entries(report.walks)) {
          assert.ok(walk.sameAsRest && walk.eachOnce, `${target}: ${JSON.stringify(walk)}`);
          assert.equal(walk.smallPages, Math.max(1, Math.ceil(walk.rows / 2)), `${target}: pages of 2`);
          if (target in expected.walks) assert.equal(walk.rows, expected.walks[target as keyof typeof expected.walks], target);
        }
        if (dataset === 'team-stats') assert.equal(Object.keys(report.walks).length, fixtureTeams().length);
        else assert.deepEqual(Object.keys(report.walks), Object.keys(expected.walks));
      });
    });
  }
}
