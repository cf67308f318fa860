/**
 * The shared REST fixtures through gRPC, on both stores: each events file ingested by the CLI, a
 * real `serve --grpc-port`, and an independent client in its own process (Debian's
 * python3-grpcio with stubs protoc generates from the project's .proto files: client.py) that
 * asks every fixture request gRPC can express and compares the answers field for field with the
 * REST bodies, errors included, then pages every list the way vega_query does.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { FIXTURES } from '../helpers/cli.js';
import { loadExpectations } from '../helpers/fixtures.js';
import { grpcAddress, pythonStubs, runPython } from '../helpers/grpc.js';
import { startServe, type ServeProcess } from '../helpers/serve.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';

const CLIENT = fileURLToPath(new URL('./client.py', import.meta.url));

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
  for (const dataset of Object.keys(EXPECTED) as (keyof typeof EXPECTED)[]) {
    describe(`gRPC fixtures ${dataset} on ${kind}`, () => {
      let ts: TestStore;
      let serve: ServeProcess;
      before(async () => {
        ts = await createTestStore(kind, { dataset });
        serve = await startServe([...ts.args, '--grpc-port', '0', '--log-level', 'warn', '--demo-on-empty', 'false']);
      });
      after(async () => {
        await serve?.stop();
        await ts?.drop();
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
