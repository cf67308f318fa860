// explorer/rewards: reward amounts per epoch for one asset, by reward type, as a chart over a
// window of epochs, and the summaries themselves as a table paged with the API's cursors.
//
// URL: asset, epochs (N, the window's length, default 50), from/to (the window's ends; to
// defaults to the newest epoch with rewards, from to N epochs before it), chart (stacked|split),
// after/before (the table's page).

import { getAll, getJson, pageParams, type Asset, type Connection, type RewardSummary } from '../api.js';
import { assetLabel, isKnown, unitsOf, type Units } from '../assets.js';
import { epochChart, type EpochSeries } from '../charts.js';
import { field, h, idText, pager, table, type Column } from '../dom.js';
import { href, type Rendered, type ViewContext } from '../router.js';
import { intParam, notice, optionalInt, PAGE_SIZE, rewardTypeLabel } from './common.js';

const PATH = 'explorer/rewards';
const SUMMARIES = 'api/v2/rewards/epoch/summaries';
export const DEFAULT_EPOCHS = 50;
const MAX_EPOCHS = 5000;

interface State {
  asset: string;
  epochs: number;
  from: number | undefined;
  to: number | undefined;
  chart: 'stacked' | 'split';
}

function url(state: State, at: { after?: string; before?: string } = {}): string {
  return href(PATH, {
    asset: state.asset,
    epochs: state.epochs === DEFAULT_EPOCHS ? undefined : state.epochs,
    from: state.from,
    to: state.to,
    chart: state.chart === 'stacked' ? undefined : state.chart,
    ...at,
  });
}

export async function rewards(ctx: ViewContext): Promise<Rendered> {
  const { params, signal } = ctx;
  const end = (newestFirst: boolean) =>
    getJson<{ summaries: Connection<RewardSummary> }>(
      SUMMARIES,
      [...pageParams({}, 1), ['pagination.newestFirst', String(newestFirst)]],
      signal,
    ).then((b) => b.summaries.edges[0]?.node);
  const [assets, newest, oldest] = await Promise.all([
    getJson<{ assets: Asset[] }>('explorer/api/assets', [], signal).then((b) => b.assets),
    end(true),
    end(false),
  ]);
  const heading = h('h1', { tabindex: -1 }, 'Rewards per epoch');
  if (!newest || !oldest) return { title: 'Rewards', content: h('section', {}, heading, h('p', {}, 'No rewards have been paid yet.')) };

  const state: State = {
    asset: params.get('asset') || newest.assetId,
    epochs: intParam(params, 'epochs', DEFAULT_EPOCHS, 1, MAX_EPOCHS),
    from: optionalInt(params, 'from'),
    to: optionalInt(params, 'to'),
    chart: params.get('chart') === 'split' ? 'split' : 'stacked',
  };
  const asset = assets.find((a) => a.id === state.asset);
  const units = unitsOf(asset);
  const last = state.to ?? Number(newest.epoch);
  const first = state.from ?? Math.max(Number(oldest.epoch), last - state.epochs + 1);
  const filter: [string, string][] = [
    ['filter.assetIds', state.asset],
    ['filter.fromEpoch', String(first)],
    ['filter.toEpoch', String(last)],
  ];
  const at = { after: params.get('after') ?? undefined, before: params.get('before') ?? undefined };

  const [chart, page] = await Promise.all([
    first > last
      ? h('p', { role: 'alert', class: 'error' }, `The epoch range is empty: from ${first} is after to ${last}.`)
      : getAll<RewardSummary>(SUMMARIES, filter, 'summaries', signal).then(
          (rows) => chartOf(rows, first, last, units, state),
          (err: unknown) => notice(err),
        ),
    getJson<{ summaries: Connection<RewardSummary> }>(SUMMARIES, [...filter, ...pageParams(at, PAGE_SIZE)], signal).then(
      (b) => b.summaries,
      (err: unknown) => notice(err),
    ),
  ]);

  const content = h(
    'section',
    {},
    heading,
    controls(state, assets, Number(newest.epoch), ctx.navigate),
    h('p', { class: 'units' }, windowText(state, first, last, Number(newest.epoch)), ` Amounts in ${units.name}.`),
    chart,
    h('h2', { id: 'summaries-title' }, 'Summaries'),
    page instanceof HTMLElement ? page : summariesTable(page, state, units),
  );
  return { title: `Rewards${asset && isKnown(asset) ? ` in ${asset.symbol}` : ''}`, content };
}

function controls(state: State, assets: Asset[], newest: number, navigate: (url: string) => void): HTMLElement {
  const select = h(
    'select',
    { id: 'asset', name: 'asset' },
    (assets.some((a) => a.id === state.asset)
      ? assets
      : [...assets, { id: state.asset, symbol: null, name: null, decimals: null, quantum: null, status: null }]
    ).map((a) => h('option', { value: a.id, selected: a.id === state.asset }, assetLabel(a))),
  );
  const number = (id: string, value: number | undefined, placeholder?: string) =>
    h('input', { id, name: id, type: 'number', min: 0, step: 1, inputmode: 'numeric', value: value ?? '', placeholder });
  const form = h(
    'form',
    { class: 'controls', 'aria-label': 'Rewards shown' },
    field('Asset', select),
    field(
      'Last epochs',
      h('input', {
        id: 'epochs',
        name: 'epochs',
        type: 'number',
        min: 1,
        max: MAX_EPOCHS,
        step: 1,
        inputmode: 'numeric',
        value: state.epochs,
        required: true,
      }),
    ),
    field('From epoch', number('from', state.from, 'auto')),
    field('To epoch', number('to', state.to, String(newest))),
    h('button', { type: 'submit' }, 'Show'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const read = (name: string) => {
      const v = String(data.get(name) ?? '').trim();
      return /^\d+$/.test(v) ? Number(v) : undefined;
    };
    const next: State = {
      ...state,
      asset: String(data.get('asset')),
      epochs: read('epochs') ?? state.epochs,
      from: read('from'),
      to: read('to'),
    };
    navigate(url(next));
  });
  const mode = (chart: State['chart'], label: string) =>
    h('a', { class: 'button toggle', href: url({ ...state, chart }), 'aria-current': state.chart === chart ? 'true' : null }, label);
  return h(
    'div',
    {},
    form,
    h('div', { class: 'toggles', role: 'group', 'aria-label': 'Chart layout' }, mode('stacked', 'Stacked'), mode('split', 'Split by type')),
  );
}

/** What the window is and why. */
function windowText(state: State, first: number, last: number, newest: number): string {
  const range = first === last ? `Epoch ${first}` : `Epochs ${first}–${last}`;
  if (state.from !== undefined) return `${range}.`;
  const end = state.to === undefined ? `the newest with rewards (${newest})` : `epoch ${last}`;
  return `${range}: up to ${state.epochs} epochs ending at ${end}.`;
}

/** Sums per (epoch, reward type) over markets, the chart, and the window's totals per type. */
function chartOf(rows: RewardSummary[], first: number, last: number, units: Units, state: State): HTMLElement {
  const epochs = Array.from({ length: last - first + 1 }, (_, i) => first + i);
  const byType = new Map<string, bigint[]>();
  for (const row of rows) {
    let sums = byType.get(row.rewardType);
    if (!sums) {
      sums = epochs.map(() => 0n);
      byType.set(row.rewardType, sums);
    }
    sums[Number(row.epoch) - first]! += BigInt(row.amount);
  }
  const totals = [...byType].map(([type, sums]) => ({ type, sums, total: sums.reduce((a, b) => a + b, 0n) }));
  // The largest type at the bottom of the stack and first in the legend's reading order.
  totals.sort((a, b) => (b.total > a.total ? 1 : b.total < a.total ? -1 : a.type < b.type ? -1 : 1));
  const series: EpochSeries[] = totals.map(({ type, sums }) => {
    const text = sums.map((s) => units.format(s.toString()));
    return { label: rewardTypeLabel(type), values: sums.map((s) => units.plot(s.toString())), text };
  });
  const range = first === last ? `epoch ${first}` : `epochs ${first}–${last}`;
  if (totals.length === 0) return h('p', { class: 'empty' }, `No rewards in this asset in ${range}.`);
  const chart = epochChart({
    caption: `Rewards per epoch in ${units.name}, ${range}, ${state.chart === 'stacked' ? 'stacked' : 'split'} by reward type`,
    description: `${state.chart === 'stacked' ? 'Stacked bars' : 'Lines'} of reward amounts per epoch for ${range}, by reward type: ${series.map((s) => s.label).join(', ')}. The totals follow in a table.`,
    epochs,
    series,
    stacked: state.chart === 'stacked',
  });
  const totalsTable = table(
    `Totals over ${range}`,
    [
      { label: 'Reward type', cell: (t) => rewardTypeLabel(t.type) },
      { label: 'Total', numeric: true, cell: (t) => units.format(t.total.toString()) },
    ],
    totals,
    { class: 'data totals' },
  );
  return h('div', { class: 'chart-block' }, chart, h('div', { class: 'scroll' }, totalsTable));
}

function summariesTable(page: Connection<RewardSummary>, state: State, units: Units): HTMLElement {
  const rows = page.edges.map((e) => e.node);
  const columns: Column<RewardSummary>[] = [
    { label: 'Epoch', numeric: true, cell: (r) => r.epoch },
    { label: 'Reward type', cell: (r) => h('span', { title: r.rewardType }, rewardTypeLabel(r.rewardType)) },
    { label: 'Market', cell: (r) => (r.marketId ? idText(r.marketId) : '—') },
    { label: 'Amount', numeric: true, cell: (r) => h('span', { 'data-amount': r.amount }, units.format(r.amount)) },
  ];
  return h(
    'div',
    {},
    rows.length
      ? h('div', { class: 'scroll' }, table('Epoch reward summaries, newest first', columns, rows, { id: 'summaries' }))
      : h('p', { class: 'empty' }, 'No summaries on this page.'),
    pager(page.pageInfo, (at) => url(state, at), 'summaries'),
  );
}
