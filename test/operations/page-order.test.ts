/**
 * The order of a page's edges rests on the plan, not on an ORDER BY inside an aggregate: each
 * string_agg joins the rows in the order its input gives them (src/pagination/page-sql.ts; and
 * in team-member-stats/sql.ts each member's epoch entries and games). PostgreSQL documents that a
 * sorted subquery "will usually work", and can fail if the aggregate's own query level reorders
 * the rows (a join, say). This proves, on both stores, that every such aggregate of every page
 * statement reads rows that nothing reordered since the node that put them in order, and that this
 * order is the page's display order (or epoch and game id order): the plans as served and as
 * prepared (generic), under planner settings that make parallel plans free, that take index
 * scans away, and that take sequential scans away. It fails when a plan changes that.
 *
 * The data is the small demo chain, so that every operation has pages, cursors and filters.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import type { Queryable, SqlParam, Store } from '../../src/db/store.js';
import { listEpochRewardSummaries } from '../../src/operations/epoch-reward-summaries/index.js';
import { explorerOverview } from '../../src/operations/explorer-overview/index.js';
import { explorerListTeams } from '../../src/operations/explorer-teams/index.js';
import { parseQuery } from '../../src/contract/query.js';
import type { AnyOperation } from '../../src/operations/operation.js';
import { listReferralSets } from '../../src/operations/referral-sets/index.js';
import { listTeamMembersStatistics } from '../../src/operations/team-member-stats/index.js';
import { listTeams } from '../../src/operations/list-teams/index.js';
import { listTeamsStatistics } from '../../src/operations/list-teams-statistics/index.js';
import { listTeamReferees } from '../../src/operations/list-team-referees/index.js';
import { listTeamRefereeHistory } from '../../src/operations/list-team-referee-history/index.js';
import { RowCache } from '../../src/pagination/row-cache.js';
import { runCli } from '../helpers/cli.js';
import { recordStatements } from '../helpers/explain.js';
import { useServedStore } from '../helpers/served-store.js';
import { STORE_KINDS } from '../helpers/stores.js';

/** A node of EXPLAIN (FORMAT JSON, VERBOSE). */
interface PlanNode {
  'Node Type': string;
  'Parent Relationship'?: string;
  Strategy?: string;
  'Partial Mode'?: string;
  Output?: string[];
  'Sort Key'?: string[];
  'Index Name'?: string;
  'Scan Direction'?: string;
  Plans?: PlanNode[];
}

/** Nodes that pass their (outer) input's rows on in the order they get them. */
const PASS_ON = new Set(['Subquery Scan', 'Limit', 'Nested Loop', 'Result', 'Unique', 'Materialize', 'Memoize', 'Gather Merge']);

/** The order an aggregate must read its rows in: by these columns, descending or not, from a sort or an index scan. */
interface Order {
  columns: readonly string[];
  descending: boolean;
  /** Columns the query fixes to one value: a sort may leave them out of its key (the planner knows they are equal). */
  fixed?: readonly string[];
  /** Indexes whose order (after the columns a branch fixes) is this order. */
  indexes: readonly string[];
}

/** The planner settings the plans are checked under, besides those as served. */
const SETTINGS: Record<string, Record<string, string>> = {
  'as served': {},
  'no sequential scans': { enable_seqscan: 'off' },
  'parallel plans free': {
    parallel_setup_cost: '0',
    parallel_tuple_cost: '0',
    min_parallel_table_scan_size: '0',
    min_parallel_index_scan_size: '0',
    max_parallel_workers_per_gather: '4',
  },
  'parallel, no index scans': {
    parallel_setup_cost: '0',
    parallel_tuple_cost: '0',
    min_parallel_table_scan_size: '0',
    max_parallel_workers_per_gather: '4',
    enable_indexscan: 'off',
    enable_indexonlyscan: 'off',
  },
};

function* walk(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* walk(child);
}

/** The child whose rows a node passes on: its outer input (a subquery scan's subquery). */
function input(node: PlanNode): PlanNode | undefined {
  return node.Plans?.find((p) => p['Parent Relationship'] === 'Outer' || p['Parent Relationship'] === 'Subquery');
}

/** Whether a sort key entry is `column`, descending or not (qualified by any alias, "C" collation or not). */
const sortsBy = (entry: string, column: string, descending: boolean) =>
  new RegExp(`^(?:(?:\\w+|"[^"]+")\\.)?${column}(?: COLLATE "C")?${descending ? ' DESC' : ''}$`).test(entry);

/**
 * Checks one aggregate: from its input down to the node that orders the rows, only nodes that
 * pass rows on in order; that node sorts (or scans an index) in `order`. Returns that path of
 * node types.
 */
function assertReadsInOrder(aggregate: PlanNode, order: Order, plan: string): string {
  assert.equal(aggregate.Strategy, 'Plain', `a plain aggregate (not hashed, grouped or partial):\n${plan}`);
  assert.equal(aggregate['Partial Mode'], 'Simple', `no partial (parallel) aggregation:\n${plan}`);
  const path: string[] = [];
  let node = input(aggregate);
  while (node && PASS_ON.has(node['Node Type'])) {
    path.push(node['Node Type']);
    node = input(node);
  }
  assert.ok(node, `the aggregate's input ends without an ordering node (${path.join(' > ')}):\n${plan}`);
  const type = node['Node Type'];
  path.push(type);
  const where = `${path.join(' > ')}:\n${plan}`;
  if (type === 'Sort' || type === 'Incremental Sort' || type === 'Merge Append') {
    const fixed = order.fixed ?? [];
    const all = node['Sort Key'] ?? [];
    const key = all.filter((k) => !fixed.some((f) => sortsBy(k, f, false) || sortsBy(k, f, true)));
    const columns = order.columns.filter((c) => !fixed.includes(c));
    assert.ok(
      key.length === columns.length && columns.every((c, i) => sortsBy(key[i]!, c, order.descending)),
      `sort key ${all.join(', ')} in ${where}`,
    );
  } else if (type === 'Index Scan' || type === 'Index Only Scan') {
    assert.ok(order.indexes.includes(node['Index Name']!), `index ${node['Index Name']} in ${where}`);
    assert.equal(node['Scan Direction'], order.descending ? 'Backward' : 'Forward', `the index scan's direction in ${where}`);
  } else {
    assert.fail(`the aggregate's rows pass through ${type}, which may reorder them: ${where}`);
  }
  return path.join(' > ');
}

/** A query literal of a parameter (EXECUTE takes values, not placeholders). */
function literal(value: SqlParam): string {
  assert.equal(typeof value, 'string', `a text parameter: ${String(value)}`);
  return `'${(value as string).replace(/'/g, "''")}'`;
}

/** The plan of a statement as served (its parameters bound) or as prepared (the generic plan). */
async function planOf(tx: Queryable, sql: string, params: readonly SqlParam[], generic: boolean): Promise<PlanNode> {
  let rows: Record<string, unknown>[];
  if (!generic) {
    rows = await tx.query(`EXPLAIN (VERBOSE, COSTS OFF, FORMAT JSON) ${sql}`, params);
  } else {
    // A name of its own: a statement prepared in a transaction that then failed stays prepared.
    const name = `page_order_${++prepared}`;
    await tx.query(`PREPARE ${name} AS ${sql}`);
    await tx.query(`SELECT set_config('plan_cache_mode', 'force_generic_plan', true)`);
    const args = params.length > 0 ? `(${params.map(literal).join(', ')})` : '';
    rows = await tx.query(`EXPLAIN (VERBOSE, COSTS OFF, FORMAT JSON) EXECUTE ${name}${args}`);
    await tx.query(`SELECT set_config('plan_cache_mode', 'auto', true)`);
    await tx.query(`DEALLOCATE ${name}`);
  }
  const json = Object.values(rows[0]!)[0];
  return (typeof json === 'string' ? JSON.parse(json) : json)[0].Plan as PlanNode;
}
let prepared = 0;

/** The page body of one request, parsed. */
async function answer<T>(store: Store, op: AnyOperation, query: string, path: Record<string, string> = {}): Promise<T> {
  const result = await op.run({ store }, { ...parseQuery([...new URLSearchParams(query)], op.fields), ...path });
  return JSON.parse(result.responseJson().toString()) as T;
}

interface Connection<N> {
  edges: { node: N; cursor: string }[];
  pageInfo: { startCursor: string; endCursor: string };
}

/** A request of a page, and the sort key's columns it fixes to one value. */
interface Case {
  query: string;
  path?: Record<string, string>;
  fixed?: readonly string[];
  /** At most one row (a lookup by the whole key): its page aggregate has no order to keep, and its plan need not show one. */
  one?: true;
}

const descending = (query: string) => !/pagination\.newestFirst=false/.test(query);

/** The pages of a statistics list (the window's `n`, a cursor `mid` in it), and the one row `filter` selects. */
const statisticsCases = (n: string, mid: string, filter: string): Case[] => [
  { query: `${n}&pagination.first=3` },
  { query: `${n}&pagination.first=3&pagination.newestFirst=false` },
  { query: `${n}&pagination.first=3&pagination.after=${mid}` },
  { query: `${n}&pagination.last=3&pagination.before=${mid}` },
  { query: `${n}&pagination.last=3&pagination.before=${mid}&pagination.newestFirst=false` },
  { query: `${n}&${filter}` },
];

/** The order of a statistics row's inner aggregates: its entries by epoch (`entries`' key) and its games by id (`games`' key). */
const entriesAndGames = (entries: string, games: string) => (output: string) =>
  output.includes('game_id')
    ? { columns: ['game_id'], descending: false, indexes: [games] }
    : /\bs\.epoch\b/.test(output)
      ? { columns: ['epoch'], descending: false, indexes: [entries] }
      : undefined;

describe("page statements aggregate their rows in the page's order, whatever the plan", () => {
  const dir = mkdtempSync(join(tmpdir(), 'epochview-page-order-'));
  const demo = join(dir, 'demo.ndjson');
  before(async () => {
    const res = await runCli(['demo', '--scale', 'small', '--out', demo]);
    assert.equal(res.code, 0, res.stderr);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const kind of STORE_KINDS) {
    describe(`on ${kind}`, () => {
      const served = useServedStore(kind, { ingest: { file: demo }, server: false });

      /**
       * Checks every statement the cases run (versions and edges, with a row cache), every
       * string_agg aggregate of each, under each setting, as served and prepared. `pageOrder`
       * is the order of the page's own aggregate; `inner` that of another aggregate (a member's
       * entries), by what its output reads.
       */
      async function assertOrders(
        t: TestContext,
        op: AnyOperation,
        cases: Case[],
        pageOrder: (c: Case) => Order,
        inner: (output: string) => Order | undefined = () => undefined,
      ): Promise<void> {
        let checked = 0;
        const paths = new Set<string>();
        for (const c of cases) {
          const statements = await recordStatements(served.store, op, c.query, c.path, new RowCache(1 << 20));
          assert.ok(statements.length > 0, c.query);
          for (const [name, settings] of Object.entries(SETTINGS)) {
            // Settings local to the transaction: gone with it.
            await served.store.transaction(async (tx) => {
              for (const [setting, value] of Object.entries(settings)) await tx.query(`SELECT set_config($1, $2, true)`, [setting, value]);
              for (const [sql, params] of statements) {
                for (const generic of [false, true]) {
                  const plan = await planOf(tx, sql, params, generic);
                  const text = `${op.name} ${c.query} (${name}, ${generic ? 'generic' : 'custom'} plan):\n${JSON.stringify(plan, null, 1)}`;
                  const aggregates = [...walk(plan)].filter(
                    (n) => n['Node Type'] === 'Aggregate' && (n.Output ?? []).some((o) => o.includes('string_agg(')),
                  );
                  // The outermost joins the page's edges (or versions); any other is a member's lists.
                  assert.ok(aggregates.length > 0, `the page's aggregate in ${text}`);
                  aggregates.forEach((aggregate, i) => {
                    if (i === 0 && c.one) {
                      checked++;
                      return;
                    }
                    const order = i === 0 ? pageOrder(c) : inner((aggregate.Output ?? []).join(', '));
                    assert.ok(order, `an aggregate of ${aggregate.Output?.join(', ')} in ${text}`);
                    paths.add(assertReadsInOrder(aggregate, order, text));
                    checked++;
                  });
                }
              }
            });
          }
        }
        assert.ok(checked >= cases.length * Object.keys(SETTINGS).length * 2, `${checked} aggregates checked`);
        // What the aggregates' inputs were, from the aggregate down to the node that orders them.
        t.diagnostic(`${checked} aggregates read in order through: ${[...paths].sort().join(' | ')}`);
      }

      test('ListReferralSets: every page, lookup and direction', async (t) => {
        const first = (await answer<{ referralSets: Connection<{ id: string; referrer: string }> }>(served.store, listReferralSets, ''))
          .referralSets;
        assert.ok(first.edges.length > 20);
        const mid = encodeURIComponent(first.edges[10]!.cursor);
        const overview = await answer<{ examples: { referee: string } }>(served.store, explorerOverview, '');
        const cases: Case[] = [
          { query: 'pagination.first=10' },
          { query: 'pagination.first=10&pagination.newestFirst=false' },
          { query: `pagination.first=10&pagination.after=${mid}` },
          { query: `pagination.last=10&pagination.before=${mid}` },
          { query: `pagination.last=10&pagination.before=${mid}&pagination.newestFirst=false` },
          { query: `referrer=${first.edges[0]!.node.referrer}&pagination.first=10` },
          { query: `referralSetId=${first.edges[3]!.node.id}`, fixed: ['id'] },
          { query: `referee=${overview.examples.referee}`, fixed: ['id'] },
        ];
        await assertOrders(t, listReferralSets, cases, (c) => ({
          columns: ['created_at', 'id'],
          descending: descending(c.query),
          fixed: c.fixed,
          indexes: ['referral_sets_by_created', 'referral_sets_by_referrer'],
        }));
      });

      test('ListEpochRewardSummaries: every page, filter and direction', async (t) => {
        const first = (
          await answer<{ summaries: Connection<{ assetId: string }> }>(served.store, listEpochRewardSummaries, 'pagination.first=5000')
        ).summaries;
        const assets = [...new Set(first.edges.map((e) => e.node.assetId))];
        // The demo pays no reward of a market: the filter's plan is checked all the same.
        const market = 'ab'.repeat(32);
        assert.ok(assets.length >= 2, `${assets.length} assets`);
        const mid = encodeURIComponent(first.edges[50]!.cursor);
        const cases: Case[] = [
          { query: 'pagination.first=20' },
          { query: 'pagination.first=20&pagination.newestFirst=false' },
          { query: `pagination.first=20&pagination.after=${mid}` },
          { query: `pagination.last=20&pagination.before=${mid}` },
          { query: `pagination.last=20&pagination.before=${mid}&pagination.newestFirst=false` },
          { query: `filter.assetIds=${assets[0]}&pagination.first=20`, fixed: ['asset_id'] },
          { query: `filter.assetIds=${assets[0]}&filter.assetIds=${assets[1]}&pagination.first=20&pagination.after=${mid}` },
          { query: `filter.assetIds=${assets[0]}&filter.assetIds=${assets[1]}&pagination.last=20&pagination.before=${mid}` },
          { query: `filter.marketIds=${market}&pagination.first=20`, fixed: ['market_id'] },
          {
            query: `filter.assetIds=${assets[0]}&filter.marketIds=${market}&filter.fromEpoch=2&filter.toEpoch=40`,
            fixed: ['asset_id', 'market_id'],
          },
        ];
        await assertOrders(t, listEpochRewardSummaries, cases, (c) => ({
          columns: ['epoch', 'asset_id', 'market_id', 'reward_type'],
          descending: descending(c.query),
          fixed: c.fixed,
          indexes: [
            'epoch_reward_summaries_pkey',
            'epoch_reward_summaries_by_asset',
            'epoch_reward_summaries_by_market',
            'epoch_reward_summaries_by_asset_market',
          ],
        }));
      });

      test("ListTeamMembersStatistics: every page and direction, and each member's epochs and games", async (t) => {
        const { examples } = await answer<{ examples: { teamId: string; teamEpochs: string } }>(served.store, explorerOverview, '');
        const path = { teamId: examples.teamId };
        const n = `aggregationEpochs=${examples.teamEpochs}`;
        const first = (await answer<{ statistics: Connection<{ partyId: string }> }>(served.store, listTeamMembersStatistics, n, path))
          .statistics;
        assert.ok(first.edges.length > 6, `${first.edges.length} members`);
        const mid = encodeURIComponent(first.edges[3]!.cursor);
        await assertOrders(
          t,
          listTeamMembersStatistics,
          statisticsCases(n, mid, `partyId=${first.edges[1]!.node.partyId}`).map((c) => ({ ...c, path })),
          (c) => ({ columns: ['party'], descending: descending(c.query), indexes: [] }),
          // A member's entries by epoch, and its games by id: one primary-key range each.
          entriesAndGames('team_member_stats_pkey', 'team_party_games_pkey'),
        );
      });

      test('the explorer ListTeams: every page, search and direction', async (t) => {
        const first = (await answer<{ teams: Connection<{ id: string }> }>(served.store, explorerListTeams, 'pagination.first=30')).teams;
        assert.ok(first.edges.length > 10);
        const mid = encodeURIComponent(first.edges[5]!.cursor);
        const cases: Case[] = [
          { query: 'pagination.first=10' },
          { query: 'pagination.first=10&pagination.newestFirst=false' },
          { query: `pagination.first=10&pagination.after=${mid}` },
          { query: `pagination.last=10&pagination.before=${mid}` },
          { query: 'search=a&pagination.first=10' },
        ];
        await assertOrders(t, explorerListTeams, cases, (c) => ({
          columns: ['created_at', 'id'],
          descending: descending(c.query),
          indexes: ['teams_by_created'],
        }));
      });

      test('ListTeams: every page and direction, by team and by party', async (t) => {
        const first = (
          await answer<{ teams: Connection<{ teamId: string; referrer: string }> }>(served.store, listTeams, 'pagination.first=30')
        ).teams;
        assert.ok(first.edges.length > 10);
        const mid = encodeURIComponent(first.edges[5]!.cursor);
        const cases: Case[] = [
          { query: 'pagination.first=10' },
          { query: 'pagination.first=10&pagination.newestFirst=false' },
          { query: `pagination.first=10&pagination.after=${mid}` },
          { query: `pagination.last=10&pagination.before=${mid}` },
          { query: `pagination.last=10&pagination.before=${mid}&pagination.newestFirst=false` },
          { query: `teamId=${first.edges[2]!.node.teamId}`, fixed: ['id'] },
          { query: `partyId=${first.edges[2]!.node.referrer}`, fixed: ['id'] },
        ];
        await assertOrders(t, listTeams, cases, (c) => ({
          columns: ['created_at', 'id'],
          descending: descending(c.query),
          fixed: c.fixed,
          indexes: ['teams_by_created', 'teams_pkey'],
        }));
      });

      test("ListTeamsStatistics: every page and direction, and each team's epochs and games", async (t) => {
        const n = 'aggregationEpochs=30';
        const first = (await answer<{ statistics: Connection<{ teamId: string }> }>(served.store, listTeamsStatistics, n)).statistics;
        assert.ok(first.edges.length > 6, `${first.edges.length} teams`);
        const mid = encodeURIComponent(first.edges[3]!.cursor);
        const cases = statisticsCases(n, mid, `teamId=${first.edges[1]!.node.teamId}`);
        cases[cases.length - 1]!.one = true;
        await assertOrders(
          t,
          listTeamsStatistics,
          cases,
          (c) => ({ columns: ['team_id'], descending: descending(c.query), indexes: ['team_stats_spans_pkey'] }),
          // A team's entries by epoch, and its games by id: one primary-key range each.
          entriesAndGames('team_epoch_stats_pkey', 'team_games_pkey'),
        );
      });

      test('ListTeamReferees and ListTeamRefereeHistory: every page and direction', async (t) => {
        const { examples } = await answer<{ examples: { teamId: string } }>(served.store, explorerOverview, '');
        const path = { teamId: examples.teamId };
        const referees = (await answer<{ teamReferees: Connection<{ referee: string }> }>(served.store, listTeamReferees, '', path))
          .teamReferees;
        assert.ok(referees.edges.length > 6, `${referees.edges.length} referees`);
        const mid = encodeURIComponent(referees.edges[3]!.cursor);
        const pages = (extra: string): Case[] => [
          { query: `pagination.first=3${extra}` },
          { query: `pagination.first=3&pagination.newestFirst=false${extra}` },
          { query: `pagination.last=3${extra}` },
        ];
        await assertOrders(
          t,
          listTeamReferees,
          [
            ...pages(''),
            { query: `pagination.first=3&pagination.after=${mid}` },
            { query: `pagination.last=3&pagination.before=${mid}` },
          ].map((c) => ({ ...c, path })),
          (c) => ({ columns: ['party'], descending: descending(c.query), indexes: ['team_members_by_team'] }),
        );
        const party = { referee: referees.edges[0]!.node.referee };
        await assertOrders(
          t,
          listTeamRefereeHistory,
          pages('').map((c) => ({ ...c, path: party })),
          (c) => ({ columns: ['joined_at_epoch'], descending: descending(c.query), indexes: ['team_membership_history_pkey'] }),
        );
      });
    });
  }
});
