import type { SqlParam } from '../src/db/store.js';

/**
 * What the benchmark's requests are drawn from: the keys of the data (referees, referrers,
 * teams, parties, assets, epochs) read from the store, and real cursors from full walks of each
 * ordering over HTTP; a seeded random sequence, so that a run asks the same questions; and
 * sampling of distinct URLs. bench/run.ts, bench/ab.ts and bench/live.ts draw from it.
 */

/** A deterministic random sequence in [0, 1) (mulberry32). */
export function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rand = () => number;

export const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

/** Runs SQL on the measured store (rows with text columns). */
export type QueryRows = <T extends object>(sql: string, params?: readonly SqlParam[]) => Promise<T[]>;

/** The keys of the data, as the store holds them. */
export interface Keys {
  referees: string[];
  referrers: string[];
  assets: string[];
  /** Epochs with reward summaries: 1 … maxEpoch. */
  maxEpoch: number;
  /** Teams listed for aggregationEpochs 10 and 30 (statistics in each of the last N ended epochs). */
  teams10: string[];
  teams30: string[];
  /** Parties with statistics in the last 10 ended epochs of a team of teams10. */
  parties: { team: string; party: string }[];
  /** Every team (ListTeams, and ListTeamsStatistics by team). */
  teams: string[];
}

/** Real cursors of every row of each ordering (team statistics: of each team of teams10, N=10). */
export interface Cursors {
  referralSets: string[];
  summaries: string[];
  teamStats: { team: string; cursor: string }[];
  /** ListTeamsStatistics at aggregationEpochs=192 (every team with statistics in that window); none on a build without it. */
  teamsStats: string[];
}

export interface Population {
  keys: Keys;
  cursors: Cursors;
}

/** The keys, read from the store (before the server opens it: PGlite is one process's). */
export async function readKeys(query: QueryRows): Promise<Keys> {
  const hex = async (sql: string, params: readonly SqlParam[] = []) => (await query<{ h: string }>(sql, params)).map((r) => r.h);
  const last = Number((await query<{ v: string | null }>(`SELECT last_ended_epoch::text AS v FROM chain_head`))[0]?.v ?? 0);
  const eligible = (n: number) =>
    hex(
      `SELECT encode(team_id, 'hex') AS h FROM team_epochs WHERE epoch BETWEEN $1::bigint - $2::bigint + 1 AND $1::bigint
        GROUP BY team_id HAVING count(*) = $2::bigint ORDER BY 1`,
      [last, n],
    );
  const teams10 = await eligible(10);
  const parties = await query<{ team: string; party: string }>(
    `SELECT encode(team_id, 'hex') AS team, encode(party, 'hex') AS party FROM team_parties
      WHERE team_id IN (SELECT decode(x, 'hex') FROM unnest($1::text[]) AS x) AND last_epoch >= $2::bigint - 9 ORDER BY 1, 2`,
    [teams10, last],
  );
  return {
    referees: await hex(`SELECT encode(referee, 'hex') AS h FROM referral_set_referees ORDER BY 1`),
    referrers: await hex(`SELECT DISTINCT encode(referrer, 'hex') AS h FROM referral_sets ORDER BY 1`),
    assets: await hex(`SELECT DISTINCT encode(asset_id, 'hex') AS h FROM epoch_reward_summaries ORDER BY 1`),
    maxEpoch: Number((await query<{ v: string | null }>(`SELECT max(epoch)::text AS v FROM epoch_reward_summaries`))[0]?.v ?? 0),
    teams10,
    teams30: await eligible(30),
    parties,
    teams: await hex(`SELECT encode(id, 'hex') AS h FROM teams ORDER BY 1`),
  };
}

/** The cursor of every row of an ordering: a full forward walk over HTTP in pages of 5,000. */
export async function walkCursors(baseUrl: string, path: string): Promise<string[]> {
  const cursors: string[] = [];
  let after: string | undefined;
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const url = `${baseUrl}${path}${sep}pagination.first=5000${after ? `&pagination.after=${encodeURIComponent(after)}` : ''}`;
    const res = await fetch(url);
    if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
    const page = Object.values(
      (await res.json()) as Record<string, { edges: { cursor: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string } }>,
    )[0]!;
    for (const e of page.edges) cursors.push(e.cursor);
    if (!page.pageInfo.hasNextPage) return cursors;
    after = page.pageInfo.endCursor;
  }
}

/** The cursors of every ordering, walked on a running service. */
export async function readCursors(baseUrl: string, keys: Keys): Promise<Cursors> {
  const teamStats: Cursors['teamStats'] = [];
  for (const team of keys.teams10) {
    for (const cursor of await walkCursors(baseUrl, `/api/v2/teams/${team}/stats?aggregationEpochs=10`)) teamStats.push({ team, cursor });
  }
  return {
    referralSets: await walkCursors(baseUrl, '/api/v2/referral-sets'),
    summaries: await walkCursors(baseUrl, '/api/v2/rewards/epoch/summaries'),
    teamStats,
    teamsStats: await walkCursors(baseUrl, '/api/v2/teams/stats?aggregationEpochs=192').catch(() => []),
  };
}

/**
 * Up to n distinct URLs from a generator of random ones; fewer when the data has fewer (the
 * generator stops giving new ones: 20 tries per URL wanted, at most).
 */
export function distinctUrls(n: number, make: () => string): string[] {
  const urls = new Set<string>();
  for (let tries = 0; urls.size < n && tries < n * 20; tries++) urls.add(make());
  return [...urls];
}

/** The order of a list shuffled (Fisher–Yates), by the seeded sequence. */
export function shuffled<T>(rand: Rand, xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * A request sequence of `length` indices into `count` URLs, Zipf-distributed (exponent s): the
 * k-th most asked URL is asked in proportion to 1/k^s, as popular pages are in real traffic.
 */
export function zipfSequence(rand: Rand, count: number, length: number, s = 1): number[] {
  const cumulative: number[] = [];
  let total = 0;
  for (let k = 1; k <= count; k++) {
    total += 1 / k ** s;
    cumulative.push(total);
  }
  const out: number[] = [];
  for (let i = 0; i < length; i++) {
    const x = rand() * total;
    let lo = 0;
    let hi = count - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    out.push(lo);
  }
  return out;
}
