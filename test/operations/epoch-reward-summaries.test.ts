/**
 * ListEpochRewardSummaries on both stores: paging consistency, every pair of filter options with
 * cursors in both directions and both orders (checked against the full list filtered and paged
 * here, independently of the service), cursor decoding, fault order and exact big amounts.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { parseId } from '../../src/contract/ids.js';
import { listEpochRewardSummaries } from '../../src/operations/epoch-reward-summaries/index.js';
import type { EPOCH_REWARD_SUMMARY } from '../../src/operations/epoch-reward-summaries/message.js';
import type { Connection, MessageJson } from '../../src/contract/message.js';
import { assertRowsAggregatedOnce, explainOperation } from '../helpers/explain.js';
import { assertPagingConsistent } from '../helpers/paging.js';
import { useServedStore } from '../helpers/served-store.js';
import { get, UNCOMPRESSED } from '../helpers/server.js';
import { STORE_KINDS } from '../helpers/stores.js';

const PATH = '/api/v2/rewards/epoch/summaries';

type Node = MessageJson<typeof EPOCH_REWARD_SUMMARY>;
type Page = Connection<Node>;
/** A position in the sort key; ids as given in a cursor (hex or alias). */
interface Position {
  epoch: bigint;
  assetId: string;
  marketId: string;
  rewardType: string;
}

const hex = (id: string) => parseId(id)!;
const cursorOf = (p: Position, amount = '0') =>
  Buffer.from(
    `{"epoch_id":${p.epoch},"asset_id":${JSON.stringify(p.assetId)},"market_id":${JSON.stringify(p.marketId)},` +
      `"reward_type":${JSON.stringify(p.rewardType)},"amount":${JSON.stringify(amount)}}`,
  ).toString('base64');
const cursorJson = (json: string) => encodeURIComponent(Buffer.from(json).toString('base64'));
const positionOf = (n: Node): Position => ({ epoch: BigInt(n.epoch), assetId: n.assetId, marketId: n.marketId, rewardType: n.rewardType });

/** The sort key order: epoch, asset bytes, market bytes, reward type bytes. */
function compare(a: Position, b: Position): number {
  if (a.epoch !== b.epoch) return a.epoch < b.epoch ? -1 : 1;
  for (const [x, y] of [
    [hex(a.assetId), hex(b.assetId)],
    [hex(a.marketId), hex(b.marketId)],
  ] as const) {
    const c = Buffer.compare(Buffer.from(x, 'hex'), Buffer.from(y, 'hex'));
    if (c !== 0) return c;
  }
  return Buffer.compare(Buffer.from(a.rewardType), Buffer.from(b.rewardType));
}

interface Filter {
  assets?: string[];
  markets?: string[];
  from?: bigint;
  to?: bigint;
}

function filterQuery(f: Filter): string {
  const q: string[] = [];
  // Alternate the two spellings of the repeated keys: both add to the same list.
  for (const [i, a] of (f.assets ?? []).entries()) q.push(`filter.${i % 2 ? 'asset_ids' : 'assetIds'}=${encodeURIComponent(a)}`);
  for (const [i, m] of (f.markets ?? []).entries()) q.push(`filter.${i % 2 ? 'marketIds' : 'market_ids'}=${encodeURIComponent(m)}`);
  if (f.from !== undefined) q.push(`filter.fromEpoch=${f.from}`);
  if (f.to !== undefined) q.push(`filter.to_epoch=${f.to}`);
  return q.join('&');
}

function matches(f: Filter, n: Node): boolean {
  const epoch = BigInt(n.epoch);
  return (
    (!f.assets?.length || f.assets.some((a) => hex(a) === hex(n.assetId))) &&
    (!f.markets?.length || f.markets.some((m) => hex(m) === hex(n.marketId))) &&
    (f.from === undefined || epoch >= f.from) &&
    (f.to === undefined || epoch <= f.to)
  );
}

/** The page the contract defines for `all` (ascending) under a filter, cursor and direction. */
function expectedPage(all: Node[], f: Filter, newestFirst: boolean, dir: 'forward' | 'backward', size: number, at: Position | null) {
  const display = all.filter((n) => matches(f, n));
  if (newestFirst) display.reverse();
  const rel = (n: Node) => (at ? (newestFirst ? -1 : 1) * compare(positionOf(n), at) : 0);
  if (dir === 'forward') {
    const beyond = at ? display.filter((n) => rel(n) > 0) : display;
    return {
      nodes: beyond.slice(0, size),
      hasNextPage: beyond.length > size,
      hasPreviousPage: at !== null && display.some((n) => rel(n) <= 0),
    };
  }
  const beyond = at ? display.filter((n) => rel(n) < 0) : display;
  return {
    nodes: beyond.slice(Math.max(0, beyond.length - size)),
    hasNextPage: at !== null && display.some((n) => rel(n) >= 0),
    hasPreviousPage: beyond.length > size,
  };
}

async function fetchPage(url: string): Promise<Page> {
  const res = await get(url, UNCOMPRESSED);
  assert.equal(res.status, 200, `${url}: ${res.text}`);
  return (res.body as { summaries: Page }).summaries;
}

async function fetchAll(base: string): Promise<Node[]> {
  const page = await fetchPage(`${base}${PATH}?pagination.first=5000&pagination.newestFirst=false`);
  assert.equal(page.pageInfo.hasNextPage, false);
  return page.edges.map((e) => e.node);
}

function checkEdges(page: Page): void {
  for (const e of page.edges) assert.equal(e.cursor, cursorOf(positionOf(e.node), e.node.amount), 'edge cursor encodes its node');
  assert.equal(page.pageInfo.startCursor, page.edges[0]?.cursor ?? '');
  assert.equal(page.pageInfo.endCursor, page.edges[page.edges.length - 1]?.cursor ?? '');
}

/**
 * For one filter: a full paging walk by `walkSize`, then forward and backward pages of 3 from every given
 * position, in both orders, each compared with the page computed from the unfiltered list.
 */
async function checkFilterWithCursors(base: string, all: Node[], f: Filter, positions: Position[], walkSize: number): Promise<void> {
  const q = filterQuery(f);
  const url = `${base}${PATH}${q ? `?${q}&` : '?'}`;
  const expectedTotal = all.filter((n) => matches(f, n)).length;
  const total = await assertPagingConsistent(`${base}${PATH}${q ? `?${q}` : ''}`, 'summaries', walkSize);
  assert.equal(total, expectedTotal, `total for ${q}`);
  const checks: Promise<void>[] = [];
  for (const newestFirst of [true, false]) {
    for (const at of [null, ...positions]) {
      for (const dir of ['forward', 'backward'] as const) {
        const params =
          `pagination.newestFirst=${newestFirst}&` +
          (dir === 'forward' ? 'pagination.first=3' : 'pagination.last=3') +
          (at ? `&pagination.${dir === 'forward' ? 'after' : 'before'}=${encodeURIComponent(cursorOf(at))}` : '');
        checks.push(
          fetchPage(url + params).then((page) => {
            const want = expectedPage(all, f, newestFirst, dir, 3, at);
            const what = `${q} ${params}`;
            assert.deepEqual(
              page.edges.map((e) => e.node),
              want.nodes,
              what,
            );
            assert.equal(page.pageInfo.hasNextPage, want.hasNextPage, `hasNextPage ${what}`);
            assert.equal(page.pageInfo.hasPreviousPage, want.hasPreviousPage, `hasPreviousPage ${what}`);
            checkEdges(page);
          }),
        );
      }
    }
  }
  await Promise.all(checks);
}

/**
 * Every other position, starting at the first or the second by the filter's index: each filter
 * gets cursors all over its rows, every position is asked with half the filters, and the test
 * asks half as many pages as with all positions for every filter.
 */
function halfOf<T>(positions: T[], k: number): T[] {
  return positions.filter((_, i) => (i + k) % 2 === 0);
}

type EpochOption = [bigint | undefined, bigint | undefined];

const filterOf = (assets: string[], markets: string[], [from, to]: EpochOption): Filter => ({
  assets,
  markets,
  ...(from !== undefined && { from }),
  ...(to !== undefined && { to }),
});

function* combinations(assetOptions: string[][], marketOptions: string[][], epochOptions: EpochOption[]): Generator<Filter> {
  for (const assets of assetOptions)
    for (const markets of marketOptions) for (const epochs of epochOptions) yield filterOf(assets, markets, epochs);
}

/**
 * Filters in which every option of each parameter meets every option of each other parameter,
 * n × n of them rather than every one of the n × n × n triples (a Latin square: the epochs'
 * option follows the assets' and the markets'). A bug needs two of a filter's parts to meet far
 * more often than three; each filter is asked with cursors all over its rows, so the triples
 * would repeat the same pages many times over. The first options are no ids: that pair, the
 * primary key's path, meets every epoch option too.
 */
function* everyPair(assetOptions: string[][], marketOptions: string[][], epochOptions: EpochOption[]): Generator<Filter> {
  const n = assetOptions.length;
  assert.ok(marketOptions.length === n && epochOptions.length === n, 'a Latin square needs n options of each');
  assert.ok(assetOptions[0]!.length === 0 && marketOptions[0]!.length === 0, 'the first options are no ids');
  for (const [i, assets] of assetOptions.entries())
    for (const [j, markets] of marketOptions.entries()) yield filterOf(assets, markets, epochOptions[(i + j) % n]!);
  for (const epochs of epochOptions.slice(1)) yield filterOf([], [], epochs);
}

const A045 = '045f21da156393d8d46375dce47682e64a37fa2df2d7d40fc7859faeecc3f80c';
const AB9D = 'b9d8249e215b88925bab1eec87b3d90e611244c06c7ab5c94e86c4fa978f18a7';
const AE6D = 'e6d30f0a747d0a2b9ec2d776389605fe039a7b8871cf92e3447324943126b9c3';
const A8AA = '8aa92225c32adb54e527fcb1aee2930cbadb4df6f068ab2c2d667eb057ef00fa';

/** Payout events for the exact-amount test: two payouts per summary whose sum exceeds 2^64. */
function bigAmountEvents(): string {
  const lines: object[] = [];
  const block = (height: number, events: object[]) => {
    const hash = height.toString(16).padStart(64, '0');
    const env = (seq: number, body: object) => ({ id: `${height}-${seq}`, block: hash, version: 1, chainId: 'test', ...body });
    lines.push(
      env(0, {
        type: 'BUS_EVENT_TYPE_BEGIN_BLOCK',
        beginBlock: { height: String(height), timestamp: `${1700000000 + height}000000000`, hash },
      }),
    );
    for (const [i, e] of events.entries()) lines.push(env(i + 1, { type: 'BUS_EVENT_TYPE_REWARD_PAYOUT_EVENT', rewardPayout: e }));
    lines.push(env(events.length + 1, { type: 'BUS_EVENT_TYPE_END_BLOCK', endBlock: { height: String(height) } }));
  };
  const payout = (party: string, asset: string, amount: string, epochSeq = '7') => ({
    party: party.repeat(64),
    epochSeq,
    asset,
    amount,
    percentOfTotalReward: '0.5',
    timestamp: '1700000000000000000',
    rewardType: 'ACCOUNT_TYPE_GLOBAL_REWARD',
    lockedUntilEpoch: '8',
    quantumAmount: '1',
  });
  // 2^64 - 1 and 2^64 + 1 in one block; then 10^30 - 1 and 1 in two blocks.
  block(10, [payout('a', 'aa', '18446744073709551615'), payout('b', 'aa', '18446744073709551617')]);
  block(11, [payout('a', 'bb', '999999999999999999999999999999')]);
  block(12, [payout('b', 'bb', '1'), payout('c', 'cc', '0')]);
  return `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
}

for (const kind of STORE_KINDS) {
  describe(`epoch summaries on ${kind}: fixture data`, () => {
    const served = useServedStore(kind, { dataset: 'epoch-summaries' });
    let all: Node[];
    before(async () => {
      all = await fetchAll(served.url);
    });

    test('the full list: 35 summaries in key order, X-Block headers', async () => {
      assert.equal(all.length, 35);
      for (let i = 1; i < all.length; i++) assert.ok(compare(positionOf(all[i - 1]!), positionOf(all[i]!)) < 0, `row ${i} in order`);
      assert.deepEqual(
        all.filter((n) => n.epoch === '3').map((n) => `${n.assetId}/${n.rewardType.replace('ACCOUNT_TYPE_', '')}=${n.amount}`),
        [
          `${'05032a7e6bd6eed67f8cb6d1b5c318e9fb34ccc515f54a5c1b1c3f27065720ce'}/FEES_INFRASTRUCTURE=74`,
          `${'05032a7e6bd6eed67f8cb6d1b5c318e9fb34ccc515f54a5c1b1c3f27065720ce'}/GLOBAL_REWARD=330`,
          `${'05032a7e6bd6eed67f8cb6d1b5c318e9fb34ccc515f54a5c1b1c3f27065720ce'}/REWARD_LP_RECEIVED_FEES=3198`,
          `${'05032a7e6bd6eed67f8cb6d1b5c318e9fb34ccc515f54a5c1b1c3f27065720ce'}/REWARD_RELATIVE_RETURN=10067`,
          'fBTC/FEES_INFRASTRUCTURE=74',
          'fBTC/GLOBAL_REWARD=330',
          'fBTC/REWARD_LP_RECEIVED_FEES=3198',
          'fBTC/REWARD_RELATIVE_RETURN=10067',
          `${AE6D}/FEES_INFRASTRUCTURE=74`,
          `${AE6D}/GLOBAL_REWARD=330`,
          `${AE6D}/REWARD_LP_RECEIVED_FEES=3198`,
          `${AE6D}/REWARD_MARKET_PROPOSERS=1111111110111111111011111111100`,
          `${AE6D}/REWARD_RELATIVE_RETURN=10067`,
        ],
      );
      assert.deepEqual(all[0], { epoch: '1', assetId: A045, marketId: '', rewardType: 'ACCOUNT_TYPE_GLOBAL_REWARD', amount: '6600' });
      assert.deepEqual(
        all.find((n) => n.epoch === '642'),
        { epoch: '642', assetId: A8AA, marketId: '', rewardType: 'ACCOUNT_TYPE_UNSPECIFIED', amount: '0' },
      );
      const res = await get(`${served.url}${PATH}?pagination.first=1`);
      assert.equal(res.headers.get('x-block-height'), '40014');
      assert.equal(res.headers.get('x-block-timestamp'), '1718218800000000000');
      assert.equal(
        res.text,
        '{"summaries":{"edges":[{"node":{"epoch":"1027","assetId":"8aa92225c32adb54e527fcb1aee2930cbadb4df6f068ab2c2d667eb057ef00fa","marketId":"","rewardType":"ACCOUNT_TYPE_UNSPECIFIED","amount":"1"},' +
          `"cursor":"${cursorOf({ epoch: 1027n, assetId: A8AA, marketId: '', rewardType: 'ACCOUNT_TYPE_UNSPECIFIED' }, '1')}"}],` +
          `"pageInfo":{"hasNextPage":true,"hasPreviousPage":false,"startCursor":"${cursorOf({ epoch: 1027n, assetId: A8AA, marketId: '', rewardType: 'ACCOUNT_TYPE_UNSPECIFIED' }, '1')}",` +
          `"endCursor":"${cursorOf({ epoch: 1027n, assetId: A8AA, marketId: '', rewardType: 'ACCOUNT_TYPE_UNSPECIFIED' }, '1')}"}}}`,
      );
    });

    for (const size of [1, 2, 5]) {
      test(`paging by ${size} inside epoch 3 (13 summaries)`, async () => {
        assert.equal(await assertPagingConsistent(`${served.url}${PATH}?filter.fromEpoch=3&filter.toEpoch=3`, 'summaries', size), 13);
      });
      test(`paging by ${size} over everything (35 summaries)`, async () => {
        assert.equal(await assertPagingConsistent(`${served.url}${PATH}`, 'summaries', size), 35);
      });
    }

    test('every pair of filter options, with cursors in both directions and orders', async () => {
      // Cursors at every third row, plus positions that hold no row.
      const positions: Position[] = [
        ...all.filter((_, i) => i % 3 === 1).map(positionOf),
        { epoch: 0n, assetId: '', marketId: '', rewardType: '' },
        { epoch: 2n, assetId: 'ff', marketId: '', rewardType: 'Z' },
        { epoch: 3n, assetId: '09', marketId: '00', rewardType: '' },
        { epoch: 700n, assetId: '', marketId: '', rewardType: '' },
        { epoch: 9223372036854775807n, assetId: 'ffff', marketId: 'ff', rewardType: 'ZZZ' },
      ];
      const filters = [
        ...everyPair(
          [[], [AE6D], ['09', AB9D], [A8AA, 'fBTC', A045, 'ff']],
          [[], [''], ['deadbeef'], ['', 'deadbeef']],
          [
            [undefined, undefined],
            [2n, undefined],
            [undefined, 3n],
            [3n, 3n],
          ],
        ),
        { from: 700n, to: 1025n },
        { from: 3n, to: 2n },
      ];
      for (const [k, f] of filters.entries()) await checkFilterWithCursors(served.url, all, f, halfOf(positions, k), 3);
    });

    test('a repeated id (also as its alias) does not repeat summaries', async () => {
      const page = await fetchPage(
        `${served.url}${PATH}?filter.assetIds=09&filter.asset_ids=fBTC&filter.assetIds=09&filter.marketIds=&filter.market_ids=`,
      );
      assert.deepEqual(
        page.edges.map((e) => `${e.node.assetId}/${e.node.rewardType}=${e.node.amount}`),
        [
          'fBTC/ACCOUNT_TYPE_REWARD_RELATIVE_RETURN=10067',
          'fBTC/ACCOUNT_TYPE_REWARD_LP_RECEIVED_FEES=3198',
          'fBTC/ACCOUNT_TYPE_GLOBAL_REWARD=330',
          'fBTC/ACCOUNT_TYPE_FEES_INFRASTRUCTURE=74',
        ],
      );
    });

    test('cursor decoding: zero values, aliases, amount forms', async () => {
      const first = async (json: string, extra = '') => {
        const page = await fetchPage(
          `${served.url}${PATH}?pagination.first=2&pagination.newestFirst=false&pagination.after=${cursorJson(json)}${extra}`,
        );
        return page.edges.map((e) => `${e.node.epoch}/${e.node.assetId}/${e.node.rewardType}`);
      };
      const fromStart = [`1/${A045}/ACCOUNT_TYPE_GLOBAL_REWARD`, `1/${A045}/ACCOUNT_TYPE_REWARD_MAKER_PAID_FEES`];
      assert.deepEqual(await first('{}'), fromStart);
      assert.deepEqual(await first('{"epoch_id":null,"asset_id":null,"amount":null}'), fromStart);
      assert.deepEqual(await first('{"epoch_id":0,"unknown":[1]}'), fromStart);
      // fBTC (09) sorts before e6d3…; the amount may be a number; keys are case-insensitive.
      const afterFbtc = [`3/${AE6D}/ACCOUNT_TYPE_FEES_INFRASTRUCTURE`, `3/${AE6D}/ACCOUNT_TYPE_GLOBAL_REWARD`];
      assert.deepEqual(
        await first('{"EPOCH_ID":3,"Asset_Id":"fBTC","reward_type":"ACCOUNT_TYPE_REWARD_RELATIVE_RETURN","amount":12.5}'),
        afterFbtc,
      );
      assert.deepEqual(
        await first('{"epoch_id":3,"asset_id":"09","reward_type":"ACCOUNT_TYPE_REWARD_RELATIVE_RETURN","amount":"-1.5e3"}'),
        afterFbtc,
      );
      // A position between rows of another asset still pages the filtered rows exactly.
      assert.deepEqual(await first('{"epoch_id":3,"asset_id":"ff"}', `&filter.assetIds=${AE6D}&filter.assetIds=09`), []);
      assert.deepEqual(await first('{"epoch_id":3,"asset_id":"08"}', `&filter.assetIds=${AE6D}&filter.assetIds=09`), [
        '3/fBTC/ACCOUNT_TYPE_FEES_INFRASTRUCTURE',
        '3/fBTC/ACCOUNT_TYPE_GLOBAL_REWARD',
      ]);
      // The highest epoch the column holds: nothing after it, everything before it.
      assert.deepEqual(await first('{"epoch_id":9223372036854775807}'), []);
    });

    const invalidCursor = (which: string) => ({
      code: 3,
      message: 'InvalidArgument error',
      details: [
        {
          '@type': 'type.googleapis.com/vega.ErrorDetail',
          code: 10028,
          message: 'invalid pagination',
          inner: `failed to decode ${which} cursor: invalid cursor`,
        },
      ],
    });
    for (const [name, json] of [
      ['epoch as a string', '{"epoch_id":"3"}'],
      ['fractional epoch', '{"epoch_id":2.5}'],
      ['whole epoch with a fraction (Go takes no 3.0 for an integer)', '{"epoch_id":3.0}'],
      ['whole epoch with an exponent', '{"epoch_id":3e0}'],
      ['negative epoch (uint64 in the reference)', '{"epoch_id":-1}'],
      ['epoch beyond 64 bits', '{"epoch_id":1e30}'],
      ['asset not hex', '{"epoch_id":3,"asset_id":"FBTC"}'],
      ['market not hex', '{"epoch_id":3,"market_id":"abc"}'],
      ['reward type not a string', '{"epoch_id":3,"reward_type":7}'],
      ['reward type with a NUL (no PostgreSQL text holds one)', '{"reward_type":"\\u0000"}'],
      ['amount not a decimal', '{"epoch_id":3,"amount":"ten"}'],
      ['amount an object', '{"epoch_id":3,"amount":{}}'],
      ['a JSON array', '[3]'],
      ['a JSON string', '"x"'],
    ] as const) {
      test(`bad cursor: ${name}`, async () => {
        for (const [params, which] of [
          [`pagination.after=${cursorJson(json)}&filter.assetIds=09`, 'after'],
          [`pagination.last=2&pagination.before=${cursorJson(json)}&filter.marketIds=`, 'before'],
        ] as const) {
          const res = await get(`${served.url}${PATH}?${params}`);
          assert.equal(res.status, 400, res.text);
          assert.deepEqual(res.body, invalidCursor(which));
        }
      });
    }

    test('fault order: query parsing, then pagination, then asset ids, then market ids', async () => {
      const detail = (code: number, message: string, inner: string) => [
        { '@type': 'type.googleapis.com/vega.ErrorDetail', code, message, inner },
      ];
      let res = await get(`${served.url}${PATH}?filter.assetIds=zz&pagination.first=0&filter.toEpoch=-1`);
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, {
        code: 3,
        message: 'parsing field "to_epoch": strconv.ParseUint: parsing "-1": invalid syntax',
        details: [],
      });
      res = await get(`${served.url}${PATH}?filter.assetIds=zz&pagination.first=0`);
      assert.deepEqual(res.body, {
        code: 3,
        message: 'InvalidArgument error',
        details: detail(10028, 'invalid pagination', 'pagination limit must be in range 0-5000'),
      });
      res = await get(`${served.url}${PATH}?filter.marketIds=yy&filter.assetIds=09&filter.asset_ids=zz`);
      assert.deepEqual(res.body, {
        code: 3,
        message: 'InvalidArgument error',
        details: detail(
          140001,
          'failed to get summary',
          "could not decode asset ID: decoding 'zz': not a valid hex id (or well known exception)",
        ),
      });
      res = await get(`${served.url}${PATH}?filter.marketIds=&filter.market_ids=%3Cx%3E`);
      assert.equal(res.status, 400);
      assert.equal(
        res.text,
        '{"code":3,"message":"InvalidArgument error","details":[{"@type":"type.googleapis.com/vega.ErrorDetail","code":140001,"message":"failed to get summary",' +
          '"inner":"could not decode market ID: decoding \'\\u003cx\\u003e\': not a valid hex id (or well known exception)"}]}',
      );
    });
  });

  describe(`epoch summaries on ${kind}: several markets (rows written to the read model)`, () => {
    // Payout events carry no market, so rows with markets are written to the table directly to
    // exercise market ordering and the market/pair branches of the query.
    let all: Node[];
    let rowCount = 0;
    const ASSETS = ['00', '09', 'ab', 'abcd'];
    const MARKETS = ['', '01', 'deadbeef', 'ff'];
    const TYPES = ['ACCOUNT_TYPE_A', 'ACCOUNT_TYPE_B'];

    const served = useServedStore(kind, {
      fill: async (store) => {
        const rows: [string, string, string, string, string][] = [];
        let i = 0;
        for (const epoch of [1, 2, 3, 5])
          for (const a of ASSETS)
            for (const m of MARKETS)
              for (const t of TYPES) if ((i++ * 7) % 5 !== 0) rows.push([String(epoch), a, m, t, String(BigInt(i) ** 9n)]);
        await store.query(
          `INSERT INTO epoch_reward_summaries (epoch, asset_id, market_id, reward_type, amount)
           SELECT e, decode(a, 'hex'), decode(m, 'hex'), t, v FROM unnest($1::int8[], $2::text[], $3::text[], $4::text[], $5::numeric[]) AS u(e, a, m, t, v)`,
          [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2]), rows.map((r) => r[3]), rows.map((r) => r[4])],
        );
        rowCount = rows.length;
      },
    });
    before(async () => {
      all = await fetchAll(served.url);
      assert.equal(all.length, rowCount);
    });

    test('rows in key order, ids formatted, amounts exact', async () => {
      for (let i = 1; i < all.length; i++) assert.ok(compare(positionOf(all[i - 1]!), positionOf(all[i]!)) < 0, `row ${i} in order`);
      assert.deepEqual(all.slice(0, 3), [
        { epoch: '1', assetId: 'VOTE', marketId: '', rewardType: 'ACCOUNT_TYPE_B', amount: String(2n ** 9n) },
        { epoch: '1', assetId: 'VOTE', marketId: '01', rewardType: 'ACCOUNT_TYPE_A', amount: String(3n ** 9n) },
        { epoch: '1', assetId: 'VOTE', marketId: '01', rewardType: 'ACCOUNT_TYPE_B', amount: String(4n ** 9n) },
      ]);
      assert.equal(all.at(-1)!.amount, String(128n ** 9n));
    });

    test('every pair of filter options, with cursors in both directions and orders', async () => {
      const positions: Position[] = [
        ...all.filter((_, i) => i % 11 === 3).map(positionOf),
        { epoch: 2n, assetId: 'ab', marketId: '02', rewardType: '' },
        { epoch: 3n, assetId: 'abcc', marketId: 'ffff', rewardType: 'ZZ' },
        { epoch: 4n, assetId: '', marketId: '', rewardType: '' },
      ];
      const filters = [
        ...everyPair(
          [[], ['VOTE'], ['fBTC', 'abcd'], [...ASSETS, '01']],
          [[], [''], ['deadbeef', '01'], [...MARKETS, '02']],
          [
            [undefined, undefined],
            [2n, undefined],
            [undefined, 3n],
            [2n, 3n],
          ],
        ),
        // More pairs than MAX_PAIR_BRANCHES: one branch per id of the shorter list.
        ...combinations(
          [[...ASSETS, '01', '02', '03', '04']],
          [[...MARKETS, '02', '03', '04', '05', '06']],
          [
            [undefined, undefined],
            [2n, 3n],
          ],
        ),
        ...combinations(
          [[...ASSETS, '01', '02', '03', '04', '05', '06']],
          [[...MARKETS, '02', '03', '04', '05']],
          [
            [undefined, undefined],
            [2n, 3n],
          ],
        ),
      ];
      for (const [k, f] of filters.entries()) await checkFilterWithCursors(served.url, all, f, halfOf(positions, k), 7);
    });
  });

  describe(`epoch summaries at scale on ${kind}: plans`, () => {
    // 50 assets x 200 epochs x 4 reward types = 40,000 summaries, written to the read model.
    const asset = (i: number) => (i * 5).toString(16).padStart(64, '0');
    const cursor = (epoch: number, assetId: string) =>
      encodeURIComponent(cursorOf({ epoch: BigInt(epoch), assetId, marketId: '', rewardType: 'ACCOUNT_TYPE_B' }));
    const served = useServedStore(kind, {
      server: false,
      fill: async (store) => {
        await store.query(`INSERT INTO epoch_reward_summaries (epoch, asset_id, market_id, reward_type, amount)
          SELECT e, decode(lpad(to_hex(a * 5), 64, '0'), 'hex'), ''::bytea, t, e * a
            FROM generate_series(1, 200) AS e, generate_series(1, 50) AS a, unnest(ARRAY['ACCOUNT_TYPE_A', 'ACCOUNT_TYPE_B', 'ACCOUNT_TYPE_C', 'ACCOUNT_TYPE_D']) AS t`);
        await store.query('ANALYZE epoch_reward_summaries');
      },
    });

    // [name, query, branches]: a page reads at most limit + 1 index entries per branch.
    const many = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i));
    const cases: [string, string, number][] = [
      ['no filter, first page', 'pagination.first=50', 1],
      ['no filter, deep page via after', `pagination.first=50&pagination.after=${cursor(100, asset(20))}`, 1],
      [
        'no filter, backward page before a cursor, oldest first',
        `pagination.last=50&pagination.newestFirst=false&pagination.before=${cursor(100, asset(20))}`,
        1,
      ],
      ['one asset among 50', `filter.assetIds=${asset(30)}&pagination.first=50`, 1],
      [
        'one asset, cursor at another asset',
        `filter.assetIds=${asset(30)}&pagination.first=50&pagination.after=${cursor(100, asset(20))}`,
        1,
      ],
      ['narrow epoch range', 'filter.fromEpoch=120&filter.toEpoch=121&pagination.first=50', 1],
      [
        'narrow epoch range with a cursor, oldest first',
        `filter.fromEpoch=120&filter.toEpoch=121&pagination.first=50&pagination.newestFirst=false&pagination.after=${cursor(120, asset(20))}`,
        1,
      ],
      [
        'two assets with a cursor',
        `filter.assetIds=${asset(3)}&filter.assetIds=${asset(40)}&pagination.first=50&pagination.after=${cursor(100, asset(20))}`,
        2,
      ],
      [
        'two assets, epoch range, backward from a cursor',
        `filter.assetIds=${asset(3)}&filter.assetIds=${asset(40)}&filter.fromEpoch=50&filter.toEpoch=150&pagination.last=50&pagination.before=${cursor(100, asset(20))}`,
        2,
      ],
      ['market filter with a cursor', `filter.marketIds=&pagination.first=50&pagination.after=${cursor(100, asset(20))}`, 1],
      ['market filter matching nothing', 'filter.marketIds=deadbeef&pagination.first=50', 1],
      [
        'two assets x two markets with a cursor',
        `filter.assetIds=${asset(3)}&filter.assetIds=${asset(40)}&filter.marketIds=&filter.marketIds=deadbeef&pagination.first=50&pagination.after=${cursor(100, asset(20))}`,
        4,
      ],
      [
        'more pairs than MAX_PAIR_BRANCHES: 9 markets x 10 assets',
        `${many(10, (i) => `filter.assetIds=${asset(i * 4 + 1)}`).join('&')}&${many(9, (i) => `filter.marketIds=${i ? i.toString(16).padStart(2, '0') : ''}`).join('&')}&pagination.first=20&pagination.after=${cursor(100, asset(20))}`,
        9,
      ],
    ];
    for (const [name, query, branches] of cases) {
      test(`plan is index range scans: ${name}`, async () => {
        const limit = Number(/pagination\.(?:first|last)=(\d+)/.exec(query)![1]);
        const [plan] = await explainOperation(served.store, listEpochRewardSummaries, query);
        assert.doesNotMatch(plan!, /Seq Scan on (?!chain_head)/, plan);
        assert.doesNotMatch(plan!, /Bitmap/, plan);
        assert.match(plan!, /Index (Only )?Scan( Backward)? using epoch_reward_summaries_(pkey|by_asset|by_market|by_asset_market) /, plan);
        // The only full sort puts a backward page's fetched rows (limit + 1) into display order
        // (the reverse of fetch order); branches are merged in key order (an incremental sort
        // finishes the order within an epoch).
        for (const m of plan!.matchAll(/(?:^|-> +)Sort \(actual rows=(\d+)[^\n]*\n\s*Sort Key: (.*)/gm)) {
          assert.match(
            m[2]!,
            /^(\w+)\.epoch( DESC)?, \1\.asset_id( DESC)?, \1\.market_id( DESC)?, \1\.reward_type( COLLATE "C")?( DESC)?$/,
            plan,
          );
          assert.ok(Number(m[1]) <= limit + 1, plan);
        }
        assertRowsAggregatedOnce(plan!);
        // No node reads more than limit + 1 rows per branch.
        for (const m of plan!.matchAll(/actual rows=(\d+)/g)) assert.ok(Number(m[1]) <= branches * (limit + 1), `${m[0]} in\n${plan}`);
      });
    }
  });

  describe(`epoch summaries on ${kind}: exact sums above 2^64`, () => {
    const served = useServedStore(kind, { ingest: { stdin: bigAmountEvents() } });
    test('two payouts whose sum exceeds 2^64 sum exactly, also across blocks', async () => {
      const res = await get(`${served.url}${PATH}?pagination.newestFirst=false`);
      assert.equal(res.status, 200);
      const nodes = (res.body as { summaries: Page }).summaries.edges.map((e) => e.node);
      assert.deepEqual(nodes, [
        { epoch: '7', assetId: 'aa', marketId: '', rewardType: 'ACCOUNT_TYPE_GLOBAL_REWARD', amount: String(2n ** 65n) },
        { epoch: '7', assetId: 'bb', marketId: '', rewardType: 'ACCOUNT_TYPE_GLOBAL_REWARD', amount: '1000000000000000000000000000000' },
        { epoch: '7', assetId: 'cc', marketId: '', rewardType: 'ACCOUNT_TYPE_GLOBAL_REWARD', amount: '0' },
      ]);
      assert.match(res.text, /"amount":"36893488147419103232"/);
      const cursor = (res.body as { summaries: Page }).summaries.edges[0]!.cursor;
      assert.equal(
        Buffer.from(cursor, 'base64').toString(),
        '{"epoch_id":7,"asset_id":"aa","market_id":"","reward_type":"ACCOUNT_TYPE_GLOBAL_REWARD","amount":"36893488147419103232"}',
      );
      assert.equal(res.headers.get('x-block-height'), '12');
    });
  });
}
