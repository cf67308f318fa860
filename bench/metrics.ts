import { readFileSync } from 'node:fs';
import type { CacheOutcomes } from './report.js';

/** The response cache's outcome counters of a running service, from its /metrics. */
export async function cacheOutcomes(baseUrl: string): Promise<CacheOutcomes> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const count = (o: string) =>
    Number(new RegExp(`^epochview_response_cache_requests_total\\{outcome="${o}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  const notAdmitted = [...text.matchAll(/^epochview_response_cache_not_admitted_total\{reason="\w+"\} (\d+)/gm)].reduce(
    (n, m) => n + Number(m[1]),
    0,
  );
  return { hit: count('hit'), shared: count('shared'), miss: count('miss'), bypass: count('bypass'), notAdmitted };
}

/** The outcomes counted between two readings. */
export function outcomesSince(before: CacheOutcomes, after: CacheOutcomes): CacheOutcomes {
  return {
    hit: after.hit - before.hit,
    shared: after.shared - before.shared,
    miss: after.miss - before.miss,
    bypass: after.bypass - before.bypass,
    notAdmitted: (after.notAdmitted ?? 0) - (before.notAdmitted ?? 0),
  };
}

/** The outcomes of several measurements together. */
export function totalOutcomes(list: readonly CacheOutcomes[]): CacheOutcomes {
  return list.reduce((t, o) => ({ hit: t.hit + o.hit, shared: t.shared + o.shared, miss: t.miss + o.miss, bypass: t.bypass + o.bypass }), {
    hit: 0,
    shared: 0,
    miss: 0,
    bypass: 0,
  });
}

/** A process's resident set size in MiB (Linux: /proc/<pid>/status). */
export function rssMiB(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for process ${pid}`);
  return Number(m[1]) / 1024;
}
