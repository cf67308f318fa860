/**
 * Hostile chain strings in the explorer, in headless Chromium (see helpers/browser.ts), on each
 * store: a small chain whose team name, team and avatar URLs and asset name and symbol are
 * markup or `javascript:` URLs is ingested through the CLI and its pages opened. Every such
 * string must show as the very text it is, no element or attribute may come of it, no dialog
 * open, no link lead anywhere but this server, and nothing break the page's policy. Strings from
 * the URL (a search, a lookup) are held to the same rule. The browser must also enforce the
 * explorer's policy: markup given as a string and inline script are refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { EXPLORER_CSP } from '../../src/http/page-headers.js';
import { launchChromium, watchPage, type PageProblems } from '../helpers/browser.js';
import { blockLines, epochEvent, hex, payout, refereeJoinedTeam, teamsStats } from '../helpers/events.js';
import { eventually } from '../helpers/serve.js';
import { useServedStore } from '../helpers/served-store.js';
import { STORE_KINDS } from '../helpers/stores.js';

/** Markup of every kind a careless page would run or render; each element an id `pwned-…` to look for. */
const TEAM_NAME = `<img id=pwned-1 src=x onerror=alert(1)>"><script id=pwned-2>alert(2)</script>'><b id=pwned-3>&amp; bold</b>`;
const LINK_TEAM_NAME = 'javascript:alert(3)';
const ASSET_NAME = '<svg id=pwned-4 onload=alert(4)></svg>';
const ASSET_SYMBOL = '<i id=pwned-5>X</i>';
/** A search for the team by the start of its name: the caption of the teams found repeats it. */
const SEARCH = TEAM_NAME.slice(0, TEAM_NAME.indexOf('>') + 1);
const LOOKUP = '"><script id=pwned-7>alert(7)</script>';

const TEAM = hex('c1');
const LINK_TEAM = hex('c2');
const ASSET = hex('0f');

const teamCreated = (teamId: string, referrer: string, name: string) => ({
  type: 'BUS_EVENT_TYPE_TEAM_CREATED',
  teamCreated: {
    teamId,
    referrer,
    name,
    teamUrl: 'javascript:alert(8)',
    avatarUrl: 'javascript:alert(9)',
    createdAt: '1700000000000000000',
    closed: false,
    atEpoch: '1',
    allowList: [],
  },
});
const asset = {
  type: 'BUS_EVENT_TYPE_ASSET',
  asset: { id: ASSET, status: 'STATUS_ENABLED', details: { name: ASSET_NAME, symbol: ASSET_SYMBOL, decimals: '2', quantum: '1' } },
};

// The team has two members with statistics in epochs 1 to 3 (its page lists them for 3 epochs,
// and explains the rule for the default 10); rewards are paid in the asset in each epoch.
const CHAIN = [
  ...blockLines(1, [
    teamCreated(TEAM, hex('d1'), TEAM_NAME),
    refereeJoinedTeam(TEAM, hex('e1'), '1'),
    teamCreated(LINK_TEAM, hex('d2'), LINK_TEAM_NAME),
    asset,
  ]),
  ...[1, 2, 3].flatMap((epoch) =>
    blockLines(epoch + 1, [
      epochEvent(String(epoch), 'EPOCH_ACTION_END'),
      teamsStats(String(epoch), TEAM, { [hex('d1')]: '10', [hex('e1')]: '20' }),
      payout(String(epoch), ASSET, '1234'),
    ]),
  ),
].join('\n');

/** What became of the page's strings: elements and attributes made of them, and where its links lead. */
interface Injection {
  /** Elements whose id the hostile strings give (`pwned-…`). */
  injected: string[];
  /** Images and scripts other than the explorer's own module. */
  foreignElements: string[];
  /** Event handler attributes (on…) anywhere in the document. */
  handlers: string[];
  /** Every href, src and action, resolved against the page's base. */
  urls: string[];
}

// Evaluated in the page, as text: the tests' own types have no DOM.
const INJECTION = `(() => ({
  injected: [...document.querySelectorAll('[id^="pwned"]')].map((e) => e.outerHTML),
  foreignElements: [...document.querySelectorAll('img, iframe, object, embed, style, script')]
    .filter((e) => !(e.tagName === 'SCRIPT' && e.type === 'module' && /^explorer\\/assets\\/main-[A-Z0-9]+\\.js$/.test(e.getAttribute('src'))))
    .map((e) => e.outerHTML),
  handlers: [...document.querySelectorAll('*')].flatMap((e) =>
    [...e.attributes].filter((a) => a.name.startsWith('on')).map((a) => e.tagName + ' ' + a.name)),
  urls: [...document.querySelectorAll('[href], [src], [action]')].map((e) =>
    new URL(e.getAttribute('href') ?? e.getAttribute('src') ?? e.getAttribute('action'), document.baseURI).href),
}))()`;

describe('hostile chain strings in the explorer (headless Chromium)', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  for (const kind of STORE_KINDS) {
    describe(`on ${kind}`, () => {
      const served = useServedStore(kind, { ingest: { stdin: `${CHAIN}\n` } });

      /** A new page at `path`, waited on until its view is shown. */
      async function open(path: string): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
        const context = await browser.newContext();
        const page = await context.newPage();
        const problems = await watchPage(page, served.url);
        const res = await page.goto(`${served.url}${path}`);
        assert.equal(res?.status(), 200, path);
        assert.equal(res?.headers()['content-security-policy'], EXPLORER_CSP, path);
        await page.locator('main:not([aria-busy]) h1').waitFor();
        return { context, page, problems };
      }

      /** Nothing of the page came of its strings but text, and nothing went wrong. */
      async function assertOnlyText(page: Page, problems: PageProblems, path: string): Promise<void> {
        const found = (await page.evaluate(INJECTION)) as Injection;
        assert.deepEqual(found.injected, [], `${path}: elements made of strings`);
        assert.deepEqual(found.foreignElements, [], `${path}: images and scripts`);
        assert.deepEqual(found.handlers, [], `${path}: event handler attributes`);
        const origin = new URL(served.url).origin;
        // The favicon is the empty data: URL of index.html; everything else is this server's.
        const elsewhere = found.urls.filter((u) => u !== 'data:,' && new URL(u).origin !== origin);
        assert.deepEqual(elsewhere, [], `${path}: links and sources leading elsewhere`);
        assert.ok(found.urls.length > 5, `${path}: its links were read (${found.urls.length})`);
        assert.deepEqual(problems.dialogs, [], `${path}: dialogs`);
        assert.deepEqual(problems.violations, [], `${path}: Content-Security-Policy violations`);
        assert.deepEqual(problems.errors, [], `${path}: page and console errors`);
        assert.deepEqual(problems.failures, [], `${path}: failed requests`);
        assert.deepEqual(problems.foreign, [], `${path}: requests to other origins`);
      }

      const text = (page: Page, selector: string) => page.locator(selector).textContent();

      test("the team's name is its heading's and title's text, in the list and on its page", async () => {
        const list = await open('/explorer/teams');
        try {
          const names = await list.page
            .locator('#teams tbody td:first-child a')
            .evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
          assert.deepEqual(
            [...names].sort(),
            [
              [TEAM_NAME, `explorer/teams/${TEAM}`],
              [LINK_TEAM_NAME, `explorer/teams/${LINK_TEAM}`],
            ].sort(),
          );
          await assertOnlyText(list.page, list.problems, '/explorer/teams');
        } finally {
          await list.context.close();
        }

        // Listed for its 3 epochs: the leaderboard and its chart; for the default 10: the rule explained.
        for (const path of [`/explorer/teams/${TEAM}?epochs=3`, `/explorer/teams/${TEAM}`]) {
          const { context, page, problems } = await open(path);
          try {
            assert.equal(await text(page, 'h1'), TEAM_NAME, path);
            assert.equal(await page.title(), `${TEAM_NAME} · epochview`, path);
            if (path.endsWith('epochs=3')) assert.equal(await page.locator('#leaderboard tbody tr').count(), 2);
            else assert.match((await text(page, '.explain'))!, /each of its last 3 epochs/);
            await assertOnlyText(page, problems, path);
          } finally {
            await context.close();
          }
        }
      });

      test("a team named like a javascript: URL is a link's text, and its link leads to its page", async () => {
        const { context, page, problems } = await open('/explorer/teams');
        try {
          await page.getByRole('link', { name: LINK_TEAM_NAME, exact: true }).click();
          await page.waitForURL(`${served.url}/explorer/teams/${LINK_TEAM}`);
          await page.locator('main:not([aria-busy]) h1', { hasText: LINK_TEAM_NAME }).waitFor();
          assert.equal(await text(page, 'h1'), LINK_TEAM_NAME);
          await assertOnlyText(page, problems, `/explorer/teams/${LINK_TEAM}`);
        } finally {
          await context.close();
        }
      });

      test("the asset's name and symbol are the text of its option, amounts and title", async () => {
        const { context, page, problems } = await open('/explorer/rewards');
        try {
          assert.equal(await page.locator('#asset').inputValue(), ASSET);
          assert.equal(await text(page, '#asset option:checked'), `${ASSET_SYMBOL} · ${ASSET_NAME}`);
          assert.equal(await page.title(), `Rewards in ${ASSET_SYMBOL} · epochview`);
          const amounts = await page.locator('#summaries tbody td:nth-child(4) span').allTextContents();
          assert.deepEqual(amounts, [`12.34 ${ASSET_SYMBOL}`, `12.34 ${ASSET_SYMBOL}`, `12.34 ${ASSET_SYMBOL}`]);
          assert.match((await text(page, '.units'))!, new RegExp(`Amounts in ${ASSET_SYMBOL.replace(/[()]/g, '\\$&')}\\.$`));
          await page.locator('.plot canvas').first().waitFor({ state: 'visible' });
          await assertOnlyText(page, problems, '/explorer/rewards');
        } finally {
          await context.close();
        }
      });

      test('strings from the URL (a team search, a referral set lookup) show as text too', async () => {
        const cases: [string, string, string][] = [
          [`/explorer/teams?q=${encodeURIComponent(SEARCH)}`, '#team-search', `Teams matching “${SEARCH}”, newest first`],
          [`/explorer/referral-sets?referee=${encodeURIComponent(LOOKUP)}`, '#lookup-id', `“${LOOKUP}” is not an id`],
        ];
        for (const [path, input, shown] of cases) {
          const { context, page, problems } = await open(path);
          try {
            assert.equal(await page.locator(input).inputValue(), path.includes('q=') ? SEARCH : LOOKUP);
            assert.ok((await page.locator('main').textContent())!.includes(shown), `${path}: ${shown}`);
            if (path.includes('q=')) {
              const found = await page.locator('#teams [data-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
              assert.deepEqual(found, [TEAM], 'the search finds the team');
            }
            await assertOnlyText(page, problems, path);
          } finally {
            await context.close();
          }
        }
      });

      test('the browser enforces the policy: markup given as a string and inline script are refused, and reported', async () => {
        const { context, page, problems } = await open('/');
        try {
          await assertOnlyText(page, problems, '/');
          // (Evaluated through the browser's developer protocol, which the policy does not bind:
          // what it refuses is the page's DOM being given markup or an inline script.)
          const outcome = await page.evaluate(`(() => {
            const markup = (() => {
              try {
                document.querySelector('main').insertAdjacentHTML('beforeend', '<b id="pwned-markup">x</b>');
                return 'inserted';
              } catch (e) {
                return e.name;
              }
            })();
            const script = document.createElement('script');
            script.id = 'pwned-script';
            try {
              script.text = 'window.pwned = true';
            } catch (e) {}
            document.body.append(script);
            return { markup, ran: window.pwned === true, element: document.getElementById('pwned-markup') !== null };
          })()`);
          assert.deepEqual(outcome, { markup: 'TypeError', ran: false, element: false });
          // Each refusal is reported.
          await eventually('the violations reported', () => problems.violations.length >= 2);
          assert.deepEqual(problems.violations, [
            `${served.url}/ require-trusted-types-for trusted-types-sink Element insertAdjacentHTML|<b id="pwned-markup">x</b>`,
            `${served.url}/ require-trusted-types-for trusted-types-sink HTMLScriptElement text|window.pwned = true`,
          ]);
        } finally {
          await context.close();
        }
      });
    });
  }
});
