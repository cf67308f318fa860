// Pieces several views share: reading numbers and ids from the URL, inline notices.

import { ApiFailure } from '../api.js';
import { h } from '../dom.js';

/** Rows per page of the explorer's tables. */
export const PAGE_SIZE = 25;

/** A whole number from the URL within [min, max], else the fallback (also for absent or malformed values). */
export function intParam(params: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const text = params.get(name);
  if (text === null || !/^\d+$/.test(text)) return fallback;
  return Math.min(max, Math.max(min, Number(text)));
}

/** An optional whole number from the URL; undefined when absent, empty or malformed. */
export function optionalInt(params: URLSearchParams, name: string): number | undefined {
  const text = params.get(name);
  return text !== null && /^\d+$/.test(text) ? Number(text) : undefined;
}

/** Names the API accepts for one-byte well-known ids (contract §2). */
const WELL_KNOWN = new Set([
  'VOTE',
  'network',
  'XYZalpha',
  'XYZbeta',
  'XYZdelta',
  'XYZepsilon',
  'XYZgamma',
  'fBTC',
  'fDAI',
  'fEURO',
  'fUSDC',
]);

/** An id the API accepts (even-length hex or a well-known name), as the API writes it; undefined otherwise. */
export function normalId(text: string): string | undefined {
  const t = text.trim();
  if (WELL_KNOWN.has(t)) return t;
  return /^(?:[0-9a-fA-F]{2})*$/.test(t) && t !== '' ? t.toLowerCase() : undefined;
}

/** A message in the page for a failed request that leaves the rest of the view usable. */
export function notice(err: unknown): HTMLElement {
  if (!(err instanceof ApiFailure)) throw err;
  return h('p', { role: 'alert', class: 'error' }, `The server answered ${err.status}: ${err.message}`);
}

/** Reward types read better without their account-type prefix: ACCOUNT_TYPE_REWARD_MAKER_PAID_FEES → "Maker paid fees". */
export function rewardTypeLabel(type: string): string {
  const words = type
    .replace(/^ACCOUNT_TYPE_/, '')
    .replace(/^REWARD_/, '')
    .toLowerCase()
    .replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
