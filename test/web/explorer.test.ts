/**
 * The explorer in a real browser: headless Chromium (see helpers/browser.ts) against a real
 * `epochview serve` process holding the small demo chain, on each store. What the pages show is
 * compared with what the API answers for the same request; paging, lookups, the URL state and
 * the back button are driven as a person would, by clicking and typing. Every page runs under
 * the explorer's Content-Security-Policy and must load nothing from another origin, log no error
 * and violate nothing of the policy. Screenshots of each view are kept in
 * EPOCHVIEW_SCREENSHOTS when that names a folder (see helpers/browser.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { demoChain } from '../../src/demo/chain.js';
import { EXPLORER_CSP } from '../../src/http/page-headers.js';
import { keepScreenshot, launchChromium, watchPage, type PageProblems } from '../helpers/browser.js';
import { useDemoServe } from '../helpers/served-store.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS } from '../helpers/stores.js';

const PAGE_SIZE = 25;
const WIDE = { width: 1280, height: 900 };
const NARROW = { width: 390, height: 844 };

interface Connection {
  edges: { node: Record<string, unknown>; cursor: string }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string; endCursor: string };
}

/** A referee of the demo chain (its first join), read from the generator as the server ingested it. */
function demoReferee(): string {
  for (const chunk of demoChain({ scale: 'small', seed: 1 })) {
    const m = /"refereeJoinedReferralSet":\{"setId":"[0-9a-f]+","referee":"([0-9a-f]+)"/.exec(chunk);
    if (m) return m[1]!;
  }
  throw new Error('the demo chain has no referee');
}

describe('the explorer in headless Chromium', () => {
  let browser: Browser;
  let shots: string;
  before(async () => {
    browser = await launchChromium();
    shots = mkdtempSync(join(tmpdir(), 'epochview-explorer-'));
  });
  after(async () => {
    await browser?.close();
    if (shots) rmSync(shots, { recursive: true, force: true });
  });

  for (const kind of STORE_KINDS) {
    describe(`on ${kind}`, () => {
      const demo = useDemoServe(kind);

      const api = async <T>(path: string): Promise<T> => {
        const res = await get(`${demo.serve.url}/${path}`);
        assert.equal(res.status, 200, `${path}: ${res.text}`);
        return res.body as T;
      };

      /** A new page at `path`, waited on until its view is shown. */
      async function open(path: string, viewport = WIDE): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        const problems = await watchPage(page, demo.serve.url);
        const res = await page.goto(`${demo.serve.url}${path}`);
        assert.equal(res?.status(), 200);
        // The policy the page runs under: no violation below is proof of nothing without it.
        assert.equal(res?.headers()['content-security-policy'], EXPLORER_CSP);
        await shown(page);
        return { context, page, problems };
      }

      async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
        const file = join(shots, `${kind}-${name}.png`);
        await page.screenshot({ path: file, fullPage });
        keepScreenshot(file, `explorer-${kind}-${name}.png`);
      }

      function noProblems(problems: PageProblems): void {
        assert.deepEqual(problems.foreign, [], 'requests to other origins');
        assert.deepEqual(problems.failures, [], 'failed requests');
        assert.deepEqual(problems.errors, [], 'page and console errors');
        assert.deepEqual(problems.violations, [], 'Content-Security-Policy violations');
        assert.deepEqual(problems.dialogs, [], 'dialogs');
      }

      const setIds = (page: Page) =>
        page.locator('#referral-sets tbody tr td:first-child [data-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')!));
      const ids = (c: Connection) => c.edges.map((e) => e.node.id as string);

      test('referral sets: paging older and newer shows the API pages; reload and back keep the state', async (t: TestContext) => {
        const { context, page, problems } = await open('/explorer/referral-sets');
        try {
          t.diagnostic(`first view shown in ${await firstViewMs(page)} ms`);
          const first = (await api<{ referralSets: Connection }>(`api/v2/referral-sets?pagination.first=${PAGE_SIZE}`)).referralSets;
          assert.equal(first.edges.length, PAGE_SIZE);
          assert.deepEqual(await setIds(page), ids(first));
          assert.equal(await page.locator('#page-newer').isDisabled(), true);
          await screenshot(page, 'referral-sets');

          await clickAndShow(page, '#page-older');
          assert.equal(new URL(page.url()).searchParams.get('after'), first.pageInfo.endCursor);
          const second = (
            await api<{ referralSets: Connection }>(
              `api/v2/referral-sets?pagination.first=${PAGE_SIZE}&pagination.after=${encodeURIComponent(first.pageInfo.endCursor)}`,
            )
          ).referralSets;
          assert.ok(second.edges.length > 0);
          assert.deepEqual(await setIds(page), ids(second));

          await page.reload();
          await shown(page);
          assert.deepEqual(await setIds(page), ids(second), 'the page survives a reload');

          await clickAndShow(page, '#page-newer');
          const back = (
            await api<{ referralSets: Connection }>(
              `api/v2/referral-sets?pagination.last=${PAGE_SIZE}&pagination.before=${encodeURIComponent(second.pageInfo.startCursor)}`,
            )
          ).referralSets;
          assert.deepEqual(ids(back), ids(first));
          assert.deepEqual(await setIds(page), ids(back));

          await page.goBack();
          await shown(page);
          assert.equal(new URL(page.url()).searchParams.get('after'), first.pageInfo.endCursor);
          assert.deepEqual(await setIds(page), ids(second), 'back shows the previous page');
          noProblems(problems);
        } finally {
          await context.close();
        }
      });

      test('referral sets: a referee lookup, typed and submitted with the keyboard, finds its set', async () => {
        const referee = demoReferee();
        const expected = (await api<{ referralSets: Connection }>(`api/v2/referral-sets?referee=${referee}`)).referralSets;
        assert.equal(expected.edges.length, 1);
        const { context, page, problems } = await open('/explorer/referral-sets');
        try {
          await page.locator('#lookup-by').selectOption('referee');
          await page.locator('#lookup-id').fill(referee);
          await page.locator('#lookup-id').press('Enter');
          await page.waitForURL((url) => url.searchParams.get('referee') === referee);
          await shown(page);
          assert.deepEqual(await setIds(page), ids(expected));
          const row = page.locator('#referral-sets tbody tr').first();
          assert.equal(await row.locator('td').nth(2).innerText(), expected.edges[0]!.node.totalMembers);
          assert.match(await row.locator('td').nth(3).innerText(), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
          await screenshot(page, 'referral-set-lookup');

          // Not an id: said in the page, and no request is made.
          await page.locator('#lookup-id').fill('not-hex');
          await page.locator('#lookup-id').press('Enter');
          await page.waitForURL((url) => url.searchParams.get('referee') === 'not-hex');
          await shown(page);
          assert.match(await page.locator('[role=alert]').innerText(), /not an id/);
          noProblems(problems);
        } finally {
          await context.close();
        }
      });

      test("a referral set: its referees and its statistics at the latest epoch, through the family's operations", async () => {
        type Node = Record<string, string>;
        const referees = (await api<{ referralSetReferees: Connection }>('api/v2/referral-sets/referees?pagination.first=1'))
          .referralSetReferees.edges;
        const setId = (referees[0]!.node as Node).referralSetId!;
        const expected = (
          await api<{ referralSetReferees: Connection }>(
            `api/v2/referral-sets/referees?referralSetId=${setId}&pagination.first=${PAGE_SIZE}`,
          )
        ).referralSetReferees.edges.map((e) => (e.node as Node).referee);
        const stats = (await api<{ stats: Connection }>(`api/v2/referral-sets/stats?referralSetId=${setId}&pagination.first=${PAGE_SIZE}`))
          .stats.edges;
        const { context, page, problems } = await open(`/explorer/referral-sets?set=${setId}`);
        try {
          await shown(page);
          const ids = (table: string) =>
            page.locator(`#${table} tbody tr td:first-child [data-id]`).evaluateAll((els) => els.map((e) => e.getAttribute('data-id')!));
          assert.deepEqual(await ids('referral-set-referees'), expected);
          assert.deepEqual(
            await ids('referral-set-stats'),
            stats.map((e) => (e.node as Node).partyId),
          );
          if (stats.length > 0) {
            const epoch = (stats[0]!.node as Node).atEpoch!;
            assert.match(await page.locator('#referral-set-summary').innerText(), new RegExp(`^Epoch ${epoch}: running taker volume `));
          }
          await screenshot(page, 'referral-set');
          noProblems(problems);
        } finally {
          await context.close();
        }
      });

      test("landing: its numbers equal the API's, and its example requests answer", async (t: TestContext) => {
        const { context, page, problems } = await open('/');
        try {
          t.diagnostic(`landing page shown in ${await firstViewMs(page)} ms`);
          const stat = (name: string) => page.locator(`[data-stat="${name}"]`).innerText();
          const ready = await api<{ blockHeight: string; blockTime: string }>('readyz');
          assert.equal(await stat('Block height'), ready.blockHeight);
          assert.match(await stat('Block time'), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
          // Counted from the API's own pages.
          const sets = (await api<{ referralSets: Connection }>('api/v2/referral-sets?pagination.first=5000')).referralSets.edges;
          const teams = (await api<{ teams: Connection }>('explorer/api/teams?pagination.first=5000')).teams.edges;
          const summaries = (await api<{ summaries: Connection }>('api/v2/rewards/epoch/summaries?pagination.first=5000')).summaries;
          assert.equal(summaries.pageInfo.hasNextPage, false);
          const rows = summaries.edges.map((e) => e.node);
          assert.equal(await stat('Referral sets'), String(sets.length));
          assert.equal(await stat('Teams'), String(teams.length));
          assert.equal(await stat('Epochs'), String(new Set(rows.map((r) => r.epoch)).size));
          assert.equal(await stat('Assets'), String(new Set(rows.map((r) => r.assetId)).size));
          const examples = await page.locator('.requests a').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
          assert.equal(examples.length, 3);
          for (const href of examples) {
            const body = await api<Record<string, Connection>>(href);
            assert.ok(Object.values(body)[0]!.edges.length > 0, `${href} answers something`);
          }
          await screenshot(page, 'landing');
          noProblems(problems);
        } finally {
          await context.close();
        }
      });

      test('rewards: a chart is drawn; the summaries page older and newer as the API does; the state survives a reload', async () => {
        const { context, page, problems } = await open('/explorer/rewards');
        try {
          const newest = (await api<{ summaries: Connection }>('api/v2/rewards/epoch/summaries?pagination.first=1')).summaries.edges[0]!
            .node;
          const oldest = (
            await api<{ summaries: Connection }>('api/v2/rewards/epoch/summaries?pagination.first=1&pagination.newestFirst=false')
          ).summaries.edges[0]!.node;
          const from = Math.max(Number(oldest.epoch), Number(newest.epoch) - 50 + 1);
          const filter = `filter.assetIds=${newest.assetId}&filter.fromEpoch=${from}&filter.toEpoch=${newest.epoch}`;
          assert.equal(await page.locator('#asset').inputValue(), newest.assetId);
          assert.ok((await paintedPixels(page)) > 1000, 'the chart is drawn');
          // The chart reads from the keyboard: focused, End, ArrowLeft and Home move through the epochs
          // and the live region reads each epoch's amounts per reward type, in the asset's units.
          const plot = page.locator('.plot').first();
          const spoken = page.locator('.chart [aria-live]').first();
          await plot.focus();
          await plot.press('End');
          await assertReading(spoken, Number(newest.epoch));
          await plot.press('ArrowLeft');
          await assertReading(spoken, Number(newest.epoch) - 1);
          await plot.press('Home');
          await assertReading(spoken, from);

          const summaryRows = (p: Page) =>
            p
              .locator('#summaries tbody tr')
              .evaluateAll((trs) =>
                trs.map((tr) =>
                  [
                    tr.children[0]!.textContent,
                    tr.children[1]!.querySelector('span')!.getAttribute('title'),
                    tr.children[3]!.querySelector('span')!.getAttribute('data-amount'),
                  ].join(' '),
                ),
              );
          const apiRows = (c: Connection) => c.edges.map((e) => [e.node.epoch, e.node.rewardType, e.node.amount].join(' '));
          const first = (await api<{ summaries: Connection }>(`api/v2/rewards/epoch/summaries?${filter}&pagination.first=${PAGE_SIZE}`))
            .summaries;
          assert.deepEqual(await summaryRows(page), apiRows(first));
          // Amounts in the asset's units, exact: the text shown times 10^decimals is the raw amount.
          const asset = (
            await api<{ assets: { id: string; symbol: string | null; decimals: string | null }[] }>('explorer/api/assets')
          ).assets.find((a) => a.id === newest.assetId)!;
          assert.ok(asset.symbol !== null && asset.decimals !== null, 'the demo announces its assets');
          assert.match(await page.locator('#asset option:checked').innerText(), new RegExp(`^${asset.symbol} · `));
          const amounts = await page
            .locator('#summaries tbody tr td:nth-child(4) span')
            .evaluateAll((spans) => spans.map((e) => [e.getAttribute('data-amount')!, e.textContent!]));
          for (const [raw, text] of amounts) {
            const m = new RegExp(`^([0-9,]+)(?:\\.([0-9]+))? ${asset.symbol}$`).exec(text!);
            assert.ok(m, `${text} is in ${asset.symbol}`);
            const fraction: string = m[2] ?? '';
            assert.ok(fraction.length <= Number(asset.decimals) && !fraction.endsWith('0'), text);
            assert.equal(BigInt(m[1]!.replace(/,/g, '') + fraction.padEnd(Number(asset.decimals), '0')), BigInt(raw!), `${text} = ${raw}`);
          }
          await screenshot(page, 'rewards');

          await clickAndShow(page, '#page-older');
          const second = (
            await api<{ summaries: Connection }>(
              `api/v2/rewards/epoch/summaries?${filter}&pagination.first=${PAGE_SIZE}&pagination.after=${encodeURIComponent(first.pageInfo.endCursor)}`,
            )
          ).summaries;
          assert.deepEqual(await summaryRows(page), apiRows(second));
          await clickAndShow(page, '#page-newer');
          const back = (
            await api<{ summaries: Connection }>(
              `api/v2/rewards/epoch/summaries?${filter}&pagination.last=${PAGE_SIZE}&pagination.before=${encodeURIComponent(second.pageInfo.startCursor)}`,
            )
          ).summaries;
          assert.deepEqual(await summaryRows(page), apiRows(back));

          // Another asset, fewer epochs, the split chart: all in the URL, kept by a reload.
          const other = await page.locator('#asset option').nth(1).getAttribute('value');
          await page.locator('#asset').selectOption(other!);
          await page.locator('#epochs').fill('5');
          await page.locator('#epochs').press('Enter');
          await page.waitForURL((url) => url.searchParams.get('asset') === other && url.searchParams.get('epochs') === '5');
          await shown(page);
          await clickAndShow(page, 'a.toggle:has-text("Split")');
          assert.equal(new URL(page.url()).searchParams.get('chart'), 'split');
          await page.reload();
          await shown(page);
          assert.equal(await page.locator('#asset').inputValue(), other);
          assert.equal(await page.locator('#epochs').inputValue(), '5');
          assert.equal(await page.locator('a.toggle[aria-current=true]').innerText(), 'Split by type');
          assert.ok((await paintedPixels(page)) > 200, 'the split chart is drawn');
          assert.match(await page.locator('.units').innerText(), new RegExp(`^Epochs ${Number(newest.epoch) - 4}–${newest.epoch}:`));
          noProblems(problems);
        } finally {
          await context.close();
        }
      });

      test("teams: the list equals the API's; a search by name finds the team", async () => {
        const { context, page, problems } = await open('/explorer/teams');
        try {
          const all = (await api<{ teams: Connection }>(`explorer/api/teams?pagination.first=${PAGE_SIZE}`)).teams;
          const shownIds = () =>
            page.locator('#teams tbody tr td:nth-child(2) [data-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')!));
          assert.deepEqual(await shownIds(), ids(all));
          await screenshot(page, 'teams');
          const target = all.edges[all.edges.length - 1]!.node;
          const word = String(target.name).split(' ')[1]!.toLowerCase();
          await page.locator('#team-search').fill(word);
          await page.locator('#team-search').press('Enter');
          await page.waitForURL((url) => url.searchParams.get('q') === word);
          await shown(page);
          const found = (
            await api<{ teams: Connection }>(`explorer/api/teams?search=${encodeURIComponent(word)}&pagination.first=${PAGE_SIZE}`)
          ).teams;
          assert.ok(ids(found).includes(target.id as string));
          assert.deepEqual(await shownIds(), ids(found));
          noProblems(problems);
        } finally {
          await context.close();
        }
      });

      test('team page: the leaderboard equals /api/v2/teams/{id}/stats, the team and its totals ListTeams and ListTeamsStatistics; sorting is in the URL; the totals chart is drawn', async () => {
        const overview = await api<{ examples: { teamId: string } }>('explorer/api/overview');
        const teamId = overview.examples.teamId;
        const { context, page, problems } = await open(`/explorer/teams/${teamId}`);
        try {
          const stats = (
            await api<{ statistics: Connection }>(`api/v2/teams/${teamId}/stats?aggregationEpochs=10&pagination.first=5000`)
          ).statistics.edges.map((e) => e.node);
          assert.ok(stats.length > 1);
          const board = () =>
            page.locator('#leaderboard tbody tr').evaluateAll((trs) =>
              trs.map((tr) => ({
                party: tr.querySelector('[data-id]')!.getAttribute('data-id')!,
                rewards: tr.children[2]!.querySelector('span')!.getAttribute('data-value')!,
                volume: tr.children[3]!.querySelector('span')!.getAttribute('data-value')!,
                games: tr.children[4]!.textContent!,
              })),
            );
          const expected = stats.map((n) => ({
            party: n.partyId as string,
            rewards: n.totalQuantumRewards as string,
            volume: n.totalQuantumVolume as string,
            games: n.totalGamesPlayed as string,
          }));
          const byParty = (rows: { party: string }[]) => [...rows].sort((a, b) => (a.party < b.party ? -1 : 1));
          assert.deepEqual(byParty(await board()), byParty(expected));
          // Ranked by total quantum rewards.
          const ranked = (await board()).map((r) => BigInt(r.rewards.split('.')[0]!));
          assert.deepEqual(
            ranked,
            [...ranked].sort((a, b) => (b > a ? 1 : b < a ? -1 : 0)),
          );
          assert.ok((await paintedPixels(page)) > 500, 'the team totals chart is drawn');
          // The team and its totals are the API's own: ListTeams and ListTeamsStatistics.
          const team = (await api<{ teams: Connection }>(`api/v2/teams?teamId=${teamId}`)).teams.edges[0]!.node;
          const totals = (await api<{ statistics: Connection }>(`api/v2/teams/stats?teamId=${teamId}&aggregationEpochs=10`)).statistics
            .edges[0]!.node;
          const shownNumber = async (selector: string) => (await page.locator(selector).innerText()).replace(/,/g, '');
          assert.equal(await shownNumber('[data-stat=rewards]'), totals.totalQuantumRewards);
          assert.equal(await shownNumber('[data-stat=volume]'), totals.totalQuantumVolume);
          assert.match(await page.locator('.facts').innerText(), new RegExp(`Created in epoch\\s+${team.createdAtEpoch}\\b`));
          assert.equal(await page.locator('.spark').count(), stats.length);
          await screenshot(page, 'team');

          await page.locator('#sort-volume').click();
          await page.waitForURL((url) => url.searchParams.get('sort') === 'volume');
          await shown(page);
          assert.equal(await page.locator('th[aria-sort=descending]').textContent(), 'Quantum volume ▼');
          const volumes = (await board()).map((r) => Number(r.volume));
          assert.deepEqual(
            volumes,
            [...volumes].sort((a, b) => b - a),
          );
          await page.reload();
          await shown(page);
          assert.deepEqual(
            (await board()).map((r) => Number(r.volume)),
            volumes,
            'the sort survives a reload',
          );
          await page.goBack();
          await shown(page);
          assert.equal(new URL(page.url()).searchParams.get('sort'), null);
          noProblems(problems);
        } finally {
          await context.close();
        }
      });

      test('team page: a team with fewer epochs of data than N explains the rule and links to the N it has', async () => {
        const teams = (await api<{ teams: Connection }>('explorer/api/teams?pagination.first=5000')).teams.edges.map((e) => e.node);
        const short = teams.find((t) => Number(t.eligibleEpochs) > 0 && Number(t.eligibleEpochs) < 10)!;
        assert.ok(short, 'the demo has a team listed for fewer than 10 epochs');
        const empty = (await api<{ statistics: Connection }>(`api/v2/teams/${short.id}/stats`)).statistics;
        assert.equal(empty.edges.length, 0);
        const { context, page, problems } = await open(`/explorer/teams/${short.id}`);
        try {
          const explain = await page.locator('.explain').innerText();
          assert.match(explain, /only when the team has statistics in each of the last N epochs/);
          assert.match(explain, new RegExp(`each of its last ${short.eligibleEpochs} epochs`));
          await screenshot(page, 'team-ineligible');
          await clickAndShow(page, `.explain a`);
          assert.equal(new URL(page.url()).searchParams.get('epochs'), short.eligibleEpochs);
          const listed = (await api<{ statistics: Connection }>(`api/v2/teams/${short.id}/stats?aggregationEpochs=${short.eligibleEpochs}`))
            .statistics;
          assert.equal(await page.locator('#leaderboard tbody tr').count(), listed.edges.length);
          noProblems(problems);
        } finally {
          await context.close();
        }
      });

      test('keyboard: the skip link leads to the content; every control has a label', async () => {
        const { context, page, problems } = await open('/explorer/referral-sets');
        try {
          await page.keyboard.press('Tab');
          assert.equal(await page.evaluate('document.activeElement.textContent'), 'Skip to content');
          await page.keyboard.press('Enter');
          assert.equal(await page.evaluate('document.activeElement.id'), 'main');
          // (Evaluated in the page, as text: the test's own types have no DOM.)
          const unlabelled = await page.evaluate(`[...document.querySelectorAll('input, select')]
            .filter((e) => e.labels.length === 0 && !e.getAttribute('aria-label')).map((e) => e.outerHTML)`);
          assert.deepEqual(unlabelled, []);
          noProblems(problems);
        } finally {
          await context.close();
        }
      });

      test('a narrow (phone) viewport: nothing wider than the screen, rows as cards, charts drawn', async () => {
        const { context, page, problems } = await open('/explorer/referral-sets', NARROW);
        try {
          assert.ok(((await page.evaluate('document.documentElement.scrollWidth')) as number) <= NARROW.width, 'no horizontal scrolling');
          const header = (await page.locator('#referral-sets thead').boundingBox())!;
          assert.ok(header.x + header.width <= 0, 'the column headers are off screen');
          const label = `getComputedStyle(document.querySelector('#referral-sets tbody tr td:nth-child(3)'), '::before').content`;
          assert.equal(await page.evaluate(label), '"Members"', 'each value is labelled in its card');
          assert.ok(await page.locator('header.top nav a', { hasText: 'Teams' }).isVisible());
          await screenshot(page, 'narrow', false);
          noProblems(problems);
        } finally {
          await context.close();
        }
        for (const path of [
          '/',
          '/explorer/rewards',
          '/explorer/teams',
          `/explorer/teams/${(await api<{ examples: { teamId: string } }>('explorer/api/overview')).examples.teamId}`,
        ]) {
          const narrow = await open(path, NARROW);
          try {
            assert.ok(
              ((await narrow.page.evaluate('document.documentElement.scrollWidth')) as number) <= NARROW.width,
              `${path}: no horizontal scrolling`,
            );
            if (path !== '/' && path !== '/explorer/teams')
              assert.ok((await paintedPixels(narrow.page)) > 200, `${path}: the chart is drawn`);
            if (path.startsWith('/explorer/teams/')) await screenshot(narrow.page, 'narrow-team', false);
            noProblems(narrow.problems);
          } finally {
            await narrow.context.close();
          }
        }
      });
    });
  }
});

/**
 * Waits until the router has shown a view: no longer busy, with its heading. (A locator: a
 * predicate given as text would be eval'ed in the page, which its policy refuses.)
 */
async function shown(page: Page): Promise<void> {
  await page.locator('main:not([aria-busy]) h1').waitFor();
}

/** The chart's live region reads the epoch, then each reward type's amount with the asset's symbol. */
async function assertReading(spoken: Locator, epoch: number): Promise<void> {
  // The live region is written on the key press; the press returns once the event is dispatched.
  await spoken.page().waitForFunction((el) => /^Epoch \d+; /.test(el?.textContent ?? ''), await spoken.elementHandle(), { timeout: 5000 });
  const [head, ...parts] = (await spoken.textContent())!.split('; ');
  assert.equal(head, `Epoch ${epoch}`);
  assert.ok(parts.length > 0);
  for (const part of parts) assert.match(part, /^[A-Z][a-z]+(?: [a-z]+)*: [0-9,]+(?:\.[0-9]+)? [A-Z0-9]+$/, part);
}

/**
 * Coloured pixels on the first chart's canvas, once it is drawn. The axes, ticks and grid are
 * grey: only drawn series give colour, so an empty or failed chart has none.
 */
async function paintedPixels(page: Page): Promise<number> {
  await page.locator('.plot canvas').first().waitFor({ state: 'visible' });
  return page.evaluate(`(() => {
    const c = document.querySelector('.plot canvas');
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] !== 0 && Math.max(data[i], data[i + 1], data[i + 2]) - Math.min(data[i], data[i + 1], data[i + 2]) > 40) n++;
    }
    return n;
  })()`) as Promise<number>;
}

/** Clicks a link of the view and waits for the next view. */
async function clickAndShow(page: Page, selector: string): Promise<void> {
  const before = page.url();
  await page.locator(selector).click();
  await page.waitForURL((url) => url.href !== before);
  await shown(page);
}

/** Milliseconds from the start of navigation until the first view was shown, as the page measured it. */
async function firstViewMs(page: Page): Promise<number> {
  return page.evaluate(() => Math.round(performance.getEntriesByName('explorer:first-view')[0]!.startTime));
}
