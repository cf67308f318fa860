/**
 * GraphiQL at /graphql in headless Chromium, against a real `serve` of the demo chain: shown with
 * its assets from epochview only, under its Content-Security-Policy with no violation, and a query
 * typed into its editor is answered. The explorer's landing page and /docs link to it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GRAPHIQL_CSP } from '../../src/http/page-headers.js';
import type { Browser } from 'playwright-core';
import { launchChromium, watchPage } from '../helpers/browser.js';
import { useDemoServe } from '../helpers/served-store.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS } from '../helpers/stores.js';

describe('GraphiQL in headless Chromium', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  for (const kind of STORE_KINDS) {
    describe(`on ${kind}`, () => {
      const demo = useDemoServe(kind);

      test('shown from our assets only; a typed query is answered', { timeout: 120_000 }, async () => {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        try {
          const page = await context.newPage();
          const problems = await watchPage(page, demo.serve.url);
          const res = await page.goto(`${demo.serve.url}/graphql`);
          assert.equal(res?.status(), 200);
          assert.equal(res?.headers()['content-security-policy'], GRAPHIQL_CSP);
          assert.equal(res?.headers()['content-type'], 'text/html; charset=utf-8');
          const editor = page.locator('.graphiql-query-editor .CodeMirror');
          await editor.waitFor();

          const first = (await get(`${demo.serve.url}/api/v2/referral-sets?pagination.first=1`)).body as {
            referralSets: { edges: { node: { id: string; totalMembers: string } }[] };
          };
          const { id, totalMembers } = first.referralSets.edges[0]!.node;
          // Typed: the editor's text replaced by keyboard, as a person would (insertText: no auto-closed brackets).
          await editor.click();
          await page.keyboard.press('Control+A');
          await page.keyboard.press('Delete');
          await page.keyboard.insertText('query Typed { referralSets(pagination: { first: 1 }) { edges { node { id totalMembers } } } }');
          await page.locator('.graphiql-execute-button').click();
          const result = page.locator('.graphiql-response .CodeMirror');
          await result.getByText(id).waitFor();
          // The result editor's text, as CodeMirror holds it.
          const text = await result.evaluate((el: unknown) => (el as { CodeMirror: { getValue(): string } }).CodeMirror.getValue());
          const shown = JSON.parse(text) as unknown;
          assert.deepEqual(shown, { data: { referralSets: { edges: [{ node: { id, totalMembers: Number(totalMembers) } }] } } });
          assert.deepEqual(problems, { foreign: [], failures: [], errors: [], violations: [], dialogs: [] });
        } finally {
          await context.close();
        }
      });

      test('linked from the explorer and /docs; its assets are kept a year', async () => {
        const spec = (await get(`${demo.serve.url}/api/v2/openapi.json`)).body as { info: { description: string } };
        assert.match(spec.info.description, /\[`\/graphql`\]\(graphql\)/);
        const html = (await get(`${demo.serve.url}/graphql`, { headers: { accept: 'text/html' } })).text;
        const script = /src="(graphql\/assets\/[^"]+\.js)"/.exec(html)![1]!;
        const asset = await get(`${demo.serve.url}/${script}`);
        assert.equal(asset.status, 200);
        assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
        assert.equal(asset.headers.get('content-security-policy'), GRAPHIQL_CSP);
        assert.equal((await get(`${demo.serve.url}/graphql/assets/none.js`)).status, 404);
        // A GET asking a query is answered as GraphQL even from a browser.
        const answered = await get(`${demo.serve.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
          headers: { accept: 'text/html' },
        });
        assert.equal(answered.text, '{"data":{"__typename":"Query"}}');
      });
    });
  }
});
