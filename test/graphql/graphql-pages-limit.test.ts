/**
 * The bound on the text of the pages one GraphQL operation reads (DocumentLimits.maxPagesBytes):
 * rows alone do not bound an answer, since a team's statistics carry lists of up to N epochs.
 * Here the bound is set between one leaderboard with its lists and two, on the team-stats
 * fixture: one is answered whole, two are each refused with the limit's error, and the process
 * answers on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { get, startServer } from '../helpers/server.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';
import type { Store } from '../../src/db/store.js';

const LEADERBOARD =
  'teamsStatistics(aggregationEpochs: 3) { edges { node { teamId quantumRewards { epoch totalQuantumRewards } quantumVolumes { epoch totalQuantumVolumes } } } }';

for (const kind of STORE_KINDS) {
  describe(`the pages' bound of a GraphQL answer on ${kind}`, () => {
    let ts: TestStore;
    let store: Store;
    let server: Awaited<ReturnType<typeof startServer>>;
    let rest: string;
    let limit: number;
    before(async () => {
      ts = await createTestStore(kind, { dataset: 'team-stats' });
      store = await ts.open();
      // The same page by REST, with the cursors GraphQL does not select: its edges' text is what the bound weighs.
      const unbounded = await startServer(store);
      rest = (await get(`${unbounded.url}/api/v2/teams/stats?aggregationEpochs=3`)).text;
      await unbounded.close();
      limit = Math.ceil(rest.slice(rest.indexOf('[') + 1, rest.lastIndexOf(']')).length * 1.5);
      server = await startServer(store, { graphqlLimits: { maxPagesBytes: limit } });
    });
    after(async () => {
      await server?.close();
      await store?.close();
      await ts?.drop();
    });

    const ask = (query: string) =>
      fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      }).then(async (r) => ({ status: r.status, text: await r.text() }));

    test('one leaderboard within the bound is answered whole, as REST answers it', async () => {
      const one = await ask(`{ ${LEADERBOARD} }`);
      assert.equal(one.status, 200);
      const body = JSON.parse(one.text) as { data: { teamsStatistics: { edges: { node: { teamId: string } }[] } } };
      const teams = (JSON.parse(rest) as { statistics: { edges: { node: { teamId: string } }[] } }).statistics.edges.map(
        (e) => e.node.teamId,
      );
      assert.ok(teams.length > 0);
      assert.deepEqual(
        body.data.teamsStatistics.edges.map((e) => e.node.teamId),
        teams,
      );
    });

    test("one within it beside a field that fails: the executor's pass, which reads every field again, is counted afresh", async () => {
      const mixed = await ask(`{ ${LEADERBOARD} bad: teamMembersStatistics(teamId: "zz") { edges { cursor } } }`);
      assert.equal(mixed.status, 200);
      const body = JSON.parse(mixed.text) as {
        errors: { message: string; path: string[] }[];
        data: { teamsStatistics: { edges: unknown[] } | null };
      };
      assert.deepEqual(
        body.errors.map((e) => [e.message, e.path]),
        [['failed to list team referees', ['bad']]],
      );
      assert.equal(
        body.data.teamsStatistics?.edges.length,
        (JSON.parse(rest) as { statistics: { edges: unknown[] } }).statistics.edges.length,
      );
    });

    test('two pass it: every field gets the limit as its error, and the next answer is whole again', async () => {
      const limit = Math.ceil(rest.slice(rest.indexOf('[') + 1, rest.lastIndexOf(']')).length * 1.5);
      const two = await ask(`{ a: ${LEADERBOARD} b: ${LEADERBOARD} }`);
      assert.equal(two.status, 200);
      const error = (path: string) => ({
        message: `the operation's pages pass ${limit} bytes, the limit of one answer: ask fewer rows or root fields`,
        path: [path],
        extensions: { code: 8, type: 'ResourceExhausted' },
      });
      assert.equal(two.text, JSON.stringify({ errors: [error('a'), error('b')], data: { a: null, b: null } }));
      assert.equal((await ask(`{ ${LEADERBOARD} }`)).status, 200);
    });
  });
}
