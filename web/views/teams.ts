// explorer/teams: teams newest first, searchable by name or id, paged with cursors.
//
// URL: q (the search), after/before (the page).

import { getJson, pageParams, type Connection, type Team } from '../api.js';
import { field, h, idText, link, pager, table } from '../dom.js';
import { groupDigits } from '../numbers.js';
import { href, type Rendered, type ViewContext } from '../router.js';
import { formatUtc, isoTime } from '../time.js';
import { notice, PAGE_SIZE } from './common.js';

const PATH = 'explorer/teams';

export function teamHref(id: string): string {
  return `${PATH}/${encodeURIComponent(id)}`;
}

export async function teams(ctx: ViewContext): Promise<Rendered> {
  const { params, signal } = ctx;
  const q = params.get('q') ?? '';
  const at = { after: params.get('after') ?? undefined, before: params.get('before') ?? undefined };
  const search: [string, string][] = q ? [['search', q]] : [];
  const results = await getJson<{ teams: Connection<Team> }>('explorer/api/teams', [...search, ...pageParams(at, PAGE_SIZE)], signal).then(
    (b) => teamsTable(b.teams, (pos) => href(PATH, { q, ...pos }), q ? `Teams matching “${q}”, newest first` : 'Teams, newest first'),
    (err: unknown) => notice(err),
  );

  const input = h('input', {
    id: 'team-search',
    name: 'q',
    type: 'search',
    value: q,
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'Name or id',
  });
  const form = h(
    'form',
    { class: 'controls', role: 'search', 'aria-label': 'Search teams' },
    field('Team name or id', input),
    h('button', { type: 'submit' }, 'Search'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    ctx.navigate(href(PATH, { q: input.value.trim() }));
  });
  const content = h('section', {}, h('h1', { tabindex: -1 }, 'Teams'), form, q ? h('p', {}, link(PATH, 'Show all teams')) : null, results);
  return { title: 'Teams', content };
}

function teamsTable(page: Connection<Team>, url: (at: { after?: string; before?: string }) => string, caption: string): HTMLElement {
  const rows = page.edges.map((e) => e.node);
  return h(
    'div',
    {},
    rows.length
      ? table(
          caption,
          [
            { label: 'Team', cell: (t) => link(teamHref(t.id), t.name || '(no name)') },
            { label: 'Id', cell: (t) => idText(t.id) },
            { label: 'Members', numeric: true, cell: (t) => groupDigits(t.totalMembers) },
            { label: 'Created (UTC)', cell: (t) => h('time', { datetime: isoTime(t.createdAt) }, formatUtc(t.createdAt)) },
            { label: 'Epochs with statistics', numeric: true, cell: (t) => groupDigits(t.epochsWithStats) },
            { label: 'Status', cell: (t) => (t.closed ? 'closed' : 'open') },
          ],
          rows,
          { id: 'teams', class: 'data cards' },
        )
      : h('p', { class: 'empty' }, 'No team matches.'),
    pager(page.pageInfo, url, 'teams'),
  );
}
