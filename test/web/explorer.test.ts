/**
 * The explorer in a real browser: headless Chromium (see helpers/browser.ts) against a real
 * `epochview serve` process holding the small demo chain, on each store. What the pages show is
 * compared with what the API answers for the same request; paging, lookups, the URL state and
 * the back button are driven as a person would, by clicking and typing. Every page must load
 * nothing from another origin and log no error. Screenshots of each view are kept in
 * EPOCHVIEW_SCREENSHOTS when that names a folder (see helpers/browser.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { demoChain } from '../../src/demo/chain.js';
import { keepScreenshot, launchChromium, watchPage, type PageProblems } from '../helpers/browser.js';
import { startServe, type ServeProcess } from '../helpers/serve.js';
import { get } from '../helpers/server.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';

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
      let ts: TestStore;
      let serve: ServeProcess;
      before(async () => {
        ts = await createTestStore(kind);
        serve = await startServe([...ts.args, '--demo-on-empty', 'true', '--log-level', 'warn']);
      });
      after(async () => {
        await serve?.stop();
        await ts?.drop();
      });

      const api = async <T>(path: string): Promise<T> => {
        const res = await get(`${serve.url}/${path}`);
        assert.equal(res.status, 200, `${path}: ${res.text}`);
        return res.body as T;
      };

      /** A new page at `path`, waited on until its view is shown. */
      async function open(path: string, viewport = WIDE): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        const problems = watchPage(page, serve.url);
        const res = await page.goto(`${serve.url}${path}`);
        assert.equal(res?.status(), 200);
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
      }

      const setIds = (page: Page) => page.locator('#referral-sets tbody tr td:first-child [data-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')!));
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
          const second = (await api<{ referralSets: Connection }>(`api/v2/referral-sets?pagination.first=${PAGE_SIZE}&pagination.after=${encodeURIComponent(first.pageInfo.endCursor)}`)).referralSets;
          assert.ok(second.edges.length > 0);
          assert.deepEqual(await setIds(page), ids(second));

          await page.reload();
          await shown(page);
          assert.deepEqual(await setIds(page), ids(second), 'the page survives a reload');

          await clickAndShow(page, '#page-newer');
          const back = (await api<{ referralSets: Connection }>(`api/v2/referral-sets?pagination.last=${PAGE_SIZE}&pagination.before=${encodeURIComponent(second.pageInfo.startCursor)}`)).referralSets;
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

      test('a narrow (phone) viewport: nothing wider than the screen, rows as cards', async () => {
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
      });
    });
  }
});

/** Waits until the router has shown a view: no longer busy, with its heading. */
async function shown(page: Page): Promise<void> {
  await page.waitForFunction(`(() => {
    const main = document.querySelector('main');
    return main !== null && !main.hasAttribute('aria-busy') && main.querySelector('h1') !== null;
  })()`);
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
