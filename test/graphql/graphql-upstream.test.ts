/**
 * --graphql-upstream: documents that mix our fields with fields we do not own, behind a real
 * `serve` on both stores, with a stand-in data-node (upstream-server.mjs) in its own process.
 * Mixed documents are answered whole; the upstream down gives errors on its fields only; an
 * upstream restarted with a changed schema is learnt again; /readyz and /metrics show its state.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { NODE_FLAGS } from '../helpers/cli.js';
import { apollo, postGraphql } from '../helpers/graphql.js';
import { eventually, sample, type ServeProcess, startServe } from '../helpers/serve.js';
import { get } from '../helpers/server.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';

const UPSTREAM = fileURLToPath(new URL('upstream-server.mjs', import.meta.url));
const SET = '46f5a1b4b156d1ad330c16a3831d03bf9b2bd6c0816bee06f92e23399ccea098';

/** The stand-in data-node on `port` (0: any) with schema `version`; resolves with it and its URL. */
async function startUpstream(port: number, version: number): Promise<{ child: ChildProcess; url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [...NODE_FLAGS, UPSTREAM, String(port), String(version)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`the upstream exited (${code})`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.on('exit', () => resolve());
      child.kill();
    });
  return { child, url, stop };
}

/** The console's Fees document in the shape family.md §9.4 gives it (its `epoch` and `volumeDiscountStats` are the upstream's). */
const FEES = `query Fees($partyId: ID!) {
  epoch { id }
  volumeDiscountStats(partyId: $partyId, pagination: { last: 1 }) {
    edges { node { atEpoch discountFactors { infrastructureFactor makerFactor liquidityFactor } runningVolumeNotional } }
  }
  referralSetReferrer: referralSets(referrer: $partyId) { edges { node { id referrer } } }
  referralSetReferee: referralSets(referee: $partyId) { edges { node { id referrer } } }
  referralSetStats(partyId: $partyId, pagination: { last: 1 }) {
    edges { node { atEpoch discountFactors { infrastructureFactor makerFactor liquidityFactor } referralSetRunningNotionalTakerVolume } }
  }
  referralSetReferees(referee: $partyId) { edges { node { atEpoch totalRefereeNotionalTakerVolume } } }
}`;

interface Ready {
  graphqlUpstream: { url: string; state: string; error?: string; fields: string[]; learnt: number };
}

for (const kind of STORE_KINDS) {
  describe(`GraphQL upstream on ${kind}`, () => {
    let ts: TestStore;
    let serve: ServeProcess;
    let upstream: Awaited<ReturnType<typeof startUpstream>>;
    before(async () => {
      upstream = await startUpstream(0, 1);
      ts = await createTestStore(kind, { dataset: 'referral-sets' });
      serve = await startServe([...ts.args, '--log-level', 'warn'], { EPOCHVIEW_GRAPHQL_UPSTREAM: upstream.url });
    });
    after(async () => {
      await serve?.stop();
      await upstream?.stop();
      await ts?.drop();
    });

    const ready = async () => (await get(`${serve.url}/readyz`)).body as Ready;
    const ask = (query: string) => postGraphql(serve.url, { query });
    const gauges = async () => {
      const text = (await get(`${serve.url}/metrics`)).text;
      return { up: sample(text, 'epochview_graphql_upstream_up'), learnt: sample(text, 'epochview_graphql_upstream_schemas_learnt') };
    };

    test('mixed documents are answered whole, in selection order; the upstream schema is learnt', async () => {
      await eventually('the upstream schema learnt', async () => (await ready()).graphqlUpstream.learnt === 1);
      assert.deepEqual(await ready().then((r) => r.graphqlUpstream), {
        url: upstream.url,
        state: 'up',
        fields: ['epoch', 'games', 'party', 'broken'],
        learnt: 1,
      });
      assert.deepEqual(await gauges(), { up: 1, learnt: 1 });
      const mixed = await ask(`query Mixed {
        epoch { __typename id timestamps { start } }
        referralSets(id: "${SET}") { __typename edges { node { id totalMembers } } }
        games(gameId: "ab") { edges { node { ...GameName } } }
        broken
      }
      fragment GameName on Game { __typename name }`);
      assert.equal(mixed.status, 200);
      assert.equal(
        mixed.text,
        JSON.stringify({
          errors: [{ message: 'the upstream failed here', path: ['broken'] }],
          data: {
            epoch: { __typename: 'Epoch', id: '20', timestamps: { start: '2024-12-31T00:00:00Z' } },
            referralSets: { __typename: 'ReferralSetConnection', edges: [{ node: { id: SET, totalMembers: 11 } }] },
            games: { edges: [{ node: { __typename: 'Game', name: 'Wild Comets' } }] },
            broken: null,
          },
        }),
      );
      // HTTP caches (src/http/http-caching.ts): a GET with an upstream field is not ours to
      // validate, no-store without a tag; a GET of ours alone is tagged.
      const viaGet = (query: string) => get(`${serve.url}/graphql?query=${encodeURIComponent(query)}`);
      const mixedGet = await viaGet(`{ epoch { id } referralSets(id: "${SET}") { edges { node { id } } } }`);
      assert.equal(mixedGet.status, 200, mixedGet.text);
      assert.deepEqual([mixedGet.headers.get('cache-control'), mixedGet.headers.get('etag')], ['no-store', null]);
      const oursGet = await viaGet(`{ referralSets(id: "${SET}") { edges { node { id } } } }`);
      assert.equal(oursGet.headers.get('cache-control'), 'public, max-age=1, stale-while-revalidate=1');
      assert.match(oursGet.headers.get('etag') ?? '', /^"[A-Za-z0-9_-]{43}"$/);
      // Ours keep our errors' shape; a field neither has is a 422.
      const ours = await ask('{ games { edges { node { name } } } referralSets(pagination: { first: 0 }) { edges { cursor } } }');
      assert.equal(
        ours.text,
        JSON.stringify({
          errors: [{ message: 'invalid pagination', path: ['referralSets'], extensions: { code: 3, type: 'InvalidArgument' } }],
          data: null,
        }),
      );
      const unknown = await ask('{ volumeDiscountStats { discountFactor } }');
      assert.equal(unknown.status, 422);
      // The upstream's types may nest deep: the depth bound holds.
      const deep = await ask(`{ party(id: "1") { ${'parent { '.repeat(25)}id${' }'.repeat(25)} } }`);
      assert.equal(deep.status, 422);
      assert.equal(
        (deep.body as { errors: { message: string }[] }).errors[0]!.message,
        'the document is nested 21 levels deep or more, the limit is 20',
      );
    });

    test('the upstream down: errors on its fields only; restarted with a changed schema: learnt again', { timeout: 60_000 }, async () => {
      // Introspection is answered from the schema alone: asked often enough to be kept by the
      // response cache, it must not outlive the schema (the changed one has volumeDiscountStats).
      const INTROSPECTION = '{ __schema { queryType { fields { name } } } }';
      const rootNames = async () =>
        (
          (await ask(INTROSPECTION)).body as { data: { __schema: { queryType: { fields: { name: string }[] } } } }
        ).data.__schema.queryType.fields
          .map((f) => f.name)
          .filter((name) => ['games', 'volumeDiscountStats'].includes(name));
      for (let i = 0; i < 3; i++) assert.deepEqual(await rootNames(), ['games']);
      const port = Number(new URL(upstream.url).port);
      await upstream.stop();
      const down = await ask(`{ games { edges { node { name } } } referralSets(id: "${SET}") { edges { node { totalMembers } } } }`);
      assert.equal(down.status, 200);
      const body = down.body as { errors: { message: string; path: string[] }[]; data: unknown };
      assert.deepEqual(body.data, { games: null, referralSets: { edges: [{ node: { totalMembers: 11 } }] } });
      assert.equal(body.errors.length, 1);
      assert.deepEqual(body.errors[0]!.path, ['games']);
      assert.match(body.errors[0]!.message, /^GraphQL upstream unavailable: /);
      assert.equal((await ready()).graphqlUpstream.state, 'down');
      assert.equal((await gauges()).up, 0);

      upstream = await startUpstream(port, 2);
      await eventually('the changed schema learnt', async () => (await ready()).graphqlUpstream.learnt === 2);
      assert.deepEqual((await ready()).graphqlUpstream.fields, ['epoch', 'games', 'party', 'broken', 'volumeDiscountStats']);
      assert.deepEqual(await rootNames(), ['games', 'volumeDiscountStats']);
      const changed = await ask('{ volumeDiscountStats { discountFactor } epochRewardSummaries { edges { cursor } } }');
      assert.equal(
        changed.text,
        JSON.stringify({ data: { volumeDiscountStats: { discountFactor: '0.1' }, epochRewardSummaries: { edges: null } } }),
      );
      assert.deepEqual(await gauges(), { up: 1, learnt: 2 });
    });

    test("the console's Fees document under Apollo, answered whole with the upstream's epoch and volumeDiscountStats", {
      timeout: 60_000,
    }, async () => {
      const port = Number(new URL(upstream.url).port);
      await upstream.stop();
      // Asked while it is down, the service notices, and learns the schema again once it is back.
      await ask('{ games { edges { node { name } } } }');
      upstream = await startUpstream(port, 3);
      await eventually('the changed schema learnt', async () => (await ready()).graphqlUpstream.learnt === 3);
      // A referee of the fixture's set SET, and the family's fields in Fees' shape (family.md §9.4).
      const rest = (await get(`${serve.url}/api/v2/referral-sets/referees?referralSetId=${SET}&pagination.first=1`)).body as {
        referralSetReferees: { edges: { node: Record<string, string> }[] };
      };
      const partyId = rest.referralSetReferees.edges[0]!.node.referee!;
      const [fees] = await apollo(serve.url, [{ query: FEES, variables: { partyId } }]);
      assert.equal(fees!.error, undefined, JSON.stringify(fees!.error));
      const referee = rest.referralSetReferees.edges[0]!.node;
      const set = (await get(`${serve.url}/api/v2/referral-sets?referralSetId=${SET}`)).body as {
        referralSets: { edges: { node: Record<string, string> }[] };
      };
      const referrer = set.referralSets.edges[0]!.node.referrer;
      assert.deepEqual(fees!.data, {
        epoch: { __typename: 'Epoch', id: '20' },
        volumeDiscountStats: {
          __typename: 'VolumeDiscountStatsConnection',
          edges: [
            {
              __typename: 'VolumeDiscountStatsEdge',
              node: {
                __typename: 'VolumeDiscountStatsV3',
                atEpoch: 19,
                discountFactors: {
                  __typename: 'VolumeDiscountFactors',
                  infrastructureFactor: '0.01',
                  makerFactor: '0.01',
                  liquidityFactor: '0.01',
                },
                runningVolumeNotional: '12000',
              },
            },
          ],
        },
        referralSetReferrer: { __typename: 'ReferralSetConnection', edges: [] },
        referralSetReferee: {
          __typename: 'ReferralSetConnection',
          edges: [
            {
              __typename: 'ReferralSetEdge',
              node: {
                __typename: 'ReferralSet',
                id: SET,
                referrer,
              },
            },
          ],
        },
        // The fixture has no referral set statistics: an empty page, no error.
        referralSetStats: { __typename: 'ReferralSetStatsConnection', edges: [] },
        referralSetReferees: {
          __typename: 'ReferralSetRefereeConnection',
          edges: [
            {
              __typename: 'ReferralSetRefereeEdge',
              node: { __typename: 'ReferralSetReferee', atEpoch: Number(referee.atEpoch), totalRefereeNotionalTakerVolume: '0' },
            },
          ],
        },
      });
    });
  });
}
