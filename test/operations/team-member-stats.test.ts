/**
 * ListTeamMembersStatistics through HTTP, on both stores: paging walks over the team-stats
 * fixture, cursors with partyId, ids and fault order, huge aggregationEpochs, and a generated
 * team large enough to page, ingested through the CLI from stdin, checked to exact totals.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { listTeamMembersStatistics } from '../../src/operations/team-member-stats/index.js';
import type { TEAM_MEMBER_STATISTICS } from '../../src/operations/team-member-stats/message.js';
import type { Connection, MessageJson } from '../../src/contract/message.js';
import { explainOperation } from '../helpers/explain.js';
import { assertPagingConsistent } from '../helpers/paging.js';
import { useServedStore } from '../helpers/served-store.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS } from '../helpers/stores.js';

type Node = MessageJson<typeof TEAM_MEMBER_STATISTICS>;
type Page = Connection<Node>;

const hex = (byte: string) => byte.repeat(32);
const cursorOf = (id: string) => Buffer.from(`{"ID":"${id}"}`).toString('base64');
const EMPTY = { statistics: { edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: '', endCursor: '' } } };

function badId(id: string) {
  return {
    code: 3,
    message: 'InvalidArgument error',
    details: [
      {
        '@type': 'type.googleapis.com/vega.ErrorDetail',
        code: 10000,
        message: 'failed to list team referees',
        inner: `decoding '${id}': not a valid hex id (or well known exception)`,
      },
    ],
  };
}
function badPagination(inner: string) {
  return {
    code: 3,
    message: 'InvalidArgument error',
    details: [{ '@type': 'type.googleapis.com/vega.ErrorDetail', code: 10028, message: 'invalid pagination', inner }],
  };
}

async function page(url: string): Promise<Page> {
  const res = await get(url);
  assert.equal(res.status, 200, res.text);
  return (res.body as { statistics: Page }).statistics;
}

// The generated team: 31 members over epochs 1-3. Member i (1-based) has volume 100·i + epoch in
// each epoch it has; members with i % 3 = 0 also win a team-game reward of i + 0.5 quantum per
// epoch (rounded half away from zero: i + 1). Member 9's id is the one byte 09, shown as fBTC.
// Member 30 has statistics in epoch 1 only. Member 31 has statistics in epoch 1 and a reward in
// epoch 4, which has started but not ended: its rows span the window without any in it.
const TEAM = hex('7a');
const GAME = hex('7b');
const MEMBERS = Array.from({ length: 31 }, (_, k) => k + 1);
const partyHex = (i: number) => (i === 9 ? '09' : hex(i.toString(16).padStart(2, '0')));
const partyShown = (i: number) => (i === 9 ? 'fBTC' : partyHex(i));
const epochsOf = (i: number) => (i >= 30 ? [1] : [1, 2, 3]);

function generatedChain(): string {
  const lines: string[] = [];
  let height = 100;
  let ts = 1_711_929_600_000_000_000n;
  const block = (events: Record<string, unknown>[]) => {
    height += 1;
    ts += 60_000_000_000n;
    const all = [
      { type: 'BUS_EVENT_TYPE_BEGIN_BLOCK', beginBlock: { height: String(height), timestamp: String(ts), hash: `B${height}` } },
      ...events,
      { type: 'BUS_EVENT_TYPE_END_BLOCK', endBlock: { height: String(height) } },
    ];
    for (const [seq, e] of all.entries()) lines.push(JSON.stringify({ id: `${height}-${seq}`, block: `B${height}`, ...e }));
  };
  const epoch = (seq: number, action: string) => ({
    type: 'BUS_EVENT_TYPE_EPOCH_UPDATE',
    epochEvent: { seq: String(seq), action, startTime: '0', expireTime: '0', endTime: '0' },
  });
  block([
    epoch(1, 'EPOCH_ACTION_START'),
    {
      type: 'BUS_EVENT_TYPE_TEAM_CREATED',
      teamCreated: { teamId: TEAM, referrer: partyHex(1), name: 'big', createdAt: String(ts), closed: false, atEpoch: '1', allowList: [] },
    },
    ...MEMBERS.slice(1).map((i) => ({
      type: 'BUS_EVENT_TYPE_REFEREE_JOINED_TEAM',
      refereeJoinedTeam: { teamId: TEAM, referee: partyHex(i), joinedAt: String(ts), atEpoch: '1' },
    })),
    {
      type: 'BUS_EVENT_TYPE_TRANSFER',
      transfer: {
        id: hex('7c'),
        gameId: GAME,
        status: 'STATUS_PENDING',
        timestamp: String(ts),
        recurring: { dispatchStrategy: { entityScope: 'ENTITY_SCOPE_TEAMS' } },
      },
    },
  ]);
  const reward = (i: number, e: number, quantumAmount: string) => ({
    type: 'BUS_EVENT_TYPE_REWARD_PAYOUT_EVENT',
    rewardPayout: {
      party: partyHex(i),
      epochSeq: String(e),
      asset: hex('7d'),
      amount: '1',
      percentOfTotalReward: '0.1',
      timestamp: String(ts),
      rewardType: 'ACCOUNT_TYPE_REWARD_AVERAGE_NOTIONAL',
      lockedUntilEpoch: '0',
      quantumAmount,
      gameId: GAME,
    },
  });
  for (const e of [1, 2, 3]) {
    const members = MEMBERS.filter((i) => epochsOf(i).includes(e));
    block([
      epoch(e, 'EPOCH_ACTION_END'),
      {
        type: 'BUS_EVENT_TYPE_TEAMS_STATS_UPDATED',
        teamsStatsUpdated: {
          atEpoch: String(e),
          stats: [{ teamId: TEAM, membersStats: members.map((i) => ({ partyId: partyHex(i), notionalVolume: String(100 * i + e) })) }],
        },
      },
      ...members.filter((i) => i % 3 === 0).map((i) => reward(i, e, `${i}.5`)),
      epoch(e + 1, 'EPOCH_ACTION_START'),
    ]);
  }
  // Epoch 4 is under way: a reward for it creates a row beyond the latest ended epoch.
  block([reward(31, 4, '5')]);
  return `${lines.join('\n')}\n`;
}

/** The expected node of member i over the window's epochs. */
function expectedNode(i: number, window: number[]): Node {
  const epochs = epochsOf(i).filter((e) => window.includes(e));
  const reward = i % 3 === 0 ? i + 1 : 0;
  return {
    partyId: partyShown(i),
    totalQuantumVolume: String(epochs.reduce((s, e) => s + 100 * i + e, 0)),
    totalQuantumRewards: String(reward * epochs.length),
    quantumRewards: epochs.map((e) => ({ epoch: String(e), totalQuantumRewards: String(reward) })),
    totalGamesPlayed: reward > 0 ? '1' : '0',
    gamesPlayed: reward > 0 ? [GAME] : [],
    quantumVolumes: epochs.map((e) => ({ epoch: String(e), totalQuantumVolumes: String(100 * i + e) })),
  };
}

for (const kind of STORE_KINDS) {
  describe(`team stats on ${kind}: the team-stats fixture`, () => {
    const ctx = useServedStore(kind, { dataset: 'team-stats' });
    const team6 = () => `${ctx.url}/api/v2/teams/${hex('a6')}/stats?aggregationEpochs=3`;

    test('paging team a6a6… with aggregationEpochs=3, sizes 1, 2, 3, both directions and orders', async () => {
      for (const size of [1, 2, 3]) assert.equal(await assertPagingConsistent(team6(), 'statistics', size), 7);
    });

    test('paging with partyId', async () => {
      assert.equal(await assertPagingConsistent(`${team6()}&partyId=${hex('63')}`, 'statistics', 1), 1);
    });

    test('the whole team a6a6…, oldest first: parties ascending, exact totals', async () => {
      const p = await page(`${team6()}&pagination.newestFirst=false`);
      assert.deepEqual(
        p.edges.map((e) => [e.node.partyId, e.node.totalQuantumVolume, e.node.totalQuantumRewards, e.node.totalGamesPlayed]),
        [
          [hex('61'), '3006', '9', '1'],
          [hex('62'), '6006', '6', '1'],
          [hex('63'), '9006', '6', '1'],
          [hex('64'), '8004', '33', '1'],
          [hex('65'), '10004', '0', '0'],
          [hex('66'), '18006', '17', '2'],
          [hex('67'), '7001', '4', '1'],
        ],
      );
      assert.deepEqual(p.pageInfo, {
        hasNextPage: false,
        hasPreviousPage: false,
        startCursor: cursorOf(hex('61')),
        endCursor: cursorOf(hex('67')),
      });
      assert.deepEqual(
        p.edges.map((e) => e.cursor),
        p.edges.map((e) => cursorOf(e.node.partyId)),
      );
    });

    test('a very large aggregationEpochs is an empty page, not an error', async () => {
      for (const n of ['1000000000000', '9223372036854775807']) {
        const res = await get(`${ctx.url}/api/v2/teams/${hex('a6')}/stats?aggregationEpochs=${n}`);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.text, JSON.stringify(EMPTY));
      }
    });

    test('aggregationEpochs one above the epochs with data: the team is left out', async () => {
      const res = await get(`${ctx.url}/api/v2/teams/${hex('a6')}/stats?aggregationEpochs=4`);
      assert.deepEqual(res.body, EMPTY);
    });

    test('cursor + partyId, in both directions and both orders', async () => {
      const party = hex('63');
      const only = (await page(`${team6()}&partyId=${party}`)).edges;
      assert.equal(only.length, 1);
      assert.equal(only[0]!.node.totalQuantumVolume, '9006');
      const q = (params: string) => page(`${team6()}&partyId=${party}&${params}`);
      const c = (id: string) => encodeURIComponent(cursorOf(hex(id)));

      // Past the only row, either way: empty, with the row on the cursor's side.
      assert.deepEqual(await q(`pagination.first=1&pagination.after=${c('63')}`), {
        edges: [],
        pageInfo: { hasNextPage: false, hasPreviousPage: true, startCursor: '', endCursor: '' },
      });
      assert.deepEqual(await q(`pagination.last=1&pagination.before=${c('63')}`), {
        edges: [],
        pageInfo: { hasNextPage: true, hasPreviousPage: false, startCursor: '', endCursor: '' },
      });
      // Descending display (default): after 64 comes 63; oldest first: after 62 comes 63.
      const onlyPage = {
        edges: only,
        pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: cursorOf(party), endCursor: cursorOf(party) },
      };
      assert.deepEqual(await q(`pagination.first=1&pagination.after=${c('64')}`), onlyPage);
      assert.deepEqual(await q(`pagination.first=1&pagination.after=${c('62')}&pagination.newestFirst=false`), onlyPage);
      assert.deepEqual(await q(`pagination.last=1&pagination.before=${c('62')}`), onlyPage);
      assert.deepEqual(await q(`pagination.last=1&pagination.before=${c('64')}&pagination.newestFirst=false`), onlyPage);
      // The cursor on the wrong side of the row: nothing, and the row is on the other side.
      assert.deepEqual(await q(`pagination.first=1&pagination.after=${c('62')}`), {
        edges: [],
        pageInfo: { hasNextPage: false, hasPreviousPage: true, startCursor: '', endCursor: '' },
      });
    });

    test('a cursor without its ID key is the empty id, before every party', async () => {
      const empty = encodeURIComponent(Buffer.from('{}').toString('base64'));
      const p = await page(`${team6()}&pagination.newestFirst=false&pagination.first=2&pagination.after=${empty}`);
      assert.deepEqual(
        p.edges.map((e) => e.node.partyId),
        [hex('61'), hex('62')],
      );
      assert.equal(p.pageInfo.hasPreviousPage, false);
      assert.equal(p.pageInfo.hasNextPage, true);
    });

    test('non-hex team and party ids', async () => {
      const base = `${ctx.url}/api/v2/teams`;
      const cases: [string, unknown][] = [
        [`${base}/zz/stats`, badId('zz')],
        [`${base}/abc/stats?aggregationEpochs=2`, badId('abc')],
        [`${base}/${hex('a6')}/stats?partyId=xyz`, badId('xyz')],
        [`${base}/${hex('a6')}/stats?party_id=0x61`, badId('0x61')],
        // The team is checked before the party.
        [`${base}/zz/stats?partyId=yy`, badId('zz')],
        // Faults in order: query parsing, then pagination, then ids.
        [
          `${base}/zz/stats?partyId=yy&aggregationEpochs=x`,
          { code: 3, message: 'parsing field "aggregation_epochs": strconv.ParseUint: parsing "x": invalid syntax', details: [] },
        ],
        [`${base}/zz/stats?partyId=yy&pagination.first=0`, badPagination('pagination limit must be in range 0-5000')],
        [`${base}/zz/stats?pagination.after=`, badPagination('failed to decode after cursor: cursor is empty')],
        // A cursor whose id is not hex is an invalid cursor.
        [
          `${base}/${hex('a6')}/stats?pagination.after=${encodeURIComponent(cursorOf('zz'))}`,
          badPagination('failed to decode after cursor: invalid cursor'),
        ],
        [
          `${base}/${hex('a6')}/stats?pagination.last=1&pagination.before=${encodeURIComponent(Buffer.from('{"ID":5}').toString('base64'))}`,
          badPagination('failed to decode before cursor: invalid cursor'),
        ],
      ];
      for (const [url, body] of cases) {
        const res = await get(url);
        assert.equal(res.status, 400, url);
        assert.deepEqual(res.body, body, url);
      }
    });

    test('well-known ids are valid ids; unknown teams and the teamId query key change nothing', async () => {
      for (const url of [
        `${ctx.url}/api/v2/teams/VOTE/stats?aggregationEpochs=1`,
        `${ctx.url}/api/v2/teams/${hex('a6')}/stats?aggregationEpochs=3&partyId=fBTC`,
        `${ctx.url}/api/v2/teams/${hex('ab')}/stats?aggregationEpochs=3&team_id=${hex('a6')}`,
      ]) {
        const res = await get(url);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body, EMPTY, url);
      }
    });

    test('the chain head headers', async () => {
      const res = await get(team6());
      assert.match(res.headers.get('x-block-height') ?? '', /^\d+$/);
      assert.match(res.headers.get('x-block-timestamp') ?? '', /^\d+$/);
    });
  });

  describe(`team stats on ${kind}: a generated team of 31 members`, () => {
    const ctx = useServedStore(kind, { ingest: { stdin: generatedChain() } });
    const url = (params: string) => `${ctx.url}/api/v2/teams/${TEAM}/stats?${params}`;
    // Byte order: 0101…, …, 0808…, 09 (fBTC), 0a0a…, …, 1f1f…: the members in numeric order.
    const ascending = MEMBERS;

    test('aggregationEpochs=3: every member, exact totals', async () => {
      const p = await page(url('aggregationEpochs=3&pagination.newestFirst=false'));
      assert.deepEqual(
        p.edges.map((e) => e.node),
        ascending.map((i) => expectedNode(i, [1, 2, 3])),
      );
      // Spot checks of the arithmetic: member 12 (rewards 13 per epoch) and member 30 (epoch 1 only).
      const byId = new Map(p.edges.map((e) => [e.node.partyId, e.node]));
      assert.equal(byId.get(hex('0c'))!.totalQuantumVolume, '3606');
      assert.equal(byId.get(hex('0c'))!.totalQuantumRewards, '39');
      assert.equal(byId.get(hex('1e'))!.totalQuantumVolume, '3001');
      assert.equal(byId.get(hex('1e'))!.totalQuantumRewards, '31');
      assert.deepEqual(byId.get('fBTC')!.gamesPlayed, [GAME]);
      assert.deepEqual(byId.get(hex('1f'))!.quantumRewards, [{ epoch: '1', totalQuantumRewards: '0' }]);
      assert.deepEqual(byId.get(hex('1f'))!.gamesPlayed, []);
      const sum = p.edges.reduce((s, e) => s + BigInt(e.node.totalQuantumVolume), 0n);
      assert.equal(sum, 136776n); // Σ_{i=1..29} (300·i + 6) + 3001 + 3101
    });

    test('aggregationEpochs=2: the members without rows in the window are left out', async () => {
      const p = await page(url('aggregationEpochs=2'));
      assert.deepEqual(
        p.edges.map((e) => e.node),
        ascending
          .filter((i) => i < 30)
          .reverse()
          .map((i) => expectedNode(i, [2, 3])),
      );
    });

    test('aggregationEpochs=4 reaches epoch 0, which has no data: empty', async () => {
      assert.deepEqual((await get(url('aggregationEpochs=4'))).body, EMPTY);
    });

    test('paging is consistent with several page sizes', async () => {
      for (const size of [1, 4, 7, 30, 31]) assert.equal(await assertPagingConsistent(url('aggregationEpochs=3'), 'statistics', size), 31);
      assert.equal(await assertPagingConsistent(url('aggregationEpochs=2'), 'statistics', 6), 29);
    });

    test('a well-known party id round-trips through its cursor', async () => {
      const p = await page(url('aggregationEpochs=3&pagination.newestFirst=false&pagination.first=9'));
      assert.equal(p.edges[8]!.node.partyId, 'fBTC');
      assert.equal(p.pageInfo.endCursor, cursorOf('fBTC'));
      assert.equal(p.pageInfo.hasNextPage, true);
      const next = await page(
        url(
          `aggregationEpochs=3&pagination.newestFirst=false&pagination.first=2&pagination.after=${encodeURIComponent(p.pageInfo.endCursor)}`,
        ),
      );
      assert.deepEqual(
        next.edges.map((e) => e.node.partyId),
        [hex('0a'), hex('0b')],
      );
      assert.equal(next.pageInfo.hasPreviousPage, true);
      // The cursor given as hex is the same position.
      const same = await page(
        url(`aggregationEpochs=3&pagination.newestFirst=false&pagination.first=2&pagination.after=${encodeURIComponent(cursorOf('09'))}`),
      );
      assert.deepEqual(same, next);
      const back = await page(
        url(`aggregationEpochs=3&pagination.last=1&pagination.before=${encodeURIComponent(cursorOf('0a'.repeat(32)))}`),
      );
      assert.deepEqual(
        back.edges.map((e) => e.node.partyId),
        [hex('0b')],
      );
    });

    test("plan: per party, one index-only range of team_member_stats in epoch order and one of team_party_games, and no sort but the parties'", async () => {
      const [plan] = await explainOperation(
        ctx.store,
        listTeamMembersStatistics,
        'aggregationEpochs=3',
        { teamId: TEAM },
        { enable_seqscan: 'off' },
      );
      // Per shown party: its window's rows by one range of the primary key, which carries the
      // columns read (rows of a party lie on as many heap pages as it has epochs)...
      const scans = [...plan!.matchAll(/Index Only Scan using team_member_stats_pkey on team_member_stats s .*loops=(\d+)\)/g)];
      assert.equal(scans.length, 1, plan);
      assert.equal(scans[0]![1], '31', plan);
      // ...and its games by one range of team_party_games' primary key, in game id order, which
      // carries the epochs tested (index-only): the rows' games are not unnested and sorted per
      // party.
      const games = [...plan!.matchAll(/Index Only Scan using team_party_games_pkey on team_party_games pg .*loops=(\d+)\)/g)];
      assert.equal(games.length, 1, plan);
      assert.equal(games[0]![1], '31', plan);
      assert.doesNotMatch(plan!, /unnest/, plan);
      // The entry lists take the rows in scan order: the only sort is of the parties.
      for (const m of plan!.matchAll(/Sort Key: (.*)/g)) assert.match(m[1]!, /^w\.party( DESC)?$/, plan);
    });
  });
}
