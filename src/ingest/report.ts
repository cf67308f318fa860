import type { Store } from '../db/store.js';
import type { EventBatches } from '../sources/events.js';
import { describePosition } from '../sources/input-error.js';
import { ingestEvents, type IngestOptions, type IngestProgress, type IngestSummary } from './ingest.js';

/** Progress and summary lines for a human watching an ingest on stderr. */
function progressLine(p: IngestProgress, fraction: number | undefined, tty: boolean): string {
  const rate = p.seconds > 0 ? Math.round(p.events / p.seconds) : 0;
  const text = `height ${p.height ?? '-'}  ${p.events.toLocaleString('en-US')} events  ${rate.toLocaleString('en-US')} events/s`;
  if (!tty || fraction === undefined) return text;
  const width = 30;
  const filled = Math.round(Math.min(1, fraction) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(1).padStart(5)}%  ${text}`;
}

function summaryText(s: IngestSummary): string {
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
  // Not an error (a re-run over an emptied folder is fine), but the likely sign of a wrong path.
  if (s.blocksApplied + s.blocksSkipped + total + skipped.length === 0 && !s.incomplete) lines.push('warning: the input held no events');
  if (s.incomplete) lines.push(`warning: block ${s.incomplete.height} (${describePosition(s.incomplete.at)}) has no endBlock; not applied`);
  return lines.join('\n');
}

/**
 * Ingests events with progress on stderr (a bar on a terminal, lines otherwise) and a summary at
 * the end: the `ingest` command, and the demo seeding of `serve`.
 */
export async function ingestWithReport(
  store: Store,
  events: EventBatches,
  opts: IngestOptions & { fraction?: () => number | undefined },
): Promise<IngestSummary> {
  const tty = process.stderr.isTTY === true;
  const summary = await ingestEvents(store, events, {
    ...opts,
    onProgress: (p) => {
      const line = progressLine(p, opts.fraction?.(), tty);
      if (tty) process.stderr.write(`\r${line}\x1b[K`);
      else process.stderr.write(`${line}\n`);
    },
  });
  if (tty) process.stderr.write('\r\x1b[K');
  process.stderr.write(`${summaryText(summary)}\n`);
  return summary;
}
