/** ListReferralSets beyond the fixtures: paging walks, ties, filters with cursors, plans. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { listReferralSets } from '../../src/operations/referral-sets/index.js';
import { blockLines, hex, refereeJoined, setCreated } from '../helpers/events.js';
import { assertRowsAggregatedOnce, explainOperation } from '../helpers/explain.js';
import { assertPagingConsistent } from '../helpers/paging.js';
import { useServedStore } from '../helpers/served-store.js';
import type { ErrorBody, ReferralSetsBody } from '../helpers/bodies.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS } from '../helpers/stores.js';

for (const kind of STORE_KINDS) {
  describe(`referral sets on ${kind}`, () => {
    const server = useServedStore(kind, { dataset: 'referral-sets' });

    test('every page size walks all 13 sets in both directions and orders, ties included', async () => {
      for (const size of [1, 2, 3, 5, 13, 14]) {
        assert.equal(await assertPagingConsistent(`${server.url}/api/v2/referral-sets`, 'referralSets', size), 13);
      }
    });

    test('filters combined with cursors', async () => {
      const all = (await get(`${server.url}/api/v2/referral-sets`)).body as ReferralSetsBody;
      const set = all.referralSets.edges[3]!.node;
      // The referrer filter pages over that referrer's sets only.
      const byReferrer = `${server.url}/api/v2/referral-sets?referrer=${set.referrer}`;
      assert.equal(await assertPagingConsistent(byReferrer, 'referralSets', 1), 1);
      const bySet = `${server.url}/api/v2/referral-sets?referralSetId=${set.id.toUpperCase()}`;
      const one = (await get(bySet)).body as ReferralSetsBody;
      assert.deepEqual(
        one.referralSets.edges.map((e) => e.node),
        [set],
      );
      // After the only row: empty page whose previous page exists.
      const afterIt = (await get(`${bySet}&pagination.after=${encodeURIComponent(one.referralSets.pageInfo.endCursor)}`))
        .body as ReferralSetsBody;
      assert.deepEqual(afterIt.referralSets, {
        edges: [],
        pageInfo: { hasNextPage: false, hasPreviousPage: true, startCursor: '', endCursor: '' },
      });
    });

    test('a pagination field that precedence ignores is not validated (contract §7)', async () => {
      const base = `${server.url}/api/v2/referral-sets`;
      const page = async (query: string) => {
        const res = await get(`${base}?${query}`);
        assert.equal(res.status, 200, `${query}: ${res.text}`);
        return res.body as ReferralSetsBody;
      };
      // first wins: last (even 0, or out of range) and before are ignored.
      assert.deepEqual(await page('pagination.first=2&pagination.last=0'), await page('pagination.first=2'));
      assert.deepEqual(await page('pagination.first=2&pagination.last=99999'), await page('pagination.first=2'));
      assert.equal((await page('pagination.first=2&pagination.last=0')).referralSets.edges.length, 2);
      // last without first: a backward page; after is ignored and not decoded.
      const backward = await page('pagination.last=5&pagination.after=!!');
      assert.deepEqual(backward, await page('pagination.last=5'));
      assert.equal(backward.referralSets.edges.length, 5);
      assert.deepEqual(backward.referralSets.pageInfo.hasPreviousPage, true);
      // The field in use is still validated.
      const bad = await get(`${base}?pagination.last=0&pagination.first=0`);
      assert.equal(bad.status, 400);
      assert.equal((bad.body as ErrorBody).details[0]!.inner, 'pagination limit must be in range 0-5000');
    });

    test('headers: block height and time, CORS, gzip, HEAD, OPTIONS, pretty', async () => {
      const res = await fetch(`${server.url}/api/v2/referral-sets?pagination.first=1`, {
        headers: { origin: 'https://wallet.example', 'accept-encoding': 'gzip' },
      });
      assert.equal(res.headers.get('x-block-height'), '5121');
      assert.equal(res.headers.get('x-block-timestamp'), '1709252110000000000');
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      const big = await fetch(`${server.url}/api/v2/referral-sets`, { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(big.headers.get('content-encoding'), 'gzip');
      assert.equal(((await big.json()) as ReferralSetsBody).referralSets.edges.length, 13);
      const head = await fetch(`${server.url}/api/v2/referral-sets`, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(await head.text(), '');
      const pre = await fetch(`${server.url}/api/v2/referral-sets`, {
        method: 'OPTIONS',
        headers: { origin: 'https://x.example', 'access-control-request-method': 'GET' },
      });
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get('access-control-allow-origin'), '*');
      assert.match(pre.headers.get('access-control-allow-methods') ?? '', /GET/);
      const pretty = await get(`${server.url}/api/v2/referral-sets?pagination.first=1&pretty`);
      assert.match(pretty.text, /^\{\n {2}"referralSets": \{\n {4}"edges": \[/);
    });
  });

  describe(`referral sets at scale on ${kind}`, () => {
    const SETS = 20_000;
    /** 20,000 sets over 200 blocks, every tenth with a referee. */
    function chain(): string {
      const lines: string[] = [];
      for (let b = 0; b < 200; b++) {
        const events = [];
        for (let i = 0; i < SETS / 200; i++) {
          const n = b * (SETS / 200) + i;
          const id = n.toString(16).padStart(64, '0');
          events.push(
            setCreated(
              id,
              hex('aa').slice(0, 60) + (n % 500).toString(16).padStart(4, '0'),
              String(1700000000000000000n + BigInt(Math.floor(n / 3)) * 1000n),
            ),
          );
          if (n % 10 === 0) events.push(refereeJoined(id, n.toString(16).padStart(64, 'e'), '1'));
        }
        lines.push(...blockLines(b + 1, events));
      }
      return lines.join('\n');
    }
    const served = useServedStore(kind, {
      ingest: { stdin: chain() },
      server: false,
      fill: (store) => store.query('ANALYZE').then(() => {}),
    });

    // A page reads at most limit + 1 index entries, plus one for the boundary flag.
    const cases: [string, string][] = [
      ['first page', 'pagination.first=50'],
      [
        'deep page via after',
        `pagination.first=50&pagination.after=${Buffer.from(`{"CreatedAt":"2023-11-14T22:13:20.000003Z","ID":"${'0'.repeat(60)}2710"}`).toString('base64')}`,
      ],
      ['last page', 'pagination.last=50&pagination.newestFirst=false'],
      ['referrer filter', `referrer=${hex('aa').slice(0, 60)}0007&pagination.first=10`],
      ['referee filter', `referee=${(10).toString(16).padStart(64, 'e')}`],
    ];
    for (const [name, query] of cases) {
      test(`plan is an index range scan: ${name}`, async () => {
        const [plan] = await explainOperation(served.store, listReferralSets, query);
        // The only sort is of a backward page's rows into display order (the reverse of fetch
        // order); the one-row chain head table is the only table read sequentially.
        assert.doesNotMatch(plan!, /Seq Scan on (?!chain_head)/, plan);
        // (A lookup by id may sort its single row.)
        for (const m of plan!.matchAll(/Sort \(actual rows=(\d+)[^\n]*\n\s*Sort Key: (.*)/g)) {
          assert.ok(/^\w+\.created_at( DESC)?, \w+\.id( DESC)?$/.test(m[2]!) || Number(m[1]) <= 1, plan);
        }
        assert.match(plan!, /Index (Only )?Scan( Backward)? using referral_sets_(by_created|by_referrer|pkey)/, plan);
        // No node reads more than a page (limit + 1).
        for (const m of plan!.matchAll(/actual rows=(\d+)/g)) assert.ok(Number(m[1]) <= 51, `${m[0]} in\n${plan}`);
        assertRowsAggregatedOnce(plan!);
      });
    }
  });
}
