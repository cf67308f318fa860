// A few helpers for building the views' DOM: elements, ids, tables, pagers. Strings, chain data
// among them (a team's name), only ever become text nodes and attribute values, never markup: the
// page's policy has the browser refuse markup given as a string (src/http/page-headers.ts).

import type { PageInfo } from './api.js';

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined>;

/** An element with attributes (false/null/undefined ones left out) and children (falsy ones left out). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
  return el;
}

/** A long hex id, shortened for reading; the whole id is in its title and for copying. */
export function idText(id: string): HTMLElement {
  const short = id.length > 16 ? `${id.slice(0, 8)}…${id.slice(-6)}` : id || '(empty)';
  return h('code', { class: 'id', title: id, 'data-id': id }, short);
}

/** A link to an explorer URL (relative to the page's base): built by the views, never a URL taken from chain data. */
export function link(href: string, ...children: Child[]): HTMLAnchorElement {
  return h('a', { href }, ...children);
}

export interface Column<T> {
  /** Header text; also the label each cell shows on a narrow screen. */
  label: string;
  cell(row: T): Child | Child[];
  /** Right-aligned (numbers). */
  numeric?: boolean;
  /** The header's own content (a sort button) instead of the label. */
  header?: Node;
  /** aria-sort of the header. */
  sort?: 'ascending' | 'descending';
}

/** A table that turns into one card per row on a narrow screen. */
export function table<T>(caption: string, columns: Column<T>[], rows: T[], attrs: Attrs = {}): HTMLTableElement {
  return h(
    'table',
    { class: 'data', ...attrs },
    h('caption', {}, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        columns.map((c) => h('th', { scope: 'col', class: c.numeric ? 'num' : null, 'aria-sort': c.sort }, c.header ?? c.label)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((row) =>
        h(
          'tr',
          {},
          columns.map((c) => h('td', { class: c.numeric ? 'num' : null, 'data-label': c.label }, c.cell(row))),
        ),
      ),
    ),
  );
}

/**
 * Newer/older links of a page of a newest-first connection: older = after the page's last
 * cursor, newer = before its first. `href` builds the URL of a position.
 */
export function pager(info: PageInfo, href: (at: { after?: string; before?: string }) => string, what: string): HTMLElement {
  const step = (id: string, label: string, enabled: boolean, at: { after?: string; before?: string }) =>
    enabled
      ? h('a', { id, class: 'button', href: href(at), 'aria-label': `${label} ${what}` }, label)
      : h('button', { id, class: 'button', type: 'button', disabled: true }, label);
  return h(
    'nav',
    { class: 'pager', 'aria-label': `Pages of ${what}` },
    step('page-newest', '⇤ Newest', info.hasPreviousPage, {}),
    step('page-newer', '← Newer', info.hasPreviousPage, { before: info.startCursor }),
    step('page-older', 'Older →', info.hasNextPage, { after: info.endCursor }),
  );
}

/** A labelled form control. */
export function field(label: string, control: HTMLElement): HTMLElement {
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control);
}
