// explorer/teams/<id>: a team's members over its last N epochs (the API's aggregationEpochs) as a
// leaderboard, sortable by each column, and the team's totals per epoch as a chart. A team the
// API leaves out (fewer epochs of data than N) gets the rule explained instead of an empty table.
// The team is ListTeams' and its totals ListTeamsStatistics' (the API's own answers: one source of
// truth); only the eligibility explanation reads the explorer's team list.
//
// URL: epochs (N, default 10), sort (rank|party|rewards|volume|games), dir (asc|desc).

import {
  getAll,
  getJson,
  type Connection,
  type DataNodeTeam,
  type Overview,
  type Team,
  type TeamMemberStatistics,
  type TeamStatistics,
} from '../api.js';
import { dualChart, sparkline } from '../charts.js';
import { field, h, idText, link, table, type Column } from '../dom.js';
import { compareDecimals, groupDigits } from '../numbers.js';
import { href, type Rendered, type ViewContext } from '../router.js';
import { formatUtc } from '../time.js';
import { intParam, notice } from './common.js';
import { teamHref } from './teams.js';

export const DEFAULT_TEAM_EPOCHS = 10;
const MAX_TEAM_EPOCHS = 5000;

const SORTS = ['rank', 'party', 'rewards', 'volume', 'games'] as const;
type Sort = (typeof SORTS)[number];
/** The order a column sorts in when first chosen: numbers largest first. */
const FIRST_DIR: Record<Sort, 'asc' | 'desc'> = { rank: 'asc', party: 'asc', rewards: 'desc', volume: 'desc', games: 'desc' };

interface State {
  id: string;
  epochs: number;
  sort: Sort;
  dir: 'asc' | 'desc';
}

interface Row {
  rank: number;
  stats: TeamMemberStatistics;
}

function url(state: State): string {
  return href(teamHref(state.id), {
    epochs: state.epochs === DEFAULT_TEAM_EPOCHS ? undefined : state.epochs,
    sort: state.sort === 'rank' ? undefined : state.sort,
    dir: state.dir === FIRST_DIR[state.sort] ? undefined : state.dir,
  });
}

export async function team(ctx: ViewContext): Promise<Rendered> {
  const { params, signal } = ctx;
  const sort = (SORTS as readonly string[]).includes(params.get('sort') ?? '') ? (params.get('sort') as Sort) : 'rank';
  const dirParam = params.get('dir');
  const state: State = {
    id: ctx.path.teamId!,
    epochs: intParam(params, 'epochs', DEFAULT_TEAM_EPOCHS, 1, MAX_TEAM_EPOCHS),
    sort,
    dir: dirParam === 'asc' || dirParam === 'desc' ? dirParam : FIRST_DIR[sort],
  };
  const id = encodeURIComponent(state.id);
  const [info, totals, members] = await Promise.all([
    getJson<{ teams: Connection<DataNodeTeam> }>('api/v2/teams', [['teamId', state.id]], signal).then((b) => b.teams.edges[0]?.node),
    getJson<{ statistics: Connection<TeamStatistics> }>(
      'api/v2/teams/stats',
      [
        ['teamId', state.id],
        ['aggregationEpochs', String(state.epochs)],
      ],
      signal,
    ).then((b) => b.statistics.edges[0]?.node),
    getAll<TeamMemberStatistics>(`api/v2/teams/${id}/stats`, [['aggregationEpochs', String(state.epochs)]], 'statistics', signal).catch(
      (err: unknown) => notice(err),
    ),
  ]);

  const name = info?.name || 'Team';
  const body =
    members instanceof HTMLElement
      ? members
      : members.length
        ? leaderboard(members, totals, state, ctx.navigate)
        : await ineligible(state, signal);
  const content = h(
    'section',
    {},
    h('p', { class: 'crumbs' }, link('explorer/teams', 'Teams'), ' / '),
    h('h1', { tabindex: -1 }, name),
    info ? teamFacts(info) : h('p', {}, 'No team with this id has been created.'),
    epochsForm(state, ctx.navigate),
    body,
  );
  return { title: name, content };
}

function teamFacts(t: DataNodeTeam): HTMLElement {
  const fact = (term: string, ...value: (Node | string)[]) => h('div', {}, h('dt', {}, term), h('dd', {}, ...value));
  return h(
    'dl',
    { class: 'facts' },
    fact('Id', idText(t.teamId)),
    fact('Referrer', idText(t.referrer)),
    fact('Members', groupDigits(t.totalMembers)),
    fact('Created', formatUtc(t.createdAt)),
    fact('Status', t.closed ? 'closed' : 'open'),
    fact('Created in epoch', groupDigits(t.createdAtEpoch)),
  );
}

function epochsForm(state: State, navigate: (url: string) => void): HTMLElement {
  const input = h('input', {
    id: 'team-epochs',
    name: 'epochs',
    type: 'number',
    min: 1,
    max: MAX_TEAM_EPOCHS,
    step: 1,
    inputmode: 'numeric',
    value: state.epochs,
    required: true,
  });
  const form = h(
    'form',
    { class: 'controls', 'aria-label': 'Epochs aggregated' },
    field('Last epochs (aggregationEpochs)', input),
    h('button', { type: 'submit' }, 'Show'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const n = Number(input.value);
    if (Number.isInteger(n) && n >= 1) navigate(url({ ...state, epochs: n }));
  });
  return form;
}

/** Why the API lists no member: the documented eligibility rule, with this team's numbers (the explorer's own). */
async function ineligible(state: State, signal: AbortSignal): Promise<HTMLElement> {
  const [overview, info] = await Promise.all([
    getJson<Overview>('explorer/api/overview', [], signal),
    getJson<{ teams: Connection<Team> }>(
      'explorer/api/teams',
      [
        ['search', state.id],
        ['pagination.first', '50'],
      ],
      signal,
    ).then((b) => b.teams.edges.map((e) => e.node).find((t) => t.id === state.id)),
  ]);
  const last = overview.lastEndedEpoch === null ? undefined : Number(overview.lastEndedEpoch);
  const window = last === undefined ? 'the last epochs' : `epochs ${Math.max(0, last - state.epochs + 1)}–${last}`;
  const eligible = info ? Number(info.eligibleEpochs) : 0;
  return h(
    'div',
    { class: 'explain', role: 'status' },
    h('h2', {}, 'No leaderboard for the last ', String(state.epochs), state.epochs === 1 ? ' epoch' : ' epochs'),
    h(
      'p',
      {},
      `A team’s members are listed only when the team has statistics in each of the last N epochs (N = aggregationEpochs, here ${state.epochs}: ${window}). `,
      'Epochs where none of its members traded or earned a reward count as missing, so a new team, or one that paused, is left out until it has N epochs in a row.',
    ),
    eligible > 0
      ? h(
          'p',
          {},
          `This team has statistics in each of its last ${eligible} epochs: `,
          link(url({ ...state, epochs: eligible }), `show the last ${eligible}`),
          '.',
        )
      : h(
          'p',
          {},
          info && info.epochsWithStats !== '0'
            ? 'This team has no statistics for the last ended epoch.'
            : 'This team has no statistics yet.',
        ),
  );
}

function leaderboard(
  members: TeamMemberStatistics[],
  team: TeamStatistics | undefined,
  state: State,
  navigate: (url: string) => void,
): HTMLElement {
  const ranked = [...members].sort(
    (a, b) => compareDecimals(b.totalQuantumRewards, a.totalQuantumRewards) || (a.partyId < b.partyId ? -1 : 1),
  );
  const rows: Row[] = ranked.map((stats, i) => ({ rank: i + 1, stats }));
  const key: Record<Sort, (a: Row, b: Row) => number> = {
    rank: (a, b) => a.rank - b.rank,
    party: (a, b) => (a.stats.partyId < b.stats.partyId ? -1 : a.stats.partyId > b.stats.partyId ? 1 : 0),
    rewards: (a, b) => compareDecimals(a.stats.totalQuantumRewards, b.stats.totalQuantumRewards) || a.rank - b.rank,
    volume: (a, b) => compareDecimals(a.stats.totalQuantumVolume, b.stats.totalQuantumVolume) || a.rank - b.rank,
    games: (a, b) => Number(a.stats.totalGamesPlayed) - Number(b.stats.totalGamesPlayed) || a.rank - b.rank,
  };
  rows.sort((a, b) => (state.dir === 'asc' ? 1 : -1) * key[state.sort](a, b));

  // The window's epochs: an eligible team has rows in each of them.
  const epochs = [
    ...new Set(
      members
        .flatMap((m) => m.quantumRewards.map((r) => Number(r.epoch)))
        .concat(members.flatMap((m) => m.quantumVolumes.map((v) => Number(v.epoch)))),
    ),
  ].sort((a, b) => a - b);
  const range = epochs.length === 1 ? `epoch ${epochs[0]}` : `epochs ${epochs[0]}–${epochs[epochs.length - 1]}`;

  const header = (sort: Sort, label: string): Pick<Column<Row>, 'header' | 'sort'> => {
    const active = state.sort === sort;
    const button = h(
      'button',
      { type: 'button', id: `sort-${sort}`, class: 'sort' },
      label,
      h('span', { 'aria-hidden': 'true' }, active ? (state.dir === 'asc' ? ' ▲' : ' ▼') : ''),
    );
    button.addEventListener('click', () =>
      navigate(url({ ...state, sort, dir: active ? (state.dir === 'asc' ? 'desc' : 'asc') : FIRST_DIR[sort] })),
    );
    return { header: button, sort: active ? (state.dir === 'asc' ? 'ascending' : 'descending') : undefined };
  };
  const perEpoch = (entries: { epoch: string; value: string }[]) => {
    const byEpoch = new Map(entries.map((e) => [Number(e.epoch), e.value]));
    return epochs.map((e) => byEpoch.get(e) ?? '0');
  };

  const board = table(
    `Members over ${range}, ${members.length} ${members.length === 1 ? 'party' : 'parties'}`,
    [
      { label: 'Rank', numeric: true, cell: (r) => String(r.rank), ...header('rank', 'Rank') },
      { label: 'Party', cell: (r) => idText(r.stats.partyId), ...header('party', 'Party') },
      {
        label: 'Quantum rewards',
        numeric: true,
        cell: (r) => h('span', { 'data-value': r.stats.totalQuantumRewards }, groupDigits(r.stats.totalQuantumRewards)),
        ...header('rewards', 'Quantum rewards'),
      },
      {
        label: 'Quantum volume',
        numeric: true,
        cell: (r) => h('span', { 'data-value': r.stats.totalQuantumVolume }, groupDigits(r.stats.totalQuantumVolume)),
        ...header('volume', 'Quantum volume'),
      },
      {
        label: 'Games played',
        numeric: true,
        cell: (r) => h('span', { title: r.stats.gamesPlayed.join('\n') }, r.stats.totalGamesPlayed),
        ...header('games', 'Games played'),
      },
      {
        label: 'Rewards per epoch',
        cell: (r) =>
          sparkline(
            perEpoch(r.stats.quantumRewards.map((q) => ({ epoch: q.epoch, value: q.totalQuantumRewards }))).map(Number),
            `Quantum rewards per epoch over ${range}`,
          ),
      },
    ],
    rows,
    { id: 'leaderboard', class: 'data cards sortable' },
  );

  // The team's sums per epoch, as ListTeamsStatistics gives them (the members' window: they are the members' sums).
  const rewardsByEpoch = perEpoch((team?.quantumRewards ?? []).map((q) => ({ epoch: q.epoch, value: q.totalQuantumRewards })));
  const volumeByEpoch = perEpoch((team?.quantumVolumes ?? []).map((q) => ({ epoch: q.epoch, value: q.totalQuantumVolumes })));
  const chart = dualChart({
    caption: `Team totals per epoch, ${range}`,
    description: `Bars of the team's total quantum rewards and a line of its total quantum volume per epoch, ${range}.`,
    epochs,
    bars: { label: 'Quantum rewards', values: rewardsByEpoch.map(Number), text: rewardsByEpoch.map(groupDigits) },
    line: { label: 'Quantum volume', values: volumeByEpoch.map(Number), text: volumeByEpoch.map(groupDigits) },
  });
  const totals = h(
    'dl',
    { class: 'stats' },
    h(
      'div',
      { class: 'stat' },
      h('dt', {}, 'Total quantum rewards'),
      h('dd', { 'data-stat': 'rewards' }, groupDigits(team?.totalQuantumRewards ?? '0')),
    ),
    h(
      'div',
      { class: 'stat' },
      h('dt', {}, 'Total quantum volume'),
      h('dd', { 'data-stat': 'volume' }, groupDigits(team?.totalQuantumVolume ?? '0')),
    ),
  );
  return h('div', {}, totals, chart, h('div', { class: 'scroll' }, board));
}
