/**
 * The row cache (rendered rows kept by version) on a moving chain, through real `serve --follow`
 * processes on both stores, the response cache off in both: one keeps rows, one does not (the
 * truth). Every page of referral sets, reward summaries and a team's statistics (two windows),
 * walked in both directions and both orders, is the same on both after each block, including
 * blocks that change rows already kept (a referee joining a set moves its totalMembers, a payout
 * adds to a summary, team statistics replace a member's volume in the window) and insert rows
 * between kept ones, and an epoch's end that moves the window. The counters say that pages were
 * answered from kept rows, and that changed rows were asked of the store.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseVersions, RowCache } from '../../src/pagination/row-cache.js';
import { runCli } from '../helpers/cli.js';
import { epochEvent, hex, payout, refereeJoined, setCreated, teamsStats } from '../helpers/events.js';
import { followTwice, type Followers } from '../helpers/followers.js';
import { sample } from '../helpers/serve.js';
import { get, type HttpResult } from '../helpers/server.js';
import { STORE_KINDS } from '../helpers/stores.js';

const tmp = mkdtempSync(join(tmpdir(), 'epochview-row-cache-'));
const demo = join(tmp, 'demo.ndjson');
after(() => rmSync(tmp, { recursive: true, force: true }));
before(async () => {
  const res = await runCli(['demo', '--scale', 'small', '--out', demo]);
  assert.equal(res.code, 0, res.stderr);
});

test('the row cache keeps the new rows of a fetched page together, joins adjacent rows in runs, and counts their bytes while one is kept', () => {
  const edge = (n: number) => `{"node":{"n":${n}},"cursor":"c${n}"}`;
  const edges = (...ns: number[]) => ns.map(edge).join(',');
  const got = (cache: RowCache, keys: number[]) => {
    const kept = cache.get(keys);
    return kept && { each: kept.each.map(String), runs: kept.runs.map(String) };
  };
  // An entry costs an overhead of 120 bytes, and the rows kept together their texts' bytes.
  const cache = new RowCache(900);
  cache.keepPage([1, 2, 3], edges(1, 2, 3));
  assert.equal(cache.bytes, 92 + 3 * 120);
  assert.deepEqual(got(cache, [1, 2, 3]), { each: [edge(1), edge(2), edge(3)], runs: [edges(1, 2, 3)] });
  assert.deepEqual(got(cache, [2, 3]), { each: [edge(2), edge(3)], runs: [edges(2, 3)] });
  assert.deepEqual(got(cache, [3, 1]), { each: [edge(3), edge(1)], runs: [edge(3), edge(1)] });
  assert.deepEqual(got(cache, [1, 3]), { each: [edge(1), edge(3)], runs: [edge(1), edge(3)] });
  // A row kept before stays where it is; the new ones are kept together.
  cache.keepPage([3, 4, 5], edges(3, 4, 5));
  assert.equal(cache.bytes, 92 + 61 + 5 * 120);
  assert.deepEqual(got(cache, [1, 2, 3, 4, 5]), {
    each: [edge(1), edge(2), edge(3), edge(4), edge(5)],
    runs: [edges(1, 2, 3), edges(4, 5)],
  });
  // Edges that are not one per key: nothing kept.
  cache.keepPage([6, 7], edges(6));
  cache.keepPage([6], edges(6, 7));
  assert.equal(got(cache, [6]), null);
  assert.equal(cache.bytes, 92 + 61 + 5 * 120);
  // Past the bound the oldest rows go, and the bytes of rows kept together with the last of them.
  cache.keepPage([8], edges(8));
  assert.equal(got(cache, [1]), null);
  assert.equal(cache.bytes, 92 + 61 + 30 + 5 * 120);
  assert.deepEqual(got(cache, [2, 3, 4]), { each: [edge(2), edge(3), edge(4)], runs: [edges(2, 3), edge(4)] });
  cache.keepPage([9, 10], edges(9, 10));
  assert.equal(got(cache, [2]), null);
  assert.equal(got(cache, [3]), null);
  assert.equal(cache.bytes, 61 + 30 + 63 + 5 * 120);
  assert.deepEqual(got(cache, [4, 5, 8, 9, 10]), {
    each: [edge(4), edge(5), edge(8), edge(9), edge(10)],
    runs: [edges(4, 5), edge(8), edges(9, 10)],
  });
  assert.deepEqual({ hits: cache.hits, misses: cache.misses }, { hits: 7, misses: 4 });
  // The chain went back: nothing kept is the answer of those versions any more.
  cache.clear();
  assert.equal(got(cache, [10]), null);
  assert.equal(cache.bytes, 0);
  assert.deepEqual(parseVersions('7,1234567890123,0'), [7, 1234567890123, 0]);
  assert.deepEqual(parseVersions(null), []);
});

/**
 * The bodies of GETs of `paths` sent on one connection without waiting for the answers (HTTP/1.1
 * pipelining), none read until `meanwhile` has run; in order, each checked to be a 200.
 */
async function pipelined(base: string, paths: string[], meanwhile: () => Promise<void>): Promise<string[]> {
  const { hostname, port } = new URL(base);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  socket.pause();
  socket.write(paths.map((p) => `GET ${p} HTTP/1.1\r\nHost: ${hostname}\r\nAccept-Encoding: identity\r\n\r\n`).join(''));
  await meanwhile();
  const bodies: string[] = [];
  let pending = Buffer.alloc(0);
  for await (const chunk of socket) {
    pending = Buffer.concat([pending, chunk as Buffer]);
    for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
      const head = pending.toString('latin1', 0, end);
      assert.match(head, /^HTTP\/1\.1 200 /);
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)![1]);
      if (pending.length < end + 4 + length) break;
      bodies.push(pending.toString('utf8', end + 4, end + 4 + length));
      pending = pending.subarray(end + 4 + length);
    }
    if (bodies.length === paths.length) break;
  }
  socket.destroy();
  return bodies;
}

async function rowCachePages(url: string): Promise<{ hit: number; miss: number }> {
  const text = (await get(`${url}/metrics`)).text;
  const n = (o: string) => sample(text, `epochview_row_cache_pages_total{outcome="${o}"}`) ?? 0;
  return { hit: n('hit'), miss: n('miss') };
}

type Page = {
  edges: { node: Record<string, string>; cursor: string }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string; endCursor: string };
};

/** An answer of the server without kept rows (the truth), by its URL. */
type Truth = [url: string, answer: HttpResult];

/** Every page of a walk of `base` with `size` rows a page, forward and backward, in both orders, as `server` answers them. */
async function walk(server: string, base: string, key: string, size: number): Promise<Truth[]> {
  const pages: Truth[] = [];
  const sep = base.includes('?') ? '&' : '?';
  for (const newestFirst of [true, false]) {
    for (const [limit, cursor, more, next] of [
      ['first', 'after', 'hasNextPage', 'endCursor'],
      ['last', 'before', 'hasPreviousPage', 'startCursor'],
    ] as const) {
      let at: string | null = null;
      for (;;) {
        const url: string = `${base}${sep}pagination.${limit}=${size}&pagination.newestFirst=${newestFirst}${at ? `&pagination.${cursor}=${encodeURIComponent(at)}` : ''}`;
        const answer = await get(server + url);
        pages.push([url, answer]);
        const page = (answer.body as Record<string, Page>)[key]!;
        if (!page.pageInfo[more]) break;
        at = page.pageInfo[next];
      }
    }
  }
  return pages;
}

for (const kind of STORE_KINDS) {
  describe(`row cache on a moving chain, ${kind}`, () => {
    let followers: Followers | undefined;
    after(() => followers?.close());

    test("after each block every page of kept rows is the store's, changed rows included", { timeout: 300_000 }, async () => {
      // a keeps rows, b does not (the truth); neither keeps answers.
      // b also counts requests against a rate limit never reached: its answers go through
      // Fastify, a's through the fast path (both give bodies back to the pool, see the next test).
      // No request timeout: the next test asks hundreds of 1,000-row pages at once, which on a
      // loaded machine queue past the default 10 s on PGlite, and what it checks is the bodies.
      const off = ['--response-cache-mb', '0', '--request-timeout-ms', '0'];
      followers = await followTwice(kind, demo, tmp, [
        [...off, '--rate-limit-max', '0'],
        [...off, '--rate-limit-max', '1000000', '--row-cache-mb', '0'],
      ]);
      const { a: rows, b: plain } = followers;

      const SETS = '/api/v2/referral-sets';
      const SUMMARIES = '/api/v2/rewards/epoch/summaries';
      const sets = ((await get(`${plain.url}${SETS}`)).body as { referralSets: Page }).referralSets.edges.map((e) => e.node);
      const allSummaries = async () =>
        ((await get(`${plain.url}${SUMMARIES}?pagination.first=5000`)).body as { summaries: Page }).summaries.edges.map((e) => e.node);
      const summaries = await allSummaries();
      assert.ok(sets.length >= 6 && summaries.length >= 6, `${sets.length} sets, ${summaries.length} summaries`);
      const overview = (await get(`${plain.url}/explorer/api/overview`)).body as {
        lastEndedEpoch: string;
        examples: { teamId: string; teamEpochs: number };
      };
      const { teamId: team, teamEpochs } = overview.examples;
      const ended = Number(overview.lastEndedEpoch);
      const STATS = `/api/v2/teams/${team}/stats`;
      const members = ((await get(`${plain.url}${STATS}?aggregationEpochs=1`)).body as { statistics: Page }).statistics.edges.map(
        (e) => e.node.partyId!,
      );
      assert.ok(team && teamEpochs > 1 && members.length >= 4, JSON.stringify({ overview, members: members.length }));
      const middleSet = sets[Math.floor(sets.length / 2)]!;
      const middleSummary = summaries[Math.floor(summaries.length / 2)]!;

      const truth = async (url: string): Promise<Truth> => [url, await get(plain.url + url)];
      /**
       * Every page of both operations, as the truth walks them now: the same body and head on both
       * servers (the chain moves only between calls, so the walk's answers are the truth's).
       */
      const compareAll = async (): Promise<string[]> => {
        const pages = [
          await truth(SETS),
          ...(await walk(plain.url, SETS, 'referralSets', 7)),
          await truth(SUMMARIES),
          ...(await walk(plain.url, SUMMARIES, 'summaries', 97)),
          await truth(`${SUMMARIES}?filter.assetIds=${middleSummary.assetId}&pagination.first=3`),
          ...(await walk(plain.url, `${STATS}?aggregationEpochs=1`, 'statistics', 5)),
          ...(await walk(plain.url, `${STATS}?aggregationEpochs=${teamEpochs}`, 'statistics', 5)),
          await truth(`${STATS}?aggregationEpochs=${teamEpochs}&partyId=${members[1]}`),
        ];
        const bodies: string[] = [];
        for (const [u, p] of pages) {
          const r = await get(rows.url + u);
          assert.equal(p.status, 200, `${u}: ${p.text}`);
          assert.equal(r.text, p.text, `${u} at ${followers!.height}`);
          assert.equal(r.headers.get('x-block-height'), p.headers.get('x-block-height'), u);
          bodies.push(p.text);
        }
        return bodies;
      };

      await compareAll();
      const first = await rowCachePages(rows.url);
      // Each page asked first needed text from the store; the walks share rows, so others did not.
      assert.ok(first.miss > 0 && first.hit > 0, JSON.stringify(first));
      await compareAll();
      const second = await rowCachePages(rows.url);
      assert.equal(second.miss, first.miss, 'nothing changed, every row is kept');
      assert.ok(second.hit > first.hit);

      const t = String(1_900_000_000_000_000_000n);
      const blocks: { what: string; payloads: Record<string, unknown>[] }[] = [
        { what: 'a referee joining a set in the middle', payloads: [refereeJoined(middleSet.id!, hex('b1'), '1')] },
        {
          what: 'a payout adding to a summary in the middle',
          payloads: [payout(middleSummary.epoch!, middleSummary.assetId!, '5', middleSummary.rewardType)],
        },
        { what: 'a new set, last', payloads: [setCreated(hex('b2'), hex('b3'), t)] },
        {
          what: 'a new reward type in an old epoch: a summary between kept ones',
          payloads: [payout(middleSummary.epoch!, middleSummary.assetId!, '9', 'ACCOUNT_TYPE_REWARD_REALISED_RETURN')],
        },
        {
          what: "team statistics replacing a member's volume in the window",
          payloads: [teamsStats(String(ended), team, { [members[1]!]: '4242' })],
        },
        {
          what: 'team statistics of the next epoch, and its end: the window moves',
          payloads: [
            teamsStats(String(ended + 1), team, { [members[2]!]: '77' }),
            epochEvent(String(ended + 1), 'EPOCH_ACTION_END'),
            epochEvent(String(ended + 2), 'EPOCH_ACTION_START'),
          ],
        },
      ];
      let bodies = await compareAll();
      for (const block of blocks) {
        const before = await rowCachePages(rows.url);
        await followers.append(block.payloads);
        const now = await compareAll();
        assert.notDeepEqual(now, bodies, `${block.what}: no page changed`);
        const counted = await rowCachePages(rows.url);
        assert.ok(counted.miss > before.miss, `${block.what}: the changed rows were asked of the store`);
        bodies = now;
      }
      assert.equal(
        (await allSummaries()).length,
        summaries.length + 1,
        'the last payout made a summary (the demo pays no realised return)',
      );
      assert.deepEqual(await rowCachePages(plain.url), { hit: 0, miss: 0 }, 'no rows kept with --row-cache-mb 0');
    });

    test('pages asked all at once, their bodies reused from one answer to the next (BodyPool), are each their own', {
      timeout: 120_000,
    }, async () => {
      assert.ok(followers, 'the followers of the test before');
      const { a: rows, b: plain } = followers;
      // Pages of up to 1,000 summaries after and before every 97th one: bodies of 0.03 to 0.46 MB.
      const SUMMARIES = '/api/v2/rewards/epoch/summaries';
      const urls = [SUMMARIES];
      for (const [, answer] of await walk(plain.url, SUMMARIES, 'summaries', 97)) {
        const { startCursor, endCursor } = (answer.body as { summaries: Page }).summaries.pageInfo;
        urls.push(`${SUMMARIES}?pagination.after=${encodeURIComponent(endCursor)}`);
        urls.push(`${SUMMARIES}?pagination.last=1000&pagination.before=${encodeURIComponent(startCursor)}`);
      }
      const truth = new Map<string, string>();
      for (const url of urls) truth.set(url, (await get(plain.url + url)).text);
      const pooled = [...truth.values()].filter((body) => Buffer.byteLength(body) >= 64 * 1024).length;
      assert.ok(pooled >= 10, `${pooled} of ${urls.length} bodies large enough to be pooled`);
      const atOnce = async (server: string) => {
        for (let round = 0; round < 3; round++) {
          const answers = await Promise.all(urls.map((url) => get(server + url)));
          for (const [i, answer] of answers.entries()) assert.equal(answer.text, truth.get(urls[i]!), urls[i]);
        }
      };
      for (const server of [rows, plain]) {
        // A client that reads nothing for a while: the bodies the server could not write yet wait
        // in it, while the other answers reuse every body that came back.
        const slow = [...urls, ...urls, ...urls];
        const bodies = await pipelined(server.url, slow, () => atOnce(server.url));
        for (const [i, body] of bodies.entries()) assert.equal(body, truth.get(slow[i]!), `${slow[i]}, read late`);
      }
    });
  });
}
