// explorer/referral-sets: the newest referral sets, paged with the API's cursors, or the sets
// found by set id, referrer or referee (the API's filters). A set looked up by its id shows its
// referees (ListReferralSetReferees) and its statistics at the latest epoch (GetReferralSetStats).
//
// URL: one of set, referrer, referee; after/before (the page).

import { getJson, pageParams, type Connection, type ReferralSet, type ReferralSetReferee, type ReferralSetStats } from '../api.js';
import { field, h, idText, link, pager, table } from '../dom.js';
import { groupDigits } from '../numbers.js';
import { href, type Rendered, type ViewContext } from '../router.js';
import { formatUtc, isoTime } from '../time.js';
import { normalId, notice, PAGE_SIZE } from './common.js';

const PATH = 'explorer/referral-sets';

/** The lookups, by URL key, with the API's filter and a label. */
const LOOKUPS = {
  set: { api: 'referralSetId', label: 'Set id' },
  referrer: { api: 'referrer', label: 'Referrer' },
  referee: { api: 'referee', label: 'Referee' },
} as const;
type Lookup = keyof typeof LOOKUPS;

export async function referralSets(ctx: ViewContext): Promise<Rendered> {
  const { params, signal } = ctx;
  const by = (Object.keys(LOOKUPS) as Lookup[]).find((k) => params.get(k) !== null);
  const value = by ? params.get(by)! : '';
  const at = { after: params.get('after') ?? undefined, before: params.get('before') ?? undefined };
  const url = (pos: { after?: string; before?: string }) => href(PATH, { ...(by ? { [by]: value } : {}), ...pos });

  let results: HTMLElement;
  const id = by ? normalId(value) : undefined;
  if (by && id === undefined) {
    results = h('p', { role: 'alert', class: 'error' }, `“${value}” is not an id: ids are hexadecimal, an even number of digits.`);
  } else {
    const filter: [string, string][] = by ? [[LOOKUPS[by].api, id!]] : [];
    const [sets, details] = await Promise.all([
      getJson<{ referralSets: Connection<ReferralSet> }>('api/v2/referral-sets', [...filter, ...pageParams(at, PAGE_SIZE)], signal).then(
        (b) =>
          setsTable(
            b.referralSets,
            url,
            by ? `Referral sets with ${LOOKUPS[by].label.toLowerCase()} ${id}` : 'Referral sets, newest first',
          ),
        (err: unknown) => notice(err),
      ),
      by === 'set' ? setDetails(id!, signal) : null,
    ]);
    results = h('div', {}, sets, details);
  }

  const content = h(
    'section',
    {},
    h('h1', { tabindex: -1 }, 'Referral sets'),
    lookupForm(by ?? 'referee', value, ctx.navigate),
    by ? h('p', {}, link(PATH, 'Show all sets')) : null,
    results,
  );
  return { title: 'Referral sets', content };
}

function lookupForm(by: Lookup, value: string, navigate: (url: string) => void): HTMLElement {
  const select = h(
    'select',
    { id: 'lookup-by', name: 'by' },
    (Object.keys(LOOKUPS) as Lookup[]).map((k) => h('option', { value: k, selected: k === by }, LOOKUPS[k].label)),
  );
  const input = h('input', {
    id: 'lookup-id',
    name: 'id',
    type: 'search',
    value,
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'hex id',
  });
  const form = h(
    'form',
    { class: 'controls', role: 'search', 'aria-label': 'Find referral sets' },
    field('Look up by', select),
    field('Id', input),
    h('button', { type: 'submit' }, 'Find'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    navigate(href(PATH, { [select.value]: input.value.trim() }));
  });
  return form;
}

function setsTable(page: Connection<ReferralSet>, url: (at: { after?: string; before?: string }) => string, caption: string): HTMLElement {
  const rows = page.edges.map((e) => e.node);
  return h(
    'div',
    {},
    rows.length
      ? table(
          caption,
          [
            { label: 'Set', cell: (s) => link(href(PATH, { set: s.id }), idText(s.id)) },
            { label: 'Referrer', cell: (s) => link(href(PATH, { referrer: s.referrer }), idText(s.referrer)) },
            { label: 'Members', numeric: true, cell: (s) => groupDigits(s.totalMembers) },
            { label: 'Created (UTC)', cell: (s) => h('time', { datetime: isoTime(s.createdAt) }, formatUtc(s.createdAt)) },
            { label: 'Updated (UTC)', cell: (s) => h('time', { datetime: isoTime(s.updatedAt) }, formatUtc(s.updatedAt)) },
          ],
          rows,
          { id: 'referral-sets', class: 'data cards' },
        )
      : h('p', { class: 'empty' }, 'No referral set matches.'),
    pager(page.pageInfo, url, 'referral sets'),
  );
}

/** A set's referees (their totals over the default 30 ended epochs) and its statistics at the latest epoch. */
async function setDetails(setId: string, signal: AbortSignal): Promise<HTMLElement> {
  const [referees, stats] = await Promise.all([
    getJson<{ referralSetReferees: Connection<ReferralSetReferee> }>(
      'api/v2/referral-sets/referees',
      [['referralSetId', setId], ...pageParams({}, PAGE_SIZE)],
      signal,
    ).then(
      (b) => refereesTable(b.referralSetReferees.edges.map((e) => e.node)),
      (err: unknown) => notice(err),
    ),
    getJson<{ stats: Connection<ReferralSetStats> }>(
      'api/v2/referral-sets/stats',
      [['referralSetId', setId], ...pageParams({}, PAGE_SIZE)],
      signal,
    ).then(
      (b) => statsTable(b.stats.edges.map((e) => e.node)),
      (err: unknown) => notice(err),
    ),
  ]);
  return h('div', {}, h('h2', {}, 'Referees'), referees, h('h2', {}, 'Statistics at the latest epoch'), stats);
}

function refereesTable(rows: ReferralSetReferee[]): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, 'The set has no referees.');
  return table(
    'Referees, newest first, with their totals over the last 30 ended epochs',
    [
      { label: 'Referee', cell: (r) => link(href(PATH, { referee: r.referee }), idText(r.referee)) },
      { label: 'Joined (UTC)', cell: (r) => h('time', { datetime: isoTime(r.joinedAt) }, formatUtc(r.joinedAt)) },
      { label: 'Epoch', numeric: true, cell: (r) => r.atEpoch },
      { label: 'Taker volume', numeric: true, cell: (r) => groupDigits(r.totalRefereeNotionalTakerVolume) },
      { label: 'Rewards generated', numeric: true, cell: (r) => groupDigits(r.totalRefereeGeneratedRewards) },
    ],
    rows,
    { id: 'referral-set-referees', class: 'data cards' },
  );
}

/** A factors object (vega.DiscountFactors, vega.RewardFactors: made by a function, so typed loosely), {} when null. */
const factors = (value: unknown) => (value ?? {}) as Partial<Record<string, string>>;

function statsTable(rows: ReferralSetStats[]): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, 'No statistics of this set at the latest epoch.');
  const first = rows[0]!;
  const eligible = first.wasEligible ? 'eligible for rewards' : 'not eligible for rewards';
  return h(
    'div',
    {},
    h(
      'p',
      { id: 'referral-set-summary' },
      `Epoch ${first.atEpoch}: running taker volume ${groupDigits(first.referralSetRunningNotionalTakerVolume)}, ${eligible}.`,
    ),
    table(
      `Referees' statistics in epoch ${first.atEpoch}`,
      [
        { label: 'Referee', cell: (r) => link(href(PATH, { referee: r.partyId }), idText(r.partyId)) },
        { label: 'Epoch taker volume', numeric: true, cell: (r) => groupDigits(r.epochNotionalTakerVolume) },
        { label: 'Maker discount', numeric: true, cell: (r) => factors(r.discountFactors).makerDiscountFactor ?? '' },
        { label: 'Reward factor (maker)', numeric: true, cell: (r) => factors(r.rewardFactors).makerRewardFactor ?? '' },
      ],
      rows,
      { id: 'referral-set-stats', class: 'data cards' },
    ),
  );
}
