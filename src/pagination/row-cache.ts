import { EDGE_SEPARATOR, type KeptEdges } from './result.js';

/**
 * The rendered text of page rows (an edge: `{"node":…,"cursor":"…"}`), kept by the row's version
 * (migration 012: a number drawn whenever the row's text changes, so a version names one text
 * for good), or by a key that names it within a scope the statement gives (a team member's
 * statistics: the party, the window and the version of the team statistics). A page statement
 * then returns its rows' versions, in order, and the process joins the texts it keeps: a
 * 1,000-row page moves a few KB from the store instead of 0.44 MB. The store still decides which
 * rows make the page, at which head; only text already seen is reused, so no answer can be
 * staler than the store's.
 *
 * The rows a page statement fetched that were not kept yet are kept as they came, one Buffer of
 * their edges joined by commas, each row's text a slice of it. A page of kept rows is then a few
 * runs of adjacent slices, each copied at once, rather than a copy per row: copying 1,000 texts
 * one by one took longer than the rest of a 1,000-row page's answer in Node.
 *
 * Bounded by bytes, the texts kept longest going first: the rows kept together are kept and go
 * together, and their Buffer counts while any of them is kept. Not least recently used: a hit
 * then costs a lookup only, and a 1,000-row page does 1,000 of them. The texts of the rows of a
 * chain fit the default bound (mainnet's demo chain: 41 MB), and a text whose row changed is
 * never asked again, so it is those that age out.
 */
/** The bound unless set (`--row-cache-mb`); see the class. */
export const DEFAULT_ROW_CACHE_BYTES = 64 * 2 ** 20;

/** What an entry costs besides its text: the objects and the Map slot. */
const ENTRY_OVERHEAD = 120;

/** The edges of one fetched page, joined by commas: the rows kept from it are slices of it. */
interface Fetched {
  readonly bytes: Buffer;
  /** Its rows still kept: its bytes count while there are any. */
  kept: number;
}

interface Kept {
  readonly text: Buffer;
  readonly page: Fetched;
  /** Where the text lies in the page's bytes. */
  readonly start: number;
  readonly end: number;
}

export class RowCache {
  private readonly texts = new Map<number | string, Kept>();
  private size = 0;
  /** Pages answered from kept text, and pages that needed text from the store. */
  hits = 0;
  misses = 0;

  /** maxBytes bounds the texts (and an entry's overhead). */
  constructor(private readonly maxBytes: number) {}

  /** The texts of these keys, in order; null when one of them is not kept. */
  get(keys: readonly (number | string)[]): KeptEdges | null {
    const each = new Array<Buffer>(keys.length);
    const runs: Buffer[] = [];
    // The run so far: from its first row's text to `end` in that row's fetched page.
    let first: Kept | undefined;
    let end = 0;
    for (let i = 0; i < keys.length; i++) {
      const kept = this.texts.get(keys[i]!);
      if (kept === undefined) {
        this.misses++;
        return null;
      }
      each[i] = kept.text;
      // The next row of the same fetched page, after the comma: the run goes on.
      if (kept.page === first?.page && kept.start === end + 1) end = kept.end;
      else {
        if (first !== undefined) runs.push(runOf(first, end));
        first = kept;
        end = kept.end;
      }
    }
    if (first !== undefined) runs.push(runOf(first, end));
    this.hits++;
    return { each, runs };
  }

  /**
   * Keeps the rows of a fetched page that are not kept yet: `edges` the page's texts joined by
   * commas, in the order of `keys`. Nothing is kept when the count of edges is not that of the
   * keys (it cannot be, see EDGE_SEPARATOR, but a text must never be kept under another row's key).
   */
  keepPage(keys: readonly (number | string)[], edges: string): void {
    const bounds = edgeBounds(edges, keys.length);
    if (bounds === undefined) return;
    const fresh: number[] = [];
    for (let i = 0; i < keys.length; i++) if (!this.texts.has(keys[i]!)) fresh.push(i);
    if (fresh.length === 0) return;
    // The new rows' texts in one Buffer, in the page's order: a row kept before stays where it
    // is, so that no fetched page is held for a few rows and the bound counts what is held.
    const text = fresh.length === keys.length ? edges : fresh.map((i) => edges.slice(bounds[2 * i], bounds[2 * i + 1])).join(',');
    const bytes = Buffer.from(text);
    const page: Fetched = { bytes, kept: fresh.length };
    this.size += bytes.length + fresh.length * ENTRY_OVERHEAD;
    let start = 0;
    for (const i of fresh) {
      const at = bytes.indexOf(EDGE_SEPARATOR, start);
      const end = at < 0 ? bytes.length : at;
      this.texts.set(keys[i]!, { text: bytes.subarray(start, end), page, start, end });
      start = end + 1;
    }
    if (this.size > this.maxBytes) this.evict();
  }

  private forget(key: number | string, kept: Kept): void {
    this.texts.delete(key);
    this.size -= ENTRY_OVERHEAD;
    if (--kept.page.kept === 0) this.size -= kept.page.bytes.length;
  }

  private evict(): void {
    // A Map iterates in insertion order: the first entries are the oldest.
    for (const [key, kept] of this.texts) {
      if (this.size <= this.maxBytes) break;
      this.forget(key, kept);
    }
  }

  /**
   * Forgets every text: the store's chain went back or is unknown (a database made again holds
   * the same versions for other rows).
   */
  clear(): void {
    this.texts.clear();
    this.size = 0;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.size;
  }
}

/** Where each of the `count` edges of `edges` begins and ends (pairs); undefined when it holds another count. */
function edgeBounds(edges: string, count: number): number[] | undefined {
  const bounds: number[] = [];
  for (let from = 0; bounds.length < 2 * count; ) {
    const at = edges.indexOf(EDGE_SEPARATOR, from);
    bounds.push(from, at < 0 ? edges.length : at);
    if (at < 0) break;
    from = at + 1;
  }
  return bounds.length === 2 * count && bounds[bounds.length - 1] === edges.length ? bounds : undefined;
}

/** The bytes of a run from `first`'s text to `end`: a row alone is its own text (no new Buffer). */
function runOf(first: Kept, end: number): Buffer {
  return end === first.end ? first.text : first.page.bytes.subarray(first.start, end);
}

/** The versions of a page statement (`12,345,6789`), without making a string of each. */
export function parseVersions(text: string | null | undefined): number[] {
  const versions: number[] = [];
  if (!text) return versions;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 44) {
      versions.push(n);
      n = 0;
    } else n = n * 10 + (c - 48);
  }
  versions.push(n);
  return versions;
}
