/**
 * The response cache on a moving chain, through real `serve --follow` processes on both stores:
 * a block drops only the cached answers of the read models it changed, and no answer is ever
 * stale. One server caches, one does not (the truth); both follow their own copy of the same
 * growing file. After each block, every URL of every operation is asked of both: bodies and
 * X-Block-* headers are the same, and the cache's counters say which answers were kept.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import {
  asset,
  epochEvent,
  gameTransfer,
  hex,
  marketData,
  payout,
  refereeJoined,
  refereeJoinedTeam,
  setCreated,
  teamCreated,
  teamsStats,
} from '../helpers/events.js';
import { followTwice, type Followers } from '../helpers/followers.js';
import { eventually, sample } from '../helpers/serve.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS } from '../helpers/stores.js';

const tmp = mkdtempSync(join(tmpdir(), 'epochview-cache-live-'));
const demo = join(tmp, 'demo.ndjson');
after(() => rmSync(tmp, { recursive: true, force: true }));
before(async () => {
  const res = await runCli(['demo', '--scale', 'small', '--out', demo]);
  assert.equal(res.code, 0, res.stderr);
});

/** The URLs asked, by what they show. */
type Group = 'referral sets' | 'team stats' | 'summaries' | 'overview' | 'assets' | 'teams';

async function outcomes(url: string): Promise<{ hit: number; miss: number; notAdmitted: number }> {
  const text = (await get(`${url}/metrics`)).text;
  const n = (o: string) => sample(text, `epochview_response_cache_requests_total{outcome="${o}"}`) ?? 0;
  return { hit: n('hit'), miss: n('miss'), notAdmitted: sample(text, 'epochview_response_cache_not_admitted_total{reason="new"}') ?? 0 };
}

for (const kind of STORE_KINDS) {
  describe(`response cache on a moving chain, ${kind}`, () => {
    let followers: Followers | undefined;
    after(() => followers?.close());

    test('after each block every URL answers what the store answers; a block keeps the answers of the models it left', {
      timeout: 300_000,
    }, async () => {
      // a caches, b does not (the truth).
      followers = await followTwice(kind, demo, tmp, [[], ['--response-cache-mb', '0', '--row-cache-mb', '0']]);
      const { a: cached, b: plain } = followers;
      let height = followers.height;

      const overview = (await get(`${plain.url}/explorer/api/overview`)).body as {
        lastEndedEpoch: string;
        examples: { referee: string; teamId: string; teamEpochs: number; assetId: string };
      };
      const { referee, teamId: team, teamEpochs, assetId } = overview.examples;
      const ended = Number(overview.lastEndedEpoch);
      assert.ok(referee && team && teamEpochs > 0 && assetId && ended > 0, JSON.stringify(overview));
      const SETS = '/api/v2/referral-sets';
      const STATS = `/api/v2/teams/${team}/stats`;
      const SUMMARIES = '/api/v2/rewards/epoch/summaries';
      const urls: Record<Group, string[]> = {
        'referral sets': [SETS, `${SETS}?pagination.first=3`, `${SETS}?pagination.last=2`, `${SETS}?referee=${referee}`],
        'team stats': [`${STATS}?aggregationEpochs=1`, `${STATS}?aggregationEpochs=${teamEpochs}&pagination.first=5`],
        summaries: [
          `${SUMMARIES}?pagination.first=5`,
          `${SUMMARIES}?filter.fromEpoch=${ended}`,
          `${SUMMARIES}?filter.assetIds=${assetId}&pagination.last=3`,
        ],
        overview: ['/explorer/api/overview'],
        assets: ['/explorer/api/assets'],
        teams: ['/explorer/api/teams?pagination.first=5', `/explorer/api/teams?search=${team.slice(0, 12)}`],
      };
      const all = Object.values(urls).flat();

      /** Every URL of both servers: the same status, body and X-Block-* headers. The truth's bodies. */
      const compareAll = async (): Promise<Map<string, string>> => {
        const truth = new Map<string, string>();
        for (const u of all) {
          const [c, p] = [await get(cached.url + u), await get(plain.url + u)];
          assert.equal(p.status, 200, `${u}: ${p.text}`);
          assert.equal(c.status, p.status, u);
          assert.equal(c.text, p.text, `${u} at ${height}`);
          for (const h of ['x-block-height', 'x-block-timestamp']) assert.equal(c.headers.get(h), p.headers.get(h), `${u}: ${h}`);
          assert.equal(c.headers.get('x-block-height'), String(height), u);
          truth.set(u, p.text);
        }
        return truth;
      };

      // Asked twice: every URL is cached now (an answer is kept on its URL's second request).
      await compareAll();
      let bodies = await compareAll();
      assert.deepEqual(await outcomes(cached.url), { hit: 0, miss: 2 * all.length, notAdmitted: all.length });
      const t = (offset: number) => String(1_900_000_000_000_000_000n + BigInt(height + offset));
      const next = String(ended + 1);
      // Each block, and the groups whose answers it changes (the overview shows the head: all).
      const blocks: { what: string; payloads: Record<string, unknown>[]; changes: Group[] }[] = [
        { what: 'an event no read model folds', payloads: [marketData()], changes: ['overview'] },
        { what: 'a game scoped to teams (read by ingestion only)', payloads: [gameTransfer(hex('c7'), true)], changes: ['overview'] },
        { what: 'a new referral set', payloads: [setCreated(hex('a1'), hex('cd'), t(0))], changes: ['referral sets', 'overview'] },
        {
          what: 'a referee joining it',
          payloads: [refereeJoined(hex('a1'), hex('a2'), String(ended))],
          changes: ['referral sets', 'overview'],
        },
        { what: 'a new team', payloads: [teamCreated(hex('a3'), hex('a4'), 'Live', t(0), String(ended))], changes: ['teams', 'overview'] },
        {
          what: 'a party joining the example team',
          payloads: [refereeJoinedTeam(team, hex('a5'), String(ended))],
          changes: ['teams', 'overview'],
        },
        {
          what: 'team statistics of the next epoch',
          payloads: [teamsStats(next, team, { [hex('a5')]: '1000' })],
          changes: ['team stats', 'teams', 'overview'],
        },
        {
          what: 'the end of the epoch',
          payloads: [epochEvent(next, 'EPOCH_ACTION_END'), epochEvent(String(ended + 2), 'EPOCH_ACTION_START')],
          changes: ['team stats', 'teams', 'overview'],
        },
        // Team statistics fold every payout (it may be of a team game): their answers go too.
        {
          what: 'a reward payout',
          payloads: [payout(next, assetId, '77')],
          changes: ['summaries', 'assets', 'team stats', 'teams', 'overview'],
        },
        { what: 'a new asset', payloads: [asset(hex('a6'), 'LIVE', '6')], changes: ['assets', 'overview'] },
      ];
      for (const block of blocks) {
        const before = await outcomes(cached.url);
        await followers.append(block.payloads);
        height = followers.height;
        // A kept answer, asked until the cache has heard of the block (served with its height).
        const probe = urls[(Object.keys(urls) as Group[]).find((g) => !block.changes.includes(g))!][0]!;
        let probes = 0;
        await eventually(
          `the cache at ${height}`,
          async () => {
            probes++;
            return (await get(cached.url + probe)).headers.get('x-block-height') === String(height);
          },
          5000,
        );

        const now = await compareAll();
        const changed = all.filter((u) => now.get(u) !== bodies.get(u));
        const expected = block.changes.flatMap((g) => urls[g]);
        assert.ok(changed.length > 0, `${block.what}: no answer changed`);
        for (const u of changed) assert.ok(expected.includes(u), `${block.what}: ${u} changed`);
        const counted = await outcomes(cached.url);
        // The answers dropped are kept again on their next request: their URLs are known.
        assert.deepEqual(
          {
            hit: counted.hit - before.hit - probes,
            miss: counted.miss - before.miss,
            notAdmitted: counted.notAdmitted - before.notAdmitted,
          },
          { hit: all.length - expected.length, miss: expected.length, notAdmitted: 0 },
          `${block.what}: cache outcomes`,
        );
        bodies = now;
      }
    });
  });
}
