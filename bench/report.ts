import type { IngestResult } from './ingest.js';
import type { LoadResult } from './load.js';
import type { Scenario } from './scenarios.js';

/** How the response cache answered during a measurement (from /metrics). */
export interface CacheOutcomes {
  hit: number;
  shared: number;
  miss: number;
  bypass: number;
  /** Of the misses, those whose answer was not kept (their URL's first request); absent in older results. */
  notAdmitted?: number;
}

export interface PageMeasurement {
  /** The scenario, its URLs left out (they are in the results' `urls`). */
  scenario: Omit<Scenario, 'urls'>;
  /** Distinct URLs the load ran over. */
  urls: number;
  concurrency: number;
  /** The service's response cache: off (every request reaches the store) or on. */
  cache: 'off' | 'on';
  /** Mean rows (edges) and bytes of the responses of a sample of the URLs (those the ceiling serves). */
  rows: number;
  bytes: number;
  real: LoadResult;
  ceiling: LoadResult | null;
  outcomes: CacheOutcomes | null;
}

export interface ScaleResult {
  scale: string;
  ingest: (IngestResult & { reused: boolean }) | null;
  /** How many keys the URLs were drawn from. */
  population: Record<string, number>;
  pages: PageMeasurement[];
}

/** The ingest of a real chain's mix (bench/run.ts --mix-scale): an event file, mostly other kinds. */
export interface MixResult {
  scale: string;
  /** The share of blocks with events of ours, and where it comes from. */
  ourShare: number;
  shareSource: string;
  /** The mean of other kinds per block. */
  otherEvents: number;
  /** The load average as the ingest started. */
  load: string;
  /** events: of ours, allEvents: every event of the file. */
  ingest: IngestResult;
}

export interface RunResult {
  store: 'postgres' | 'pglite';
  date: string;
  machine: string;
  versions: string;
  settings: string;
  scales: ScaleResult[];
  /** Absent in older results, and with --mix-scale none. */
  mix?: MixResult;
}

/** Targets of the benchmarks issue. */
export const TARGETS = {
  ingestEventsPerSec: 50_000,
  /** Every event of a real chain's mix, from an event file. */
  mixEventsPerSec: 1_000_000,
  smallPageP99Ms: 10,
  smallPageConcurrency: 32,
  fullPageCeilingShare: 0.5,
  p50Growth: 1.5,
};

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');
const pct = (n: number) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : '-');
/** Hits over all requests the cache saw. */
export const hitRatio = (o: CacheOutcomes) => o.hit / Math.max(1, o.hit + o.shared + o.miss + o.bypass);
const ratio = (m: PageMeasurement) => (m.ceiling ? m.real.reqPerSec / m.ceiling.reqPerSec : NaN);

interface Check {
  ok: boolean;
  text: string;
}

function checks(run: RunResult): Check[] {
  const out: Check[] = [];
  if (run.store === 'postgres') {
    for (const s of run.scales) {
      if (!s.ingest) continue;
      out.push({
        ok: s.ingest.eventsPerSec >= TARGETS.ingestEventsPerSec,
        text: `ingest ${s.scale}: ${int(s.ingest.eventsPerSec)} events/s (target ≥ ${int(TARGETS.ingestEventsPerSec)})`,
      });
    }
  }
  if (run.store === 'postgres' && run.mix) {
    const i = run.mix.ingest;
    out.push({
      ok: i.allEventsPerSec! >= TARGETS.mixEventsPerSec,
      text: `ingest of the ${run.mix.scale} mix (event file): ${int(i.allEventsPerSec!)} events/s, ${int(i.eventsPerSec)} of ours (target ≥ ${int(TARGETS.mixEventsPerSec)} events/s)`,
    });
  }
  for (const s of run.scales) {
    for (const m of s.pages) {
      if (m.scenario.pageSize === 50 && m.concurrency === TARGETS.smallPageConcurrency) {
        out.push({
          ok: m.real.p99 <= TARGETS.smallPageP99Ms && m.real.errors === 0,
          text: `${s.scale} ${m.scenario.id} c=${m.concurrency} cache ${m.cache}: p99 ${ms(m.real.p99)} ms (target ≤ ${TARGETS.smallPageP99Ms} ms)${m.ceiling ? `; the ceiling's p99: ${ms(m.ceiling.p99)} ms` : ''}`,
        });
      }
      if (m.scenario.pageSize === 1000 && m.rows >= 900 && m.ceiling) {
        out.push({
          ok: ratio(m) >= TARGETS.fullPageCeilingShare,
          text: `${s.scale} ${m.scenario.id} c=${m.concurrency} cache ${m.cache}: ${pct(ratio(m))} of its ceiling (target ≥ ${pct(TARGETS.fullPageCeilingShare)})`,
        });
      }
    }
  }
  // Scaling: the same scenario on consecutive scales, pages of the same size only (a page that
  // holds more rows because the data has more is compared per row).
  for (let i = 1; i < run.scales.length; i++) {
    const a = run.scales[i - 1]!;
    const b = run.scales[i]!;
    for (const mb of b.pages) {
      const ma = a.pages.find((m) => m.scenario.id === mb.scenario.id && m.concurrency === mb.concurrency && m.cache === mb.cache);
      if (!ma) continue;
      const growth = mb.real.p50 / ma.real.p50;
      if (Math.abs(ma.rows - mb.rows) <= 0.1 * Math.max(ma.rows, mb.rows)) {
        out.push({
          ok: growth < TARGETS.p50Growth,
          text: `p50 ${a.scale}→${b.scale} ${mb.scenario.id} c=${mb.concurrency} cache ${mb.cache}: ×${growth.toFixed(2)} (target < ×${TARGETS.p50Growth})`,
        });
      } else if (ma.rows > 0 && mb.rows > 0) {
        const perRow = mb.real.p50 / mb.rows / (ma.real.p50 / ma.rows);
        out.push({
          ok: perRow < TARGETS.p50Growth,
          text: `p50 per row ${a.scale}→${b.scale} ${mb.scenario.id} c=${mb.concurrency} cache ${mb.cache}: ×${perRow.toFixed(2)} (${ma.rows} → ${mb.rows} rows, p50 ×${growth.toFixed(2)}; target < ×${TARGETS.p50Growth})`,
        });
      }
    }
  }
  return out;
}

/** The results as Markdown: header, ingest table, page table, targets. */
export function renderMarkdown(run: RunResult): string {
  const lines: string[] = [];
  lines.push(`# epochview benchmark: ${run.store === 'postgres' ? 'PostgreSQL server' : 'PGlite (embedded)'}, ${run.date}`, '');
  lines.push(`- machine: ${run.machine}`, `- versions: ${run.versions}`, `- run: ${run.settings}`, '');

  const ingested = run.scales.filter((s) => s.ingest);
  if (ingested.length > 0) {
    lines.push('## Ingest', '', '| chain | events | file MiB | seconds | events/s | peak RSS MiB |', '|---|--:|--:|--:|--:|--:|');
    for (const s of ingested) {
      const i = s.ingest!;
      lines.push(
        `| ${s.scale}${i.reused ? ' (earlier run, store reused)' : ''} | ${int(i.events)} | ${int(i.fileMiB)} | ${i.seconds.toFixed(1)} | ${int(i.eventsPerSec)} | ${int(i.peakRssMiB)} |`,
      );
    }
    lines.push('');
  }

  if (run.mix) {
    const m = run.mix;
    const i = m.ingest;
    lines.push(
      "## Ingest of a real chain's mix",
      '',
      `The ${m.scale} demo chain as an event file with quiet blocks between its blocks, ${(100 * m.ourShare).toFixed(1)}% of the blocks with events of ours`,
      `(${m.shareSource}), ${m.otherEvents} events of other kinds a block on average (\`epochview demo --our-share ${m.ourShare} --other-events ${m.otherEvents}\`),`,
      "into a fresh store of its own. Events: all the file's (ours, other kinds, block markers); ours: those applied.",
      '',
      '| chain | blocks | events | of ours | file MiB | seconds | events/s | ours/s | CPU s | peak RSS MiB | load |',
      '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
      `| ${m.scale} mix | ${int(i.blocks ?? NaN)} | ${int(i.allEvents!)} | ${int(i.events)} | ${int(i.fileMiB)} | ${i.seconds.toFixed(1)} | ${int(i.allEventsPerSec!)} | ${int(i.eventsPerSec)} | ${i.cpuSeconds?.toFixed(1) ?? '-'} | ${int(i.peakRssMiB)} | ${m.load} |`,
      '',
    );
  }

  const scales = run.scales;
  const head = [
    'scenario',
    'c',
    'cache',
    ...scales.flatMap((s) => [`${s.scale} URLs`, 'rows', 'req/s', 'p50 ms', 'p99 ms', 'err', 'hits', '÷ ceiling']),
  ];
  if (scales.length > 1) head.push(`p50 ×${scales.length > 2 ? ' (last/first)' : ''}`);
  lines.push('## Pages', '', `| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < 1 || i === 2 ? '---' : '--:')).join('|')}|`);
  const keys: { id: string; c: number; cache: string; description: string }[] = [];
  for (const s of scales) {
    for (const m of s.pages) {
      if (!keys.some((k) => k.id === m.scenario.id && k.c === m.concurrency && k.cache === m.cache))
        keys.push({ id: m.scenario.id, c: m.concurrency, cache: m.cache, description: m.scenario.description });
    }
  }
  for (const k of keys) {
    const row: string[] = [`${k.id}: ${k.description}`, String(k.c), k.cache];
    const found = scales.map((s) => s.pages.find((m) => m.scenario.id === k.id && m.concurrency === k.c && m.cache === k.cache));
    for (const m of found) {
      if (!m) row.push('-', '-', '-', '-', '-', '-', '-', '-');
      else
        row.push(
          int(m.urls),
          int(m.rows),
          int(m.real.reqPerSec),
          ms(m.real.p50),
          ms(m.real.p99),
          String(m.real.errors),
          m.outcomes ? pct(hitRatio(m.outcomes)) : '-',
          pct(ratio(m)),
        );
    }
    if (scales.length > 1) {
      const first = found[0];
      const last = found[found.length - 1];
      row.push(first && last ? `×${(last.real.p50 / first.real.p50).toFixed(2)}` : '-');
    }
    lines.push(`| ${row.join(' | ')} |`);
  }
  lines.push('');
  lines.push(
    '`c`: concurrent connections. `URLs`: distinct URLs of the scenario, sampled from the data, sent',
    "in turn. `rows`: mean rows of a sample of their answers. `hits`: the response cache's hits over",
    'the requests it saw. `÷ ceiling`: our req/s divided by the req/s of the same HTTP stack serving',
    "the sample's response bytes from memory, measured alternately in the same run.",
    '',
  );

  const cs = checks(run);
  if (cs.length > 0) {
    lines.push('## Targets', '');
    for (const c of cs) lines.push(`- ${c.ok ? 'met' : '**missed**'}: ${c.text}`);
    lines.push('');
  }
  return lines.join('\n');
}
