/**
 * Two builds of the service, measured in one run: the same lists of distinct URLs against each,
 * interleaved scenario by scenario, with wrk (2 threads) cycling through a list per scenario.
 * Start both servers yourself (same data, e.g. `serve --response-cache-mb 0 --log-level info
 * >/dev/null` on two copies of one database, as bench/run.ts starts them), then:
 *
 *   node --import tsx bench/compare.ts --a http://127.0.0.1:4001 --b http://127.0.0.1:4002 \
 *        --database-url postgres://…/db-of-b [--duration 5] [--concurrency 1,32] [--urls 1000]
 *
 * Ids (referees, teams) are read from the database; cursors from a full walk of each ordering
 * over HTTP. Before measuring, every URL's body is compared between the two servers.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';

const { values: opts } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    'database-url': { type: 'string' },
    duration: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '1,32' },
    urls: { type: 'string', default: '1000' },
    scenarios: { type: 'string', default: '' },
  },
});
if (!opts.a || !opts.b || !opts['database-url']) throw new Error('--a, --b and --database-url are required');
const servers = { a: opts.a, b: opts.b };
const count = Number(opts.urls);
const enc = encodeURIComponent;

/** A deterministic shuffle-and-take, so both servers get the same list in the same order. */
function sample<T>(items: readonly T[], n: number): T[] {
  let seed = 42;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  const out: T[] = [];
  while (out.length < n && copy.length > 0) out.push(...copy.slice(0, n - out.length));
  return out;
}

async function cursors(path: string): Promise<string[]> {
  const all: string[] = [];
  let after: string | undefined;
  for (;;) {
    const res = await fetch(
      `${servers.b}${path}${path.includes('?') ? '&' : '?'}pagination.first=5000${after ? `&pagination.after=${enc(after)}` : ''}`,
    );
    const page = Object.values(
      (await res.json()) as Record<string, { edges: { cursor: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string } }>,
    )[0]!;
    all.push(...page.edges.map((e) => e.cursor));
    if (!page.pageInfo.hasNextPage) return all;
    after = page.pageInfo.endCursor;
  }
}

const db = new pg.Client({ connectionString: opts['database-url'] });
await db.connect();
const column = async (sql: string) => (await db.query<{ v: string }>(sql)).rows.map((r) => r.v);
const last = (await column(`SELECT last_ended_epoch::text AS v FROM chain_head`))[0];
const teamsEligibleFor = (n: number) =>
  column(
    `SELECT encode(team_id, 'hex') AS v FROM team_epochs WHERE epoch BETWEEN ${last} - ${n - 1} AND ${last} GROUP BY team_id HAVING count(*) = ${n}`,
  );
const referees = await column(`SELECT encode(referee, 'hex') AS v FROM referral_set_referees`);
const referrers = await column(`SELECT DISTINCT encode(referrer, 'hex') AS v FROM referral_sets`);
const teams30 = await teamsEligibleFor(30);
const teams10 = await teamsEligibleFor(10);
const [largest] = await column(
  `SELECT encode(team_id, 'hex') AS v FROM team_parties WHERE team_id IN (SELECT decode(x, 'hex') FROM unnest('{${teams30.join(',')}}'::text[]) AS x)
    AND last_epoch >= ${last} - 29 GROUP BY team_id ORDER BY count(*) DESC LIMIT 1`,
);
await db.end();

const setCursors = await cursors('/api/v2/referral-sets');
const summaryCursors = await cursors('/api/v2/rewards/epoch/summaries');
const teamCursors = await cursors(`/api/v2/teams/${largest}/stats?aggregationEpochs=30`);

const scenarios: Record<string, string[]> = {
  'referral-sets default (1,000 rows, random cursor)': sample(setCursors, count).map(
    (c) => `/api/v2/referral-sets?pagination.after=${enc(c)}`,
  ),
  'referral-sets first=50 (random cursor)': sample(setCursors, count).map(
    (c) => `/api/v2/referral-sets?pagination.first=50&pagination.after=${enc(c)}`,
  ),
  'referral-sets last=50 (random cursor)': sample(setCursors, count).map(
    (c) => `/api/v2/referral-sets?pagination.last=50&pagination.before=${enc(c)}`,
  ),
  'referral-sets referee lookup': sample(referees, count).map((r) => `/api/v2/referral-sets?referee=${r}`),
  'referral-sets referrer lookup': sample(referrers, count).map((r) => `/api/v2/referral-sets?referrer=${r}`),
  'summaries default (1,000 rows, random cursor)': sample(summaryCursors, count).map(
    (c) => `/api/v2/rewards/epoch/summaries?pagination.after=${enc(c)}`,
  ),
  'summaries first=50 (random cursor)': sample(summaryCursors, count).map(
    (c) => `/api/v2/rewards/epoch/summaries?pagination.first=50&pagination.after=${enc(c)}`,
  ),
  'summaries last=50 (random cursor)': sample(summaryCursors, count).map(
    (c) => `/api/v2/rewards/epoch/summaries?pagination.last=50&pagination.before=${enc(c)}`,
  ),
  'team-stats random team, default (N=10)': sample(teams10, count).map((t) => `/api/v2/teams/${t}/stats`),
  'team-stats random team, N=30': sample(teams30, count).map((t) => `/api/v2/teams/${t}/stats?aggregationEpochs=30`),
  'team-stats largest team N=30 first=50 (random cursor)': sample(teamCursors, count).map(
    (c) => `/api/v2/teams/${largest}/stats?aggregationEpochs=30&pagination.first=50&pagination.after=${enc(c)}`,
  ),
  'team-stats largest team N=30, whole page': [`/api/v2/teams/${largest}/stats?aggregationEpochs=30`],
};
const selected = Object.entries(scenarios).filter(([name]) => !opts.scenarios || opts.scenarios.split(',').some((s) => name.includes(s)));

// The same body from both builds, for every URL (a few per scenario when the list is long).
for (const [name, urls] of selected) {
  for (const url of sample(urls, 50)) {
    const [x = '', y = ''] = await Promise.all(
      [servers.a, servers.b].map((s) => fetch(`${s}${url}`).then(async (r) => `${r.status} ${await r.text()}`)),
    );
    if (x !== y) throw new Error(`${name}: bodies differ for ${url}:\n${x.slice(0, 300)}\n${y.slice(0, 300)}`);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'epochview-compare-'));
function wrk(base: string, urls: string[], connections: number) {
  const list = join(dir, 'urls.txt');
  writeFileSync(list, urls.join('\n'));
  const script = join(dir, 'urls.lua');
  writeFileSync(
    script,
    `local urls = {}
for line in io.lines("${list}") do urls[#urls + 1] = line end
local i = 0
setup = function(thread) thread:set("offset", i * 7919); i = i + 1 end
request = function()
  offset = offset + 1
  return wrk.format("GET", urls[(offset % #urls) + 1])
end
done = function(summary, latency)
  local e = summary.errors
  io.write(string.format('\\n{"requests":%d,"micros":%d,"errors":%d,"p50":%d,"p99":%d}\\n', summary.requests, summary.duration,
    e.status + e.connect + e.read + e.write + e.timeout, latency:percentile(50), latency:percentile(99)))
end
`,
  );
  const res = spawnSync(
    'wrk',
    [`-t${Math.min(2, connections)}`, `-c${connections}`, `-d${opts.duration}s`, '--timeout', '10s', '-s', script, base],
    { encoding: 'utf8' },
  );
  const r = JSON.parse(res.stdout.trim().split('\n').pop()!) as {
    requests: number;
    micros: number;
    errors: number;
    p50: number;
    p99: number;
  };
  return { rps: r.requests / (r.micros / 1e6), p50: r.p50 / 1000, p99: r.p99 / 1000, errors: r.errors };
}

console.log(`| scenario | distinct URLs | c | A req/s | B req/s | B ÷ A | A p50 / p99 ms | B p50 / p99 ms | errors | load (1 min) |`);
console.log(`|---|---|---|---|---|---|---|---|---|---|`);
for (const [name, urls] of selected) {
  for (const c of opts.concurrency.split(',').map(Number)) {
    // Warm both, then measure A, B, A, B and keep each one's better run.
    wrk(servers.a, urls, c);
    wrk(servers.b, urls, c);
    const runs = [wrk(servers.a, urls, c), wrk(servers.b, urls, c), wrk(servers.a, urls, c), wrk(servers.b, urls, c)];
    const best = (xs: typeof runs) => xs.reduce((m, x) => (x.rps > m.rps ? x : m));
    const a = best([runs[0]!, runs[2]!]);
    const b = best([runs[1]!, runs[3]!]);
    const f = (x: number) => x.toFixed(x < 10 ? 1 : 0);
    console.log(
      `| ${name} | ${new Set(urls).size} | ${c} | ${f(a.rps)} | ${f(b.rps)} | ${(b.rps / a.rps).toFixed(2)} | ${f(a.p50)} / ${f(a.p99)} | ${f(b.p50)} / ${f(b.p99)} | ${runs.reduce((s, r) => s + r.errors, 0)} | ${loadavg()[0]!.toFixed(1)} |`,
    );
  }
}
