// Client-side routing with the history API: every view's state lives in its URL (path and query),
// so a view can be bookmarked, shared and reloaded, and the back button walks through it.
// Paths are relative to the page's <base> ('' is the landing page).

import { ApiFailure } from './api.js';
import { h } from './dom.js';

export interface ViewContext {
  /** Path parameters of the route (":teamId" → teamId). */
  path: Record<string, string>;
  params: URLSearchParams;
  /** Aborted when the user navigates elsewhere before the view is ready. */
  signal: AbortSignal;
  /** Shows another URL (relative to the base) as a new history entry: for forms. */
  navigate(url: string): void;
}

export interface Rendered {
  title: string;
  content: Node;
}

/** The performance mark set when the page's first view is shown. */
export const FIRST_VIEW = 'explorer:first-view';

export type View = (ctx: ViewContext) => Promise<Rendered>;

interface Route {
  pattern: RegExp;
  names: string[];
  view: View;
}

/** The URL of an explorer path with query parameters (unset and empty ones left out), relative to the base. */
export function href(path: string, params: Record<string, string | number | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') query.set(k, String(v));
  const q = query.toString();
  return (path || './') + (q ? `?${q}` : '');
}

export class Router {
  private readonly routes: Route[] = [];
  private current: AbortController | undefined;
  private shownPath: string | undefined;

  constructor(private readonly main: HTMLElement) {}

  add(path: string, view: View): this {
    const names: string[] = [];
    const source = path.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    this.routes.push({ pattern: new RegExp(`^${source}$`), names, view });
    return this;
  }

  start(): void {
    window.addEventListener('popstate', () => void this.render());
    document.addEventListener('click', (event) => this.onClick(event));
    void this.render();
  }

  /** Shows the view of `url` (relative to the base), as a new history entry unless `replace`. */
  navigate(url: string, replace = false): void {
    const target = new URL(url, document.baseURI);
    if (replace) history.replaceState(null, '', target);
    else history.pushState(null, '', target);
    void this.render();
  }

  /** The current path relative to the base, without a leading slash. */
  private relativePath(): string {
    const base = new URL(document.baseURI).pathname;
    const path = location.pathname;
    return path.startsWith(base) ? decodeURIComponent(path.slice(base.length)) : path.replace(/^\//, '');
  }

  /** Same-page links of the explorer are followed without reloading the page. */
  private onClick(event: MouseEvent): void {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const a = (event.target as Element | null)?.closest('a');
    if (!a || a.target || a.hasAttribute('download')) return;
    const raw = a.getAttribute('href') ?? '';
    if (raw.startsWith('#')) {
      // In-page anchors (the skip link): <base> would resolve them against another page.
      event.preventDefault();
      document.getElementById(raw.slice(1))?.focus();
      return;
    }
    const url = new URL(a.href);
    const base = new URL(document.baseURI);
    if (url.origin !== location.origin || !url.pathname.startsWith(base.pathname)) return;
    const path = decodeURIComponent(url.pathname.slice(base.pathname.length));
    if (!this.routes.some((r) => r.pattern.test(path))) return;
    event.preventDefault();
    this.navigate(url.href);
  }

  private async render(): Promise<void> {
    this.current?.abort();
    const controller = new AbortController();
    this.current = controller;
    const path = this.relativePath();
    const focusedId = document.activeElement?.id;
    this.main.setAttribute('aria-busy', 'true');
    let rendered: Rendered;
    try {
      rendered = await this.viewOf(path, controller.signal);
    } catch (err) {
      if (controller.signal.aborted) return;
      rendered = failure(err);
    }
    if (controller.signal.aborted) return;
    this.main.replaceChildren(rendered.content);
    this.main.removeAttribute('aria-busy');
    // How long the first view took from the start of navigation, for whoever measures it.
    if (performance.getEntriesByName(FIRST_VIEW).length === 0) performance.mark(FIRST_VIEW);
    document.title = `${rendered.title} · epochview`;
    for (const a of document.querySelectorAll<HTMLAnchorElement>('header.top nav a')) {
      const target = new URL(a.href).pathname.slice(new URL(document.baseURI).pathname.length);
      if (target && (path === target || path.startsWith(`${target}/`))) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    // A new view starts at its heading; within a view (paging, sorting) focus stays on the
    // control. The page's first view leaves focus where the browser put it (the top).
    const firstView = this.shownPath === undefined;
    const sameView = this.shownPath === path;
    this.shownPath = path;
    if (firstView) return;
    const again = sameView && focusedId ? document.getElementById(focusedId) : null;
    if (again && !again.hasAttribute('disabled')) again.focus();
    else {
      (this.main.querySelector('h1') ?? this.main).focus({ preventScroll: sameView });
      if (!sameView) window.scrollTo(0, 0);
    }
  }

  private viewOf(path: string, signal: AbortSignal): Promise<Rendered> {
    for (const route of this.routes) {
      const m = route.pattern.exec(path);
      if (!m) continue;
      const params: Record<string, string> = Object.fromEntries(route.names.map((name, i) => [name, m[i + 1]!]));
      return route.view({ path: params, params: new URLSearchParams(location.search), signal, navigate: (url) => this.navigate(url) });
    }
    return Promise.resolve({
      title: 'Not found',
      content: h('section', {}, h('h1', { tabindex: -1 }, 'Not found'), h('p', {}, 'The explorer has no page here.')),
    });
  }
}

function failure(err: unknown): Rendered {
  const message = err instanceof Error ? err.message : String(err);
  const what = err instanceof ApiFailure ? `The server answered ${err.status}: ${message}` : message;
  return {
    title: 'Error',
    content: h('section', {}, h('h1', { tabindex: -1 }, 'Could not show this page'), h('p', { role: 'alert', class: 'error' }, what)),
  };
}
