import type { Store } from '../src/db/store.js';

/**
 * The requests measured. Ids, cursors and the team come from the store being measured, so
 * every scale asks the same questions of its own data: the middle referee, the referrer with
 * the most sets, the asset with the most summaries, a five-epoch range in the middle, the
 * largest team eligible for 30 epochs, and real cursors from the middle of each ordering.
 */
export interface Scenario {
  /** operation/name, e.g. referral-sets/first50; --scenarios selects on it. */
  id: string;
  operation: 'referral-sets' | 'team-stats' | 'summaries';
  name: string;
  /** What it asks, for the table. */
  description: string;
  /** Path and query. */
  url: string;
  /** The page size asked for (the target that applies depends on it). */
  pageSize: number;
}

export interface Discovered {
  referee: string;
  referrer: string;
  asset: string;
  fromEpoch: string;
  toEpoch: string;
  team: string;
  /** Cursors from the middle of each operation's default ordering. */
  middle: { referralSets: string; teamStats: string; summaries: string };
}

const ALL_SCENARIOS: readonly { operation: Scenario['operation']; name: string; description: string; pageSize: number; query: (d: Discovered) => string }[] = [
  { operation: 'referral-sets', name: 'default', description: 'no parameters, 1,000 rows', pageSize: 1000, query: () => '' },
  { operation: 'referral-sets', name: 'first50', description: 'first=50', pageSize: 50, query: () => 'pagination.first=50' },
  { operation: 'referral-sets', name: 'deep50', description: 'first=50 after a cursor mid-data', pageSize: 50, query: (d) => `pagination.first=50&pagination.after=${enc(d.middle.referralSets)}` },
  { operation: 'referral-sets', name: 'last50', description: 'last=50', pageSize: 50, query: () => 'pagination.last=50' },
  { operation: 'referral-sets', name: 'referee', description: 'referee lookup', pageSize: 1000, query: (d) => `referee=${d.referee}` },
  { operation: 'referral-sets', name: 'referrer', description: 'referrer filter', pageSize: 1000, query: (d) => `referrer=${d.referrer}` },
  { operation: 'team-stats', name: 'default', description: 'largest team, no parameters: N=10, whole team', pageSize: 1000, query: () => '' },
  { operation: 'team-stats', name: 'agg10', description: 'aggregationEpochs=10, first=200', pageSize: 200, query: () => 'aggregationEpochs=10&pagination.first=200' },
  { operation: 'team-stats', name: 'agg30', description: 'aggregationEpochs=30, first=200', pageSize: 200, query: () => 'aggregationEpochs=30&pagination.first=200' },
  { operation: 'team-stats', name: 'first50', description: 'first=50', pageSize: 50, query: () => 'pagination.first=50' },
  { operation: 'team-stats', name: 'deep50', description: 'first=50 after a cursor mid-team', pageSize: 50, query: (d) => `pagination.first=50&pagination.after=${enc(d.middle.teamStats)}` },
  { operation: 'team-stats', name: 'last50', description: 'last=50', pageSize: 50, query: () => 'pagination.last=50' },
  { operation: 'summaries', name: 'default', description: 'no parameters, 1,000 rows', pageSize: 1000, query: () => '' },
  { operation: 'summaries', name: 'first50', description: 'first=50', pageSize: 50, query: () => 'pagination.first=50' },
  { operation: 'summaries', name: 'deep50', description: 'first=50 after a cursor mid-data', pageSize: 50, query: (d) => `pagination.first=50&pagination.after=${enc(d.middle.summaries)}` },
  { operation: 'summaries', name: 'last50', description: 'last=50', pageSize: 50, query: () => 'pagination.last=50' },
  { operation: 'summaries', name: 'asset', description: 'one asset, 1,000 rows', pageSize: 1000, query: (d) => `filter.assetIds=${d.asset}` },
  { operation: 'summaries', name: 'epochs', description: 'five-epoch range', pageSize: 1000, query: (d) => `filter.fromEpoch=${d.fromEpoch}&filter.toEpoch=${d.toEpoch}` },
];

export const SCENARIO_IDS: readonly string[] = ALL_SCENARIOS.map((s) => `${s.operation}/${s.name}`);

const enc = encodeURIComponent;

export function operationPath(operation: Scenario['operation'], d: Pick<Discovered, 'team'>): string {
  switch (operation) {
    case 'referral-sets':
      return '/api/v2/referral-sets';
    case 'team-stats':
      return `/api/v2/teams/${d.team}/stats`;
    case 'summaries':
      return '/api/v2/rewards/epoch/summaries';
  }
}

/**
 * The scenarios selected by `patterns` (each a scenario id, an operation, or a name such as
 * first50 that selects it in every operation); all when empty.
 */
export function selectScenarioIds(patterns: readonly string[]): string[] {
  if (patterns.length === 0) return [...SCENARIO_IDS];
  const selected = SCENARIO_IDS.filter((id) => patterns.some((p) => id === p || id.startsWith(`${p}/`) || id.endsWith(`/${p}`)));
  const unknown = patterns.filter((p) => !SCENARIO_IDS.some((id) => id === p || id.startsWith(`${p}/`) || id.endsWith(`/${p}`)));
  if (unknown.length > 0) throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIO_IDS.join(', ')}`);
  return selected;
}

export function buildScenarios(ids: readonly string[], d: Discovered): Scenario[] {
  return ALL_SCENARIOS.filter((s) => ids.includes(`${s.operation}/${s.name}`)).map((s) => {
    const query = s.query(d);
    return {
      id: `${s.operation}/${s.name}`,
      operation: s.operation,
      name: s.name,
      description: s.description,
      url: operationPath(s.operation, d) + (query ? `?${query}` : ''),
      pageSize: s.pageSize,
    };
  });
}

/** Ids and the team, read from the store (before the server opens it). */
export async function discoverIds(store: Store): Promise<Omit<Discovered, 'middle'>> {
  const one = async (sql: string, params: (string | number)[] = []) => (await store.query<{ v: string | null }>(sql, params))[0]?.v ?? '';
  const referees = Number(await one(`SELECT count(*)::text AS v FROM referral_set_referees`));
  const referee = await one(`SELECT encode(referee, 'hex') AS v FROM referral_set_referees ORDER BY referee OFFSET $1 LIMIT 1`, [Math.floor(referees / 2)]);
  const referrer = await one(`SELECT encode(referrer, 'hex') AS v FROM referral_sets GROUP BY referrer ORDER BY count(*) DESC, referrer LIMIT 1`);
  const asset = await one(`SELECT encode(asset_id, 'hex') AS v FROM epoch_reward_summaries GROUP BY asset_id ORDER BY count(*) DESC, asset_id LIMIT 1`);
  const maxEpoch = BigInt((await one(`SELECT coalesce(max(epoch), 0)::text AS v FROM epoch_reward_summaries`)) || '0');
  const fromEpoch = maxEpoch / 2n;
  const last = (await one(`SELECT coalesce(last_ended_epoch, 0)::text AS v FROM chain_head`)) || '0';
  // The team with the most parties in the last 10 epochs among those with statistics in each of
  // the last 30 (so that aggregationEpochs=30 answers a page), else among all teams.
  const team = async (eligibleEpochs: number) =>
    one(
      `WITH eligible AS (SELECT team_id FROM team_epochs WHERE epoch BETWEEN $1::bigint - $2::bigint + 1 AND $1::bigint
                          GROUP BY team_id HAVING count(*) = $2::bigint)
       SELECT encode(tp.team_id, 'hex') AS v FROM team_parties AS tp JOIN eligible USING (team_id)
        WHERE tp.last_epoch >= $1::bigint - 9 GROUP BY tp.team_id ORDER BY count(*) DESC, tp.team_id LIMIT 1`,
      [last, eligibleEpochs],
    );
  return {
    referee,
    referrer,
    asset,
    fromEpoch: String(fromEpoch),
    toEpoch: String(fromEpoch + 4n),
    team: (await team(30)) || (await team(10)),
  };
}

/** A real cursor from the middle of an ordering: walks it in pages of 5,000 over HTTP. */
export async function middleCursor(baseUrl: string, path: string): Promise<string> {
  const cursors: string[] = [];
  let after: string | undefined;
  for (;;) {
    const url = `${baseUrl}${path}?pagination.first=5000${after ? `&pagination.after=${enc(after)}` : ''}`;
    const res = await fetch(url);
    if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as Record<string, { edges: { cursor: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string } }>;
    const page = Object.values(body)[0]!;
    for (const e of page.edges) cursors.push(e.cursor);
    if (!page.pageInfo.hasNextPage) break;
    after = page.pageInfo.endCursor;
  }
  return cursors[Math.floor(cursors.length / 2)] ?? '';
}
