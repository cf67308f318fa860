/**
 * The explorer's own endpoints over HTTP, on both stores: /explorer/api/overview, /assets and
 * /teams, with exact bodies over a small hand-made chain ingested through the CLI, their paging
 * and the contract's error bodies; the asset read model over asset events (the latest wins, in a
 * batch and across runs; test/vega-data/ checks those of a real network's chain).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Store } from '../../src/db/store.js';
import { blockLines, hex, payout, refereeJoined, setCreated } from '../helpers/events.js';
import { runCli } from '../helpers/cli.js';
import { useServedStore } from '../helpers/served-store.js';
import { get, startServer } from '../helpers/server.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';

const T0 = 1_700_000_000_000_000_000n;
const at = (seconds: number) => String(T0 + BigInt(seconds) * 1_000_000_000n);

const teamCreated = (teamId: string, referrer: string, name: string, createdAt: string, closed = false) => ({
  type: 'BUS_EVENT_TYPE_TEAM_CREATED',
  teamCreated: { teamId, referrer, name, createdAt, closed, atEpoch: '1', allowList: [] },
});
const joinedTeam = (teamId: string, referee: string) => ({
  type: 'BUS_EVENT_TYPE_REFEREE_JOINED_TEAM',
  refereeJoinedTeam: { teamId, referee, joinedAt: T0.toString(), atEpoch: '1' },
});
const epochEnded = (seq: string) => ({
  type: 'BUS_EVENT_TYPE_EPOCH_UPDATE',
  epochEvent: { seq, action: 'EPOCH_ACTION_END', startTime: '1', expireTime: '2', endTime: '3' },
});
const asset = (id: string, name: string, symbol: string, decimals: string, quantum: string, status: string) => ({
  type: 'BUS_EVENT_TYPE_ASSET',
  asset: { id, details: { name, symbol, decimals, quantum, erc20: { contractAddress: '0x00' } }, status },
});
const teamStats = (atEpoch: string, teams: [string, string[]][]) => ({
  type: 'BUS_EVENT_TYPE_TEAMS_STATS_UPDATED',
  teamsStatsUpdated: {
    atEpoch,
    stats: teams.map(([teamId, parties]) => ({ teamId, membersStats: parties.map((partyId) => ({ partyId, notionalVolume: '10' })) })),
  },
});

// Three teams: A (2 members, statistics in epochs 1-3), B (1 member, epoch 3 only) and C (closed,
// none); two referral sets; rewards in asset 0f… (epochs 1, 2; announced twice, the later event
// wins) and VOTE (00, epoch 3; never announced); asset aa… announced but never paid in.
const A = hex('c1');
const B = hex('c2');
const C = hex('c3');
const CHAIN = [
  ...blockLines(1, [
    setCreated(hex('a1'), hex('91'), at(10)),
    setCreated(hex('a2'), hex('92'), at(20)),
    refereeJoined(hex('a1'), hex('b2'), '1'),
    refereeJoined(hex('a2'), hex('b1'), '1'),
    teamCreated(A, hex('d1'), 'Alpha Owls', at(30)),
    teamCreated(B, hex('d2'), 'Beta 100% _x', at(40)),
    teamCreated(C, hex('d3'), 'gamma <&>', at(50), true),
    joinedTeam(A, hex('e1')),
    asset(hex('0f'), 'Fifteen', 'FIF', '2', '100', 'STATUS_PROPOSED'),
    asset(hex('aa'), 'Gold <&> "bars"', 'GLD', '18', '1000000000000000000', 'STATUS_ENABLED'),
  ]),
  ...blockLines(2, [epochEnded('1'), teamStats('1', [[A, [hex('d1'), hex('e1')]]]), payout('1', hex('0f'), '100')]),
  ...blockLines(3, [epochEnded('2'), teamStats('2', [[A, [hex('d1')]]]), payout('2', hex('0f'), '5')]),
  ...blockLines(4, [
    epochEnded('3'),
    teamStats('3', [
      [A, [hex('e1')]],
      [B, [hex('d2')]],
    ]),
    payout('3', '00', '7'),
    asset(hex('0f'), 'Fifteen', 'FIF', '2', '100', 'STATUS_ENABLED'),
    asset(hex('0f'), 'Fifteen dollars', 'FIF', '2', '100.5', 'STATUS_ENABLED'),
  ]),
].join('\n');

const team = (
  id: string,
  name: string,
  referrer: string,
  members: number,
  createdAt: string,
  closed: boolean,
  epochs: number,
  eligible: number,
) =>
  `{"id":"${id}","name":${JSON.stringify(name).replace('<', '\\u003c').replace('>', '\\u003e').replace('&', '\\u0026')},"referrer":"${referrer}","totalMembers":"${members}",` +
  `"createdAt":"${createdAt}","closed":${closed},"epochsWithStats":"${epochs}","eligibleEpochs":"${eligible}"}`;
const TEAM_A = team(A, 'Alpha Owls', hex('d1'), 2, at(30), false, 3, 3);
const TEAM_B = team(B, 'Beta 100% _x', hex('d2'), 1, at(40), false, 1, 1);
const TEAM_C = team(C, 'gamma <&>', hex('d3'), 1, at(50), true, 0, 0);

/** The cursor of a team: the data-node's referral-set cursor shape, (createdAt, id). */
const cursor = (seconds: number, id: string) =>
  Buffer.from(
    `{"CreatedAt":"${new Date(Number(T0 / 1_000_000n) + seconds * 1000).toISOString().replace('.000Z', 'Z')}","ID":"${id}"}`,
  ).toString('base64');

const page = (nodes: [string, string][], next: boolean, previous: boolean) =>
  `{"teams":{"edges":[${nodes.map(([n, c]) => `{"node":${n},"cursor":"${c}"}`).join(',')}],"pageInfo":{"hasNextPage":${next},"hasPreviousPage":${previous},` +
  `"startCursor":"${nodes[0]?.[1] ?? ''}","endCursor":"${nodes[nodes.length - 1]?.[1] ?? ''}"}}}`;
const EDGE_A: [string, string] = [TEAM_A, cursor(30, A)];
const EDGE_B: [string, string] = [TEAM_B, cursor(40, B)];
const EDGE_C: [string, string] = [TEAM_C, cursor(50, C)];

for (const kind of STORE_KINDS) {
  describe(`explorer endpoints on ${kind}`, () => {
    const served = useServedStore(kind, { ingest: { stdin: `${CHAIN}\n` } });

    const body = async (path: string, status = 200) => {
      const res = await get(`${served.url}${path}`);
      assert.equal(res.status, status, `${path}: ${res.text}`);
      assert.equal(res.headers.get('content-type'), 'application/json');
      return res;
    };

    test('overview: chain head, counts and example ids', async () => {
      const res = await body('/explorer/api/overview');
      const height = res.headers.get('x-block-height');
      const time = res.headers.get('x-block-timestamp');
      assert.equal(height, '4');
      assert.equal(
        res.text,
        `{"chainHead":{"height":"4","blockTime":"${time}"},"lastEndedEpoch":"3","counts":{"referralSets":"2","teams":"3","epochs":"3","assets":"3"},` +
          `"examples":{"referralSetId":"${hex('a2')}","referee":"${hex('b1')}","teamId":"${A}","teamEpochs":"3","assetId":"VOTE"}}`,
      );
      // The example requests work.
      assert.equal(JSON.parse((await body(`/api/v2/referral-sets?referee=${hex('b1')}`)).text).referralSets.edges[0].node.id, hex('a2'));
      assert.equal(JSON.parse((await body(`/api/v2/teams/${A}/stats?aggregationEpochs=3`)).text).statistics.edges.length, 2);
    });

    test('assets: every asset with rewards or an asset event, by id; the latest event wins; details null without one', async () => {
      const res = await body('/explorer/api/assets');
      assert.equal(
        res.text,
        '{"assets":[{"id":"VOTE","symbol":null,"name":null,"decimals":null,"quantum":null,"status":null},' +
          `{"id":"${hex('0f')}","symbol":"FIF","name":"Fifteen dollars","decimals":"2","quantum":"100.5","status":"STATUS_ENABLED"},` +
          `{"id":"${hex('aa')}","symbol":"GLD","name":"Gold \\u003c\\u0026\\u003e \\"bars\\"","decimals":"18","quantum":"1000000000000000000","status":"STATUS_ENABLED"}]}`,
      );
    });

    test('teams: newest first with members, statistics epochs and the eligible run', async () => {
      assert.equal((await body('/explorer/api/teams')).text, page([EDGE_C, EDGE_B, EDGE_A], false, false));
      assert.equal((await body('/explorer/api/teams?pagination.newestFirst=false')).text, page([EDGE_A, EDGE_B, EDGE_C], false, false));
      // The eligible run agrees with the team stats operation: A is listed for 3 epochs, not 4.
      assert.equal(JSON.parse((await body(`/api/v2/teams/${A}/stats?aggregationEpochs=4`)).text).statistics.edges.length, 0);
      assert.equal(JSON.parse((await body(`/api/v2/teams/${B}/stats?aggregationEpochs=1`)).text).statistics.edges.length, 1);
      assert.equal(JSON.parse((await body(`/api/v2/teams/${B}/stats?aggregationEpochs=2`)).text).statistics.edges.length, 0);
    });

    test('teams: paged with cursors both ways', async () => {
      assert.equal((await body('/explorer/api/teams?pagination.first=2')).text, page([EDGE_C, EDGE_B], true, false));
      assert.equal(
        (await body(`/explorer/api/teams?pagination.first=2&pagination.after=${encodeURIComponent(EDGE_B[1])}`)).text,
        page([EDGE_A], false, true),
      );
      assert.equal(
        (await body(`/explorer/api/teams?pagination.last=1&pagination.before=${encodeURIComponent(EDGE_A[1])}`)).text,
        page([EDGE_B], true, true),
      );
      assert.equal(
        (await body(`/explorer/api/teams?pagination.first=1&pagination.after=${encodeURIComponent(EDGE_A[1])}`)).text,
        page([], false, true),
      );
    });

    test('teams: search by name (case-insensitive, literally) or id prefix', async () => {
      const search = async (q: string) => (await body(`/explorer/api/teams?search=${encodeURIComponent(q)}`)).text;
      assert.equal(await search('alpha'), page([EDGE_A], false, false));
      assert.equal(await search('OWL'), page([EDGE_A], false, false));
      assert.equal(await search('c2c2'), page([EDGE_B], false, false));
      assert.equal(await search('C3'), page([EDGE_C], false, false));
      assert.equal(await search('100%'), page([EDGE_B], false, false));
      assert.equal(await search('%'), page([EDGE_B], false, false));
      assert.equal(await search('_'), page([EDGE_B], false, false));
      assert.equal(await search('<&>'), page([EDGE_C], false, false));
      assert.equal(await search('zzz'), page([], false, false));
      // No name holds a NUL (PostgreSQL's text cannot): none matches, and the store is not asked to compare one.
      assert.equal(await search('\0'), page([], false, false));
      assert.equal(await search('a\0b'), page([], false, false));
      assert.equal(await search(''), page([EDGE_C, EDGE_B, EDGE_A], false, false));
      assert.equal((await body('/explorer/api/teams?search=a&pagination.first=1')).text, page([EDGE_C], true, false));
    });

    test('errors keep the contract body', async () => {
      const invalidPagination = (inner: string) =>
        `{"code":3,"message":"InvalidArgument error","details":[{"@type":"type.googleapis.com/vega.ErrorDetail","code":10028,"message":"invalid pagination","inner":"${inner}"}]}`;
      assert.equal(
        (await body('/explorer/api/teams?pagination.first=0', 400)).text,
        invalidPagination('pagination limit must be in range 0-5000'),
      );
      assert.equal(
        (await body('/explorer/api/teams?pagination.after=!!', 400)).text,
        invalidPagination('failed to decode after cursor: failed to decode cursor: illegal base64 data at input byte 0'),
      );
      assert.equal(
        (await body(`/explorer/api/teams?pagination.after=${btoa('[]')}`, 400)).text,
        invalidPagination('failed to decode after cursor: invalid cursor'),
      );
      assert.equal(
        (await body('/explorer/api/teams?search=a&search=b', 400)).text,
        '{"code":3,"message":"too many values for field \\"search\\": a, b","details":[]}',
      );
      assert.equal(
        (await body('/explorer/api/teams?pagination.first=x', 400)).text,
        '{"code":3,"message":"parsing field \\"first\\": strconv.ParseInt: parsing \\"x\\": invalid syntax","details":[]}',
      );
      const notAllowed = await fetch(`${served.url}/explorer/api/overview`, { method: 'POST' });
      assert.equal(notAllowed.status, 501);
      assert.equal(await notAllowed.text(), '{"code":12,"message":"Method Not Allowed","details":[]}');
      assert.equal((await body('/explorer/api/unknown', 404)).text, '{"code":5,"message":"Not Found","details":[]}');
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`explorer assets on ${kind}: the latest asset event wins across ingestion runs`, () => {
    let ts: TestStore;
    let store: Store;
    let server: Awaited<ReturnType<typeof startServer>>;
    before(async () => {
      ts = await createTestStore(kind);
      for (const [height, status] of [
        [1, 'STATUS_PROPOSED'],
        [2, 'STATUS_ENABLED'],
      ] as const) {
        const res = await runCli(['ingest', '-', ...ts.args], {
          stdin: `${blockLines(height, [asset(height === 1 ? '00' : 'VOTE', 'VOTE', 'VOTE', '5', '1', status)]).join('\n')}\n`,
        });
        assert.equal(res.code, 0, res.stderr);
      }
      store = await ts.open();
      server = await startServer(store);
    });
    after(async () => {
      await server?.close();
      await store?.close();
      await ts?.drop();
    });

    test('a later run updates the stored asset', async () => {
      const res = await get(`${server.url}/explorer/api/assets`);
      assert.equal(
        res.text,
        '{"assets":[{"id":"VOTE","symbol":"VOTE","name":"VOTE","decimals":"5","quantum":"1","status":"STATUS_ENABLED"}]}',
      );
    });
  });
}
