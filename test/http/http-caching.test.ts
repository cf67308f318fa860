/**
 * HTTP caches in front of the API (src/http/http-caching.ts), through one real `serve --follow`
 * per store, on a chain the test moves one block at a time:
 *
 * - Every answer carries an ETag of its representation and read-model versions, and the
 *   Cache-Control and Vary that let a shared cache keep it; If-None-Match with the current tag
 *   is a 304 that leaves the response cache and the row cache untouched (nothing is read for
 *   it); errors, GraphQL POSTs and GraphQL answers with errors are no-store.
 * - Debian's nginx with the README's proxy_cache configuration in front of it, under Zipf
 *   traffic: every answer through nginx is byte for byte an answer the origin gave (its tag and
 *   its body, keyed by the versions it was given at); one nginx fetched or renewed during the
 *   request is the current one; one from nginx's copy is the current one or the previous step's.
 *   A step ends only once nginx fetched or renewed every URL during it, which it does when its
 *   copy's max-age has passed: so every copy served was given by the origin in the step before or
 *   in this one, never earlier, and each step lasts at least the max-age. The origin sent each URL in full at most once per version of the
 *   read models it reads (from its request log, and in /metrics by status); the rest were 304s
 *   or never reached it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import {
  blockId,
  blockLines,
  epochEvent,
  hex,
  marketData,
  payout,
  refereeJoined,
  refereeJoinedTeam,
  setCreated,
  teamCreated,
  teamsStats,
} from '../helpers/events.js';
import { type NginxProcess, startNginx } from '../helpers/nginx.js';
import { eventually, type ServeProcess, startServe } from '../helpers/serve.js';
import { get, type RawAnswer, rawRequest } from '../helpers/server.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';

const tmp = mkdtempSync(join(tmpdir(), 'epochview-http-caching-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** What every tagged answer says to caches (src/http/http-caching.ts), written out so that a change shows here. */
const CACHE_CONTROL = 'public, max-age=1, stale-while-revalidate=1';

const REFERRER = hex('aa');
const TEAM = hex('7e');
const MEMBER = hex('c1');
const ASSET = hex('a1');

/** The chain before the test moves it: referral sets, a team with statistics in epoch 1, payouts. */
function firstBlocks(): string {
  const sets = Array.from({ length: 14 }, (_, n) => [
    setCreated(blockId(1, n), n % 2 ? REFERRER : hex('bb'), String(1_700_000_000_000_000_000n + BigInt(n))),
    refereeJoined(blockId(1, n), blockId(1, n + 100), '1'),
  ]).flat();
  const blocks = [
    [
      epochEvent('1', 'EPOCH_ACTION_START'),
      teamCreated(TEAM, REFERRER, 'Caches', '1700000000000000000', '1'),
      refereeJoinedTeam(TEAM, MEMBER, '1'),
      ...sets,
      payout('1', ASSET, '100'),
      payout('1', hex('b2'), '7'),
    ],
    [
      teamsStats('1', TEAM, { [REFERRER]: '10', [MEMBER]: '20' }),
      epochEvent('1', 'EPOCH_ACTION_END'),
      epochEvent('2', 'EPOCH_ACTION_START'),
    ],
  ];
  return blocks.map((payloads, i) => `${blockLines(i + 1, payloads).join('\n')}\n`).join('');
}

type Group = 'sets' | 'summaries' | 'stats';

const graphql = (query: string) => `/graphql?query=${encodeURIComponent(query)}`;

/** The URLs asked, by the read models they read. */
const URLS: [Group, string][] = [
  ['sets', '/api/v2/referral-sets'],
  ['summaries', '/api/v2/rewards/epoch/summaries'],
  ['sets', '/api/v2/referral-sets?pagination.first=2'],
  ['stats', `/api/v2/teams/${TEAM}/stats?aggregationEpochs=1`],
  ['sets', graphql('{ referralSets(pagination: {first: 3}) { edges { node { id totalMembers } } } }')],
  ['sets', `/api/v2/referral-sets?referrer=${REFERRER}`],
  ['summaries', graphql('{ epochRewardSummaries { edges { node { epoch assetId amount } } } }')],
  ['summaries', '/api/v2/rewards/epoch/summaries?pagination.last=1'],
];

/** The representations asked: identity, and gzip. */
const ENCODINGS = ['identity', 'gzip'] as const;
type Encoding = (typeof ENCODINGS)[number];
const requestHeaders = (encoding: Encoding): Record<string, string> => (encoding === 'gzip' ? { 'accept-encoding': 'gzip' } : {});

/** A header of a raw answer (undefined when absent). */
function header(answer: RawAnswer, name: string): string | undefined {
  return answer.headers.find(([n]) => n.toLowerCase() === name)?.[1];
}

/** Sum of a counter's samples whose labels hold every `labels` part (and none of those written `!part`). */
function total(metrics: string, name: string, ...labels: string[]): number {
  let sum = 0;
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (labels.every((l) => (l.startsWith('!') ? !line.includes(l.slice(1)) : line.includes(l))))
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** The operations of probes and scrapes (/healthz, /readyz, /metrics), left out of the API's counts. */
const NOT_PROBES = ['!operation="healthz"', '!operation="readyz"', '!operation="metrics"'];

/** A seeded generator (mulberry32): the same traffic on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks of n items by Zipf's law (s = 1.1): the first most often. */
function zipf(n: number, rand: () => number): () => number {
  const weights = Array.from({ length: n }, (_, i) => 1 / (i + 1) ** 1.1);
  const sum = weights.reduce((a, b) => a + b, 0);
  return () => {
    let r = rand() * sum;
    for (const [i, w] of weights.entries()) {
      r -= w;
      if (r < 0) return i;
    }
    return n - 1;
  };
}

for (const kind of STORE_KINDS) {
  describe(`HTTP caches in front of serve --follow, ${kind}`, () => {
    const file = join(tmp, `chain-${kind}.ndjson`);
    let ts: TestStore | undefined;
    let serve: ServeProcess | undefined;
    let nginx: NginxProcess | undefined;
    let height = 2;
    /** Direct requests of the test to the origin (not through nginx) by URL, to tell them from nginx's in its log. */
    const direct = new Map<string, number>();
    const ask = (url: string, headers: Record<string, string> = {}, method = 'GET') => {
      direct.set(url, (direct.get(url) ?? 0) + 1);
      return rawRequest(serve!.url + url, headers, method);
    };
    const metrics = async () => (await rawRequest(`${serve!.url}/metrics`)).body.toString();

    before(async () => {
      writeFileSync(file, firstBlocks());
      ts = await createTestStore(kind);
      // Info: one log line per request, with its URL and status.
      serve = await startServe([...ts.args, '--follow', file, '--log-level', 'info'], { EPOCHVIEW_FOLLOW_POLL_MS: '50' });
      await eventually(
        'the first blocks applied',
        async () => ((await get(`${serve!.url}/readyz`)).body as { blockHeight?: string }).blockHeight === String(height),
      );
    });
    after(async () => {
      await nginx?.stop();
      await serve?.stop();
      await ts?.drop();
    });

    test('answers carry their tag; the current tag is a 304 that reads nothing; what cannot be validated is no-store', async () => {
      const SETS = '/api/v2/referral-sets';
      // Asked until the origin has heard of the head (until then an answer is not tagged).
      let full: RawAnswer | undefined;
      await eventually('a tagged answer', async () => {
        full = await ask(SETS);
        return header(full, 'etag') !== undefined;
      });
      assert.equal(full!.status, 200);
      const tag = header(full!, 'etag')!;
      assert.match(tag, /^"[A-Za-z0-9_-]{43}"$/);
      assert.equal(header(full!, 'cache-control'), CACHE_CONTROL);
      assert.equal(header(full!, 'vary'), 'accept-encoding');
      assert.equal(header(full!, 'x-block-height'), String(height));

      // gzip is another representation, with its own tag; its bytes are the same answer's.
      const gzipped = await ask(SETS, { 'accept-encoding': 'gzip' });
      assert.equal(header(gzipped, 'content-encoding'), 'gzip');
      assert.notEqual(header(gzipped, 'etag'), tag);
      assert.deepEqual(gunzipSync(gzipped.body), full!.body);
      assert.equal(header(gzipped, 'vary'), 'accept-encoding');
      // A small answer is not compressed, but varies by the encoding asked all the same.
      const small = await ask(`${SETS}?pagination.first=1`, { 'accept-encoding': 'gzip' });
      assert.ok(small.body.length < 1024 && header(small, 'content-encoding') === undefined, String(small.body.length));
      assert.equal(header(small, 'vary'), 'accept-encoding');
      assert.equal(header(small, 'cache-control'), CACHE_CONTROL);
      // The same again: the same tag (the tag depends on the representation and versions only).
      assert.equal(header(await ask(SETS), 'etag'), tag);

      // Deflate goes through Fastify's route rather than the fast path (its compression plugin
      // deflates): a representation of its own.
      const deflated = await ask(SETS, { 'accept-encoding': 'deflate' });
      assert.equal(header(deflated, 'content-encoding'), 'deflate');
      const deflateTag = header(deflated, 'etag')!;
      assert.ok(![tag, header(gzipped, 'etag')].includes(deflateTag), deflateTag);
      assert.equal(header(deflated, 'vary'), 'accept-encoding');
      // The current tag, as caches send it: 304, and neither the response cache nor the row cache is
      // asked (on both paths).
      const before = await metrics();
      const conditional = [tag, `W/${tag}`, `"other", ${tag}`];
      for (const inm of conditional) {
        const r = await ask(SETS, { 'if-none-match': inm });
        assert.equal(r.status, 304, inm);
        assert.equal(r.body.length, 0);
        assert.deepEqual(
          r.headers.filter(([n]) => !['Connection', 'Keep-Alive'].includes(n)),
          [
            ['access-control-allow-origin', '*'],
            ['x-block-height', String(height)],
            ['x-block-timestamp', header(full!, 'x-block-timestamp')!],
            ['cache-control', CACHE_CONTROL],
            ['etag', tag],
            ['vary', 'accept-encoding'],
          ],
          inm,
        );
      }
      const viaFastify = await ask(SETS, { 'accept-encoding': 'deflate', 'if-none-match': deflateTag });
      assert.equal(viaFastify.status, 304);
      assert.equal(header(viaFastify, 'content-length'), undefined);
      assert.equal(header(viaFastify, 'etag'), deflateTag);
      // HEAD alike: a 304 says no length (a cache updating its copy's headers from it must not take
      // 0; a 200 says the full answer's, below).
      const head = await ask(SETS, { 'if-none-match': tag }, 'HEAD');
      assert.equal(head.status, 304);
      assert.equal(header(head, 'content-length'), undefined);
      assert.equal(header(head, 'etag'), tag);
      // `*` matches the current answer, whatever its tag (RFC 9110 §13.1.2).
      const any = await ask(SETS, { 'if-none-match': '*' });
      assert.equal(any.status, 304);
      assert.equal(header(any, 'etag'), tag);
      const after = await metrics();
      for (const series of ['epochview_response_cache_requests_total', 'epochview_row_cache_pages_total']) {
        assert.equal(total(after, series), total(before, series), series);
      }
      assert.equal(
        total(after, 'epochview_http_requests_total', 'operation="ListReferralSets"', 'status="304"') -
          total(before, 'epochview_http_requests_total', 'operation="ListReferralSets"', 'status="304"'),
        conditional.length + 3,
      );
      assert.equal(header(await ask(SETS, {}, 'HEAD'), 'content-length'), String(full!.body.length));
      // A precondition applies only when the answer would be a 2xx (RFC 9110 §13.2.1): the current
      // tag sent with a request that is an error (the query string, a parameter, a path's) gets the error.
      for (const url of [`${SETS}?pagination.first=abc`, `${SETS}?%zz`, `${SETS}?referee=zz`, `${SETS}?pagination.first=0`]) {
        for (const inm of [tag, '*']) {
          const r = await ask(url, { 'if-none-match': inm });
          assert.equal(r.status, 400, `${url} ${inm}`);
          assert.equal(header(r, 'etag'), undefined, url);
        }
      }
      const HISTORY = '/api/v2/teams/referees/history/';
      const historyTag = header(await ask(`${HISTORY}${MEMBER}`), 'etag')!;
      assert.equal((await ask(`${HISTORY}${MEMBER}`, { 'if-none-match': historyTag })).status, 304);
      assert.equal((await ask(`${HISTORY}zz`, { 'if-none-match': historyTag })).status, 400);
      // A URL this process has not answered yet: answered first, then the 304 when the tag is its own.
      const unseen = await ask(`${SETS}?pagination.first=3`, { 'if-none-match': tag });
      assert.equal(unseen.status, 304);
      assert.equal(header(unseen, 'etag'), tag);

      // Another representation's tag, or an old one, is no match: the full answer.
      const other = await ask(SETS, { 'if-none-match': header(gzipped, 'etag')! });
      assert.equal(other.status, 200);
      assert.deepEqual(other.body, full!.body);

      // GraphQL GETs of our fields alike; POSTs and answers with errors are no-store.
      const query = '{ referralSets(pagination: {first: 2}) { edges { node { id } } } }';
      const ours = await ask(graphql(query));
      assert.equal(ours.status, 200);
      assert.equal(header(ours, 'cache-control'), CACHE_CONTROL);
      assert.equal((await ask(graphql(query), { 'if-none-match': header(ours, 'etag')! })).status, 304);
      const failing = graphql('{ referralSets(pagination: {first: 2, after: "nope"}) { edges { node { id } } } }');
      // The tag of another document reading the same models: the answer, its errors and all (never a 304).
      const notValidated = await ask(failing, { 'if-none-match': header(ours, 'etag')! });
      assert.equal(notValidated.status, 200);
      assert.match(notValidated.body.toString(), /"errors"/);
      const failed = await ask(failing);
      assert.match(failed.body.toString(), /"errors"/);
      assert.equal(header(failed, 'cache-control'), 'no-store');
      assert.equal(header(failed, 'etag'), undefined);
      const post = await new Promise<RawAnswer>((resolve, reject) => {
        fetch(`${serve!.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) })
          .then(async (r) => resolve({ status: r.status, headers: [...r.headers.entries()], body: Buffer.from(await r.arrayBuffer()) }))
          .catch(reject);
      });
      assert.equal(post.status, 200);
      assert.equal(header(post, 'cache-control'), 'no-store');
      assert.equal(header(post, 'etag'), undefined);

      // Errors: no-store, no tag.
      for (const url of [`${SETS}?pagination.first=x`, '/api/v2/nothing-here', graphql('{ nothing }')]) {
        const r = await ask(url);
        assert.ok(r.status >= 400, `${url}: ${r.status}`);
        assert.equal(header(r, 'cache-control'), 'no-store', url);
        assert.equal(header(r, 'etag'), undefined, url);
      }
    });

    test('through nginx on a moving chain: only answers the origin gave, none older than a step, one full answer per URL per change', {
      timeout: 240_000,
    }, async () => {
      nginx = await startNginx(join(tmp, `nginx-${kind}`), serve!.url);
      const pairs = URLS.flatMap(([group, url]) => ENCODINGS.map((encoding) => ({ group, url, encoding })));
      const key = (p: { url: string; encoding: Encoding }) => `${p.encoding} ${p.url}`;
      /** The origin's answer of each pair at each step: its tag and bytes. */
      const answers: Map<string, { tag: string; body: Buffer }>[] = [];
      /** The tags each pair was given through nginx at the steps it was asked, to bound the origin's full answers. */
      const tagsAsked = new Map<string, Set<string>>();
      // The log is written after the answer: wait for the earlier tests' requests in it, so
      // that the lines from logStart on are this test's own.
      const metricsBefore = await metrics();
      await eventually('the earlier requests logged', () => {
        const probes = ['healthz', 'readyz', 'metrics'];
        const logged = serve!.logs().filter((l) => l.msg === 'request' && !probes.includes(String(l.operation)));
        return logged.length >= total(metricsBefore, 'epochview_http_requests_total', ...NOT_PROBES);
      });
      const logStart = serve!.logs().length;
      const directBefore = new Map(direct);
      let throughNginx = 0;

      /** The origin's answers at the current step, asked until it has heard of the head (its answers tagged at it). */
      const reference = async () => {
        const step = new Map<string, { tag: string; body: Buffer }>();
        for (const p of pairs) {
          let r: RawAnswer | undefined;
          await eventually(`${p.url} at ${height}`, async () => {
            r = await ask(p.url, requestHeaders(p.encoding));
            return header(r, 'x-block-height') === String(height) && header(r, 'etag') !== undefined;
          });
          assert.equal(r!.status, 200, `${p.url}: ${r!.body}`);
          step.set(key(p), { tag: header(r!, 'etag')!, body: r!.body });
        }
        answers.push(step);
      };

      /** Statuses of an answer nginx fetched, or renewed, from the origin for the request (the others are its copy's). */
      const FETCHED = ['MISS', 'EXPIRED', 'REVALIDATED'];
      /** One request through nginx, checked against the origin's answers; returns whether nginx fetched or renewed it. */
      const viaNginx = async (p: (typeof pairs)[number]): Promise<boolean> => {
        throughNginx++;
        const r = await rawRequest(nginx!.url + p.url, requestHeaders(p.encoding));
        const k = answers.length - 1;
        const what = `${p.encoding} ${p.url} at step ${k}`;
        assert.equal(r.status, 200, what);
        const tag = header(r, 'etag');
        const status = header(r, 'x-cache-status');
        const current = answers[k]!.get(key(p))!;
        const previous = answers[k - 1]?.get(key(p));
        const tags = tagsAsked.get(key(p)) ?? new Set<string>();
        tagsAsked.set(key(p), tags.add(current.tag));
        assert.equal(header(r, 'cache-control'), CACHE_CONTROL, what);
        assert.ok(FETCHED.includes(status!) || ['HIT', 'UPDATING'].includes(status!), `${what}: ${status}`);
        if (tag === current.tag) assert.deepEqual(r.body, current.body, `${what}: not the origin's bytes for its tag`);
        else {
          // From nginx's copy only, and that copy from the step before.
          assert.ok(!FETCHED.includes(status!), `${what}: ${status} but not the current answer`);
          assert.equal(tag, previous?.tag, `${what}: neither the current answer nor the previous step's`);
          assert.deepEqual(r.body, previous!.body, `${what}: not the origin's bytes for its tag`);
        }
        return FETCHED.includes(status!);
      };

      const rand = random(30);
      const pick = zipf(pairs.length, rand);
      /** Zipf traffic: `n` requests, 8 at a time. */
      const traffic = async (n: number) => {
        let left = n;
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            while (left-- > 0) await viaNginx(pairs[pick()]!);
          }),
        );
      };
      /**
       * Until nginx fetched or renewed every pair asked so far during this step (it does so once
       * its copy expired): each step then lasts at least the max-age, and the next one starts
       * with copies of this one's answers only.
       */
      const settle = async () => {
        let behind = pairs.filter((p) => tagsAsked.has(key(p)));
        await eventually(
          `nginx's copies renewed at ${height}`,
          async () => {
            const results = await Promise.all(behind.map(viaNginx));
            behind = behind.filter((_, i) => !results[i]);
            return behind.length === 0;
          },
          30_000,
        );
      };

      // Each step: a block, and the groups whose read models it changes.
      const t = () => String(1_800_000_000_000_000_000n + BigInt(height));
      const steps: { what: string; payloads: Record<string, unknown>[]; changes: Group[] }[] = [
        { what: 'no event of ours', payloads: [marketData()], changes: [] },
        { what: 'a referral set', payloads: [setCreated(blockId(900, height), REFERRER, t())], changes: ['sets'] },
        { what: 'a payout (team statistics fold them too)', payloads: [payout('2', ASSET, '5')], changes: ['summaries', 'stats'] },
        { what: 'no event of ours', payloads: [marketData()], changes: [] },
        {
          what: 'the end of epoch 2, with team statistics',
          payloads: [teamsStats('2', TEAM, { [MEMBER]: '30' }), epochEvent('2', 'EPOCH_ACTION_END'), epochEvent('3', 'EPOCH_ACTION_START')],
          changes: ['stats'],
        },
      ];

      await reference();
      await traffic(60);
      await settle();
      for (const step of steps) {
        appendFileSync(file, `${blockLines(++height, step.payloads).join('\n')}\n`);
        await reference();
        // The tags follow the read models: those of the groups the block changed are new, the others the same.
        const [was, now] = [answers[answers.length - 2]!, answers[answers.length - 1]!];
        for (const p of pairs) {
          const changed = was.get(key(p))!.tag !== now.get(key(p))!.tag;
          assert.equal(changed, step.changes.includes(p.group), `${step.what}: ${p.encoding} ${p.url}`);
        }
        await traffic(60);
        await settle();
      }

      // The origin's side, from its request log: what came from nginx (all but the test's own
      // requests). /metrics counts them alike, by status (the log is read once it holds them all).
      const metricsAfter = await metrics();
      const counted = (status: string) =>
        total(metricsAfter, 'epochview_http_requests_total', `status="${status}"`, ...NOT_PROBES) -
        total(metricsBefore, 'epochview_http_requests_total', `status="${status}"`, ...NOT_PROBES);
      let lines: Record<string, unknown>[] = [];
      await eventually('the request log written', () => {
        lines = serve!
          .logs()
          .slice(logStart)
          .filter((l) => l.msg === 'request');
        return lines.length >= counted('200') + counted('304');
      });
      const full = new Map<string, number>();
      let notModified = 0;
      for (const l of lines) {
        if (l.status === 304) notModified++;
        else if (l.status === 200) full.set(l.url as string, (full.get(l.url as string) ?? 0) + 1);
        else assert.fail(`the origin answered ${l.status} to ${l.url}`);
      }
      let fullFromNginx = 0;
      for (const [, url] of URLS) {
        const own = (direct.get(url) ?? 0) - (directBefore.get(url) ?? 0);
        const fromNginx = (full.get(url) ?? 0) - own;
        // At most one full answer per representation per version of what it reads.
        const bound = ENCODINGS.reduce((n, encoding) => n + (tagsAsked.get(key({ url, encoding }))?.size ?? 0), 0);
        assert.ok(
          fromNginx >= Math.min(bound, 1) && fromNginx <= bound,
          `${url}: ${fromNginx} full answers to nginx for ${bound} versions`,
        );
        fullFromNginx += fromNginx;
      }
      const own = [...direct].reduce((n, [url, count]) => n + count - (directBefore.get(url) ?? 0), 0);
      assert.equal(counted('304'), notModified);
      assert.equal(counted('200'), fullFromNginx + own);
      // Of the requests that reached the origin, most were 304s: every step renews every URL, and
      // most steps change few of them (at least 62 renewals of unchanged answers, at most 34
      // versions). How many never reached it depends on the request rate against the max-age.
      assert.ok(notModified + fullFromNginx < throughNginx, `${notModified} + ${fullFromNginx} of ${throughNginx}`);
      assert.ok(notModified > fullFromNginx, `${notModified} 304s, ${fullFromNginx} full answers`);
    });
  });
}
