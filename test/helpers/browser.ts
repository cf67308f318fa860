import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

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
