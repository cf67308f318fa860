/**
 * GET /docs in a real browser: headless Chromium (Debian's, at /usr/bin/chromium, driven by
 * playwright-core; CI installs it) renders Swagger UI over the served document and shows the
 * three operations and the explorer's endpoints under the page's Content-Security-Policy,
 * violating nothing of it and loading nothing from any other origin. Its
 * screenshot is kept in EPOCHVIEW_SCREENSHOTS when that names a folder (see helpers/browser.ts).
 *
 * The page does not depend on the data, so this runs on one store (the first of the run's).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { Store } from '../../src/db/store.js';
import { DOCS_CSP } from '../../src/http/page-headers.js';
import { keepScreenshot, launchChromium, watchPage } from '../helpers/browser.js';
import { DOCS_PAGE_HEADERS, pageHeadersOf } from '../helpers/page-headers.js';
import { get, startServer } from '../helpers/server.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';

const PATHS = [
  '/api/v2/referral-sets',
  '/api/v2/teams/{teamId}/stats',
  '/api/v2/rewards/epoch/summaries',
  '/explorer/api/overview',
  '/explorer/api/assets',
  '/explorer/api/teams',
  '/api/v2/teams',
  '/api/v2/teams/stats',
  '/api/v2/teams/referees/{teamId}',
  '/api/v2/teams/referees/history/{referee}',
  '/api/v2/referral-sets/referees',
  '/api/v2/referral-sets/stats',
  '/api/v2/referral-programs/current',
];

describe(`/docs in headless Chromium (${STORE_KINDS[0]})`, () => {
  let ts: TestStore;
  let store: Store;
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: Browser;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'epochview-docs-'));
    ts = await createTestStore(STORE_KINDS[0]!);
    store = await ts.open();
    server = await startServer(store);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await store?.close();
    await ts?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the page is HTML and its assets are served locally', async () => {
    const page = await get(`${server.url}/docs`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.deepEqual(pageHeadersOf(page.headers), DOCS_PAGE_HEADERS);
    for (const asset of ['/docs/static/swagger-ui.css', '/docs/static/swagger-ui-bundle.js', '/docs/static/swagger-initializer.js']) {
      assert.ok(page.text.includes(asset), asset);
      const res = await get(`${server.url}${asset}`);
      assert.equal(res.status, 200, asset);
      assert.ok(res.text.length > 100, asset);
      assert.deepEqual(pageHeadersOf(res.headers), DOCS_PAGE_HEADERS, asset);
    }
    assert.ok(!/https?:\/\//.test(page.text), 'the page names no other origin');
    // No inline script or style: the policy needs no hash or 'unsafe-inline' for this page.
    assert.deepEqual(
      [...page.text.matchAll(/<script\b[^>]*>([^<]*)<\/script>/g)].map((m) => m[1]!.trim()),
      ['', '', ''],
    );
    assert.ok(!/<style\b|\sstyle=|\son[a-z]+=/i.test(page.text), 'no inline style or event handler attribute');
  });

  test('shows the operations, fetching nothing from elsewhere', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    const problems = await watchPage(page, server.url);
    try {
      const res = await page.goto(`${server.url}/docs`, { waitUntil: 'load' });
      assert.equal(res?.status(), 200);
      // The policy the page runs under: no violation below is proof of nothing without it.
      assert.equal(res?.headers()['content-security-policy'], DOCS_CSP);
      // Swagger UI renders one summary row per operation once the document has loaded.
      await page.locator('.opblock-summary-path').nth(2).waitFor({ state: 'visible', timeout: 20_000 });
      const shown = await page.locator('.opblock-summary-path').allInnerTexts();
      const clean = shown.map((t) => t.replace(/\u200b/g, '').trim());
      assert.deepEqual([...clean].sort(), [...PATHS].sort());
      for (const path of PATHS) {
        assert.ok(await page.locator(`.opblock-summary-path[data-path="${path}"]`).isVisible(), path);
      }
      const methods = await page.locator('.opblock-summary-method').allInnerTexts();
      assert.deepEqual(
        methods,
        PATHS.map(() => 'GET'),
      );
      assert.ok(await page.getByText('epochview', { exact: false }).first().isVisible());

      // Open one operation: its parameters (both spellings) and responses render.
      await page.locator('.opblock-summary-path[data-path="/api/v2/rewards/epoch/summaries"]').click();
      await page.locator('.parameters .parameter__name').first().waitFor({ state: 'visible' });
      const names = (await page.locator('.parameters .parameter__name').allInnerTexts()).map((t) => t.replace(/\s*\*?\s*$/, '').trim());
      for (const name of [
        'pagination.newestFirst',
        'pagination.newest_first',
        'filter.assetIds',
        'filter.asset_ids',
        'filter.fromEpoch',
        'filter.to_epoch',
      ]) {
        assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
      }
      // Every parameter is a text or select field (a `format: byte` string would render as a file picker).
      assert.equal(await page.locator('.parameters input[type=file]').count(), 0);
      const statuses = await page.locator('.responses-table .response-col_status').allInnerTexts();
      for (const s of ['200', '400', '404', '500', '501', '503'])
        assert.ok(
          statuses.some((t) => t.trim() === s),
          `${s} in ${statuses.join(',')}`,
        );
      await page.locator('.opblock-summary-path[data-path="/api/v2/rewards/epoch/summaries"]').click();

      // Try one request from the page: it is sent to this server and its answer shown.
      const assets = page.locator('.opblock:has(.opblock-summary-path[data-path="/explorer/api/assets"])');
      await assets.locator('.opblock-summary-path').click();
      await assets.locator('.try-out__btn').click();
      await assets.locator('.execute').click();
      const live = assets.locator('.live-responses-table .response');
      await live.first().waitFor({ state: 'visible' });
      assert.equal((await live.locator('.response-col_status').first().textContent())!.trim(), '200');
      assert.deepEqual(
        JSON.parse((await live.locator('.response-col_description pre').first().textContent())!),
        JSON.parse((await get(`${server.url}/explorer/api/assets`)).text),
      );

      const shot = join(dir, 'docs.png');
      await page.screenshot({ path: shot, fullPage: true });
      assert.ok(statSync(shot).size > 10_000);
      keepScreenshot(shot, 'docs.png');

      assert.deepEqual(problems.foreign, [], 'requests to other origins');
      assert.deepEqual(problems.failures, [], 'failed requests');
      assert.deepEqual(problems.errors, [], 'page errors');
      assert.deepEqual(problems.violations, [], 'Content-Security-Policy violations');
      assert.deepEqual(problems.dialogs, [], 'dialogs');
    } finally {
      await context.close();
    }
  });
});
