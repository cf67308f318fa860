import type { IngestProgress, IngestSummary } from './ingest.js';

/** Progress and summary lines for a human watching an ingest on stderr. */
export function progressLine(p: IngestProgress, fraction: number | undefined, tty: boolean): string {
  const rate = p.seconds > 0 ? Math.round(p.events / p.seconds) : 0;
  const text = `height ${p.height ?? '-'}  ${p.events.toLocaleString('en-US')} events  ${rate.toLocaleString('en-US')} events/s`;
  if (!tty || fraction === undefined) return text;
  const width = 30;
  const filled = Math.round(Math.min(1, fraction) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(1).padStart(5)}%  ${text}`;
}

export function summaryText(s: IngestSummary): string {
  const applied = [...s.applied].sort(([a], [b]) => a.localeCompare(b));
  const skipped = [...s.skipped].sort(([a], [b]) => a.localeCompare(b));
  const total = applied.reduce((n, [, c]) => n + c, 0);
  const lines = [
    `ingested ${s.blocksApplied} blocks (${s.blocksSkipped} already applied, skipped), ${total} events in ${s.seconds.toFixed(2)} s` +
      (s.seconds > 0 ? ` (${Math.round(total / s.seconds)} events/s)` : ''),
    `last height: ${s.lastHeight ?? '-'}`,
    'applied:',
    ...applied.map(([k, n]) => `  ${k.padEnd(28)} ${n}`),
    `skipped: ${skipped.reduce((n, [, c]) => n + c, 0)}`,
    ...skipped.map(([k, n]) => `  ${k.padEnd(44)} ${n}`),
  ];
  if (s.incomplete) lines.push(`warning: block ${s.incomplete.height} (line ${s.incomplete.line}) has no endBlock; not applied`);
  return lines.join('\n');
}
