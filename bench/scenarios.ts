import { distinctUrls, pick, type Population, type Rand } from './sample.js';

/**
 * The requests measured. Each scenario is a kind of request (a page size, a filter), and each
 * measurement of it runs a list of distinct URLs of that kind drawn from the store measured (see
 * sample.ts): random cursors from a full walk of the ordering, random referees, referrers,
 * teams, parties, assets and epoch ranges. So every scale asks the same kinds of questions of
 * its own data, and a response cache only hits what real traffic would let it hit.
 */
export interface Scenario {
  /** resource/name, e.g. referral-sets/first50 (the resources as the code names them); --scenarios selects on it. */
  id: string;
  resource: 'referral-sets' | 'team-member-stats' | 'epoch-reward-summaries' | 'teams-statistics';
  name: string;
  /** What it asks, for the table. */
  description: string;
  /** Distinct URLs (path and query), in a shuffled order. */
  urls: string[];
  /** The page size asked for (the target that applies depends on it). */
  pageSize: number;
}

const enc = encodeURIComponent;
const SETS = '/api/v2/referral-sets';
const SUMMARIES = '/api/v2/rewards/epoch/summaries';
const stats = (team: string) => `/api/v2/teams/${team}/stats`;
const TEAMS_STATS = '/api/v2/teams/stats';

interface ScenarioKind {
  resource: Scenario['resource'];
  name: string;
  description: string;
  pageSize: number;
  /** A random URL of this kind, or undefined when the data has none. */
  url(p: Population, rand: Rand): string | undefined;
}

/** A random element, or undefined of an empty list. */
const any = <T>(rand: Rand, xs: readonly T[]): T | undefined => (xs.length === 0 ? undefined : pick(rand, xs));

const ALL_SCENARIOS: readonly ScenarioKind[] = [
  {
    resource: 'referral-sets',
    name: 'default',
    description: 'no page size (1,000 rows) after a random cursor',
    pageSize: 1000,
    url: (p, r) => with1(any(r, p.cursors.referralSets), (c) => `${SETS}?pagination.after=${enc(c)}`),
  },
  {
    resource: 'referral-sets',
    name: 'first50',
    description: 'first=50 after a random cursor',
    pageSize: 50,
    url: (p, r) => with1(any(r, p.cursors.referralSets), (c) => `${SETS}?pagination.first=50&pagination.after=${enc(c)}`),
  },
  {
    resource: 'referral-sets',
    name: 'last50',
    description: 'last=50 before a random cursor',
    pageSize: 50,
    url: (p, r) => with1(any(r, p.cursors.referralSets), (c) => `${SETS}?pagination.last=50&pagination.before=${enc(c)}`),
  },
  {
    resource: 'referral-sets',
    name: 'referee',
    description: 'a random referee',
    pageSize: 1000,
    url: (p, r) => with1(any(r, p.keys.referees), (x) => `${SETS}?referee=${x}`),
  },
  {
    resource: 'referral-sets',
    name: 'referrer',
    description: 'a random referrer',
    pageSize: 1000,
    url: (p, r) => with1(any(r, p.keys.referrers), (x) => `${SETS}?referrer=${x}`),
  },
  {
    resource: 'team-member-stats',
    name: 'default',
    description: 'a random team, no parameters (N=10, 1,000 rows), after a random cursor',
    pageSize: 1000,
    url: (p, r) => with1(any(r, p.cursors.teamStats), (c) => `${stats(c.team)}?pagination.after=${enc(c.cursor)}`),
  },
  {
    resource: 'team-member-stats',
    name: 'agg10',
    description: 'aggregationEpochs=10, first=200, a random team and cursor',
    pageSize: 200,
    url: (p, r) =>
      with1(
        any(r, p.cursors.teamStats),
        (c) => `${stats(c.team)}?aggregationEpochs=10&pagination.first=200&pagination.after=${enc(c.cursor)}`,
      ),
  },
  {
    resource: 'team-member-stats',
    name: 'agg30',
    description:
      'aggregationEpochs=30, first=200, a random cursor of a team listed for 30 epochs (none: of any team, whose pages are then empty)',
    pageSize: 200,
    url: (p, r) =>
      with1(
        any(r, cursorsOfTeams30(p)),
        (c) => `${stats(c.team)}?aggregationEpochs=30&pagination.first=200&pagination.after=${enc(c.cursor)}`,
      ),
  },
  {
    resource: 'team-member-stats',
    name: 'first50',
    description: 'first=50, a random team and cursor',
    pageSize: 50,
    url: (p, r) => with1(any(r, p.cursors.teamStats), (c) => `${stats(c.team)}?pagination.first=50&pagination.after=${enc(c.cursor)}`),
  },
  {
    resource: 'team-member-stats',
    name: 'last50',
    description: 'last=50, a random team and cursor',
    pageSize: 50,
    url: (p, r) => with1(any(r, p.cursors.teamStats), (c) => `${stats(c.team)}?pagination.last=50&pagination.before=${enc(c.cursor)}`),
  },
  {
    resource: 'team-member-stats',
    name: 'party',
    description: 'a random member of a random team',
    pageSize: 1,
    url: (p, r) => with1(any(r, p.keys.parties), (x) => `${stats(x.team)}?partyId=${x.party}`),
  },
  {
    resource: 'epoch-reward-summaries',
    name: 'default',
    description: 'no page size (1,000 rows) after a random cursor',
    pageSize: 1000,
    url: (p, r) => with1(any(r, p.cursors.summaries), (c) => `${SUMMARIES}?pagination.after=${enc(c)}`),
  },
  {
    resource: 'epoch-reward-summaries',
    name: 'first50',
    description: 'first=50 after a random cursor',
    pageSize: 50,
    url: (p, r) => with1(any(r, p.cursors.summaries), (c) => `${SUMMARIES}?pagination.first=50&pagination.after=${enc(c)}`),
  },
  {
    resource: 'epoch-reward-summaries',
    name: 'last50',
    description: 'last=50 before a random cursor',
    pageSize: 50,
    url: (p, r) => with1(any(r, p.cursors.summaries), (c) => `${SUMMARIES}?pagination.last=50&pagination.before=${enc(c)}`),
  },
  {
    resource: 'epoch-reward-summaries',
    name: 'asset',
    description: 'a random asset, 1,000 rows after a random cursor',
    pageSize: 1000,
    url: (p, r) =>
      with1(
        any(r, p.keys.assets),
        (a) =>
          `${SUMMARIES}?filter.assetIds=${a}${p.cursors.summaries.length > 0 ? `&pagination.after=${enc(pick(r, p.cursors.summaries))}` : ''}`,
      ),
  },
  {
    resource: 'epoch-reward-summaries',
    name: 'epochs',
    description: 'a random range of 1 to 10 epochs',
    pageSize: 1000,
    url: (p, r) => {
      if (p.keys.maxEpoch < 1) return undefined;
      const from = 1 + Math.floor(r() * p.keys.maxEpoch);
      return `${SUMMARIES}?filter.fromEpoch=${from}&filter.toEpoch=${from + Math.floor(r() * 10)}`;
    },
  },
  // The console's leaderboard (TeamsStatistics.graphql: every team, N = 30 on mainnet, 192 elsewhere) and team page (Team.graphql).
  {
    resource: 'teams-statistics',
    name: 'agg30',
    description: 'aggregationEpochs=30, no page size (1,000 rows: the leaderboard) after a random team cursor',
    pageSize: 1000,
    url: (p, r) => with1(any(r, p.cursors.teamsStats), (c) => `${TEAMS_STATS}?aggregationEpochs=30&pagination.after=${enc(c)}`),
  },
  {
    resource: 'teams-statistics',
    name: 'agg192',
    description: 'aggregationEpochs=192, no page size (1,000 rows: the leaderboard) after a random team cursor',
    pageSize: 1000,
    url: (p, r) => with1(any(r, p.cursors.teamsStats), (c) => `${TEAMS_STATS}?aggregationEpochs=192&pagination.after=${enc(c)}`),
  },
  {
    resource: 'teams-statistics',
    name: 'team30',
    description: 'aggregationEpochs=30, a random team',
    pageSize: 1,
    url: (p, r) =>
      p.cursors.teamsStats.length === 0 ? undefined : with1(any(r, p.keys.teams), (t) => `${TEAMS_STATS}?aggregationEpochs=30&teamId=${t}`),
  },
];

const ofTeams30 = new WeakMap<Population, Population['cursors']['teamStats']>();

/**
 * The team statistics cursors of the teams listed for 30 epochs (kept once per population). A
 * random one of them, like the other team scenarios' random cursor, asks of teams in proportion
 * to their members: a random team first would mostly be a team of one or two, whose page after
 * its cursor is empty or nearly (the median team has 2 members active in the last 10 epochs
 * on the medium chain: agg30 pages held 1 row on average on mainnet, 2 on medium, that way).
 * A chain shorter than 30 epochs lists no team: all the cursors then, so the scenario still runs.
 */
function cursorsOfTeams30(p: Population): Population['cursors']['teamStats'] {
  let cursors = ofTeams30.get(p);
  if (!cursors) {
    const teams = new Set(p.keys.teams30);
    cursors = p.cursors.teamStats.filter((c) => teams.has(c.team));
    if (cursors.length === 0) cursors = p.cursors.teamStats;
    ofTeams30.set(p, cursors);
  }
  return cursors;
}

function with1<T>(x: T | undefined, f: (x: T) => string): string | undefined {
  return x === undefined ? undefined : f(x);
}

export const SCENARIO_IDS: readonly string[] = ALL_SCENARIOS.map((s) => `${s.resource}/${s.name}`);

/** The resources' names before they took the code's (results and commands of that time use them). */
const FORMER_NAMES: Record<string, string> = { 'team-stats': 'team-member-stats', summaries: 'epoch-reward-summaries' };

/**
 * The scenarios selected by `patterns` (each a scenario id, a resource, or a name such as
 * first50 that selects it in every resource; a resource by its former name too); all when empty.
 */
export function selectScenarioIds(patterns: readonly string[]): string[] {
  if (patterns.length === 0) return [...SCENARIO_IDS];
  const current = (p: string) => p.replace(/^[^/]+/, (resource) => FORMER_NAMES[resource] ?? resource);
  const matches = (id: string, p: string) => id === current(p) || id.startsWith(`${current(p)}/`) || id.endsWith(`/${p}`);
  const selected = SCENARIO_IDS.filter((id) => patterns.some((p) => matches(id, p)));
  const unknown = patterns.filter((p) => !SCENARIO_IDS.some((id) => matches(id, p)));
  if (unknown.length > 0) throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIO_IDS.join(', ')}`);
  return selected;
}

/** The selected scenarios, each with up to `perScenario` distinct URLs (fewer where the data has fewer; none: left out). */
export function buildScenarios(ids: readonly string[], p: Population, perScenario: number, rand: Rand): Scenario[] {
  const out: Scenario[] = [];
  for (const s of ALL_SCENARIOS) {
    if (!ids.includes(`${s.resource}/${s.name}`)) continue;
    const first = s.url(p, rand);
    if (first === undefined) continue;
    const urls = distinctUrls(perScenario, () => s.url(p, rand)!);
    out.push({
      id: `${s.resource}/${s.name}`,
      resource: s.resource,
      name: s.name,
      description: s.description,
      urls,
      pageSize: s.pageSize,
    });
  }
  return out;
}

/**
 * n distinct URLs mixed from every scenario, in turn, for a load of many kinds of request at once
 * (bench/live.ts); the scenarios with the fewest URLs run out first.
 */
export function mixedUrls(p: Population, n: number, rand: Rand): string[] {
  const kinds = ALL_SCENARIOS.filter((s) => s.url(p, rand) !== undefined);
  const urls = new Set<string>();
  for (let tries = 0; urls.size < n && tries < n * 20; tries++) urls.add(kinds[tries % kinds.length]!.url(p, rand)!);
  return [...urls];
}
