import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * Headless Chromium for page tests: Debian's (at /usr/bin/chromium, or CHROMIUM_PATH; CI installs
 * it) driven by playwright-core, which downloads no browser of its own. The flags keep it from
 * reaching for Google's hosts, which this machine's closed network refuses.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

/** Keeps a screenshot for people to look at: copied into EPOCHVIEW_SCREENSHOTS when that names a folder. */
export function keepScreenshot(file: string, name: string): void {
  const dir = process.env.EPOCHVIEW_SCREENSHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  copyFileSync(file, join(dir, name));
}

/** What a page did that a test asserts never happens: requests elsewhere, failed requests, errors, CSP violations, dialogs. */
export interface PageProblems {
  foreign: string[];
  failures: string[];
  errors: string[];
  /** Reports of the page's Content-Security-Policy refusing something (its securitypolicyviolation events). */
  violations: string[];
  /** alert(), confirm() or prompt() dialogs (dismissed). */
  dialogs: string[];
}

/** The page's binding that its securitypolicyviolation listener reports through. */
const VIOLATION_BINDING = '__epochviewCspViolation';

/**
 * Records the page's requests to other origins, failed requests, page errors, console errors, CSP
 * violations and dialogs, on every document the page shows. The violation listener is added
 * before any of the page's own scripts run (an init script, which the CSP does not apply to).
 */
export async function watchPage(page: Page, origin: string): Promise<PageProblems> {
  const problems: PageProblems = { foreign: [], failures: [], errors: [], violations: [], dialogs: [] };
  page.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) problems.foreign.push(url);
  });
  // A request cancelled on purpose is not a failure: the explorer aborts a view's requests when the
  // next view starts (router.ts), and a reload or a closing page cancels what is in flight;
  // whether one is still in flight then depends on timing (answers from the HTTP cache come sooner).
  page.on('requestfailed', (r) => {
    const error = r.failure()?.errorText;
    if (error !== 'net::ERR_ABORTED') problems.failures.push(`${r.url()}: ${error}`);
  });
  page.on('pageerror', (e) => problems.errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.errors.push(m.text());
  });
  page.on('dialog', (d) => {
    problems.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  await page.exposeBinding(VIOLATION_BINDING, (_source, report: string) => void problems.violations.push(report));
  // As text: the tests' own types have no DOM.
  await page.addInitScript(`document.addEventListener('securitypolicyviolation', (e) =>
    window.${VIOLATION_BINDING}([e.documentURI, e.effectiveDirective, e.blockedURI, e.sample].join(' ')))`);
  return problems;
}
