// Chain times are Unix nanoseconds as decimal strings.

/** ISO 8601 in UTC to the millisecond, for <time datetime>. */
export function isoTime(ns: string): string {
  return new Date(Number(BigInt(ns) / 1_000_000n)).toISOString();
}

/** "2024-12-31 23:00:00 UTC" (to the second). */
export function formatUtc(ns: string): string {
  return `${isoTime(ns).slice(0, 19).replace('T', ' ')} UTC`;
}

const UNITS: readonly [string, number][] = [
  ['year', 365 * 86400],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** How long before `nowMs` the time was, in its largest whole unit: "3 days ago". */
export function ago(ns: string, nowMs: number): string {
  const seconds = Math.floor((nowMs - Number(BigInt(ns) / 1_000_000n)) / 1000);
  if (seconds < 0) return 'in the future';
  for (const [unit, size] of UNITS) {
    const n = Math.floor(seconds / size);
    if (n >= 1) return `${n} ${unit}${n === 1 ? '' : 's'} ago`;
  }
  return 'just now';
}
