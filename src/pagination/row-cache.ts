/**
 * The rendered text of page rows (an edge: `{"node":…,"cursor":"…"}`), kept by the row's version
 * (migration 012: a number drawn whenever the row's text changes, so a version names one text
 * for good), or by a key that names it within a scope the statement gives (a team member's
 * statistics: the party, the window and the version of the team statistics). A page statement then returns its rows' versions, in order, and the process joins
 * the texts it keeps: a 1,000-row page moves a few KB from the store instead of 0.44 MB. The
 * store still decides which rows make the page, at which head; only text already seen is reused,
 * so no answer can be staler than the store's.
 *
 * Bounded by bytes, the texts kept longest going first. Not least recently used: a hit then costs
 * a lookup only, and a 1,000-row page does 1,000 of them. The texts of the rows of a chain fit
 * the default bound (mainnet's demo chain: 41 MB), and a text whose row changed is never asked
 * again, so it is those that age out.
 */
/** The bound unless set (`--row-cache-mb`); see the class. */
export const DEFAULT_ROW_CACHE_BYTES = 64 * 2 ** 20;

export class RowCache {
  private readonly texts = new Map<number | string, Buffer>();
  private size = 0;
  /** Pages answered from kept text, and pages that needed text from the store. */
  hits = 0;
  misses = 0;

  /** maxBytes bounds the texts (and an entry's overhead). */
  constructor(private readonly maxBytes: number) {}

  /** The texts of these versions, in order; null when one of them is not kept. */
  get(versions: readonly (number | string)[]): Buffer[] | null {
    const texts: Buffer[] = new Array<Buffer>(versions.length);
    for (let i = 0; i < versions.length; i++) {
      const text = this.texts.get(versions[i]!);
      if (text === undefined) {
        this.misses++;
        return null;
      }
      texts[i] = text;
    }
    this.hits++;
    return texts;
  }

  /** Keeps the text of a version. */
  set(version: number | string, text: Buffer): void {
    if (this.texts.has(version)) return;
    this.texts.set(version, text);
    this.size += text.length + ENTRY_OVERHEAD;
    if (this.size > this.maxBytes) this.evict();
  }

  private evict(): void {
    // A Map iterates in insertion order: the first entries are the oldest.
    for (const [v, t] of this.texts) {
      if (this.size <= this.maxBytes) break;
      this.texts.delete(v);
      this.size -= t.length + ENTRY_OVERHEAD;
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

/** What an entry costs besides its text: the Buffer object and the Map slot. */
const ENTRY_OVERHEAD = 120;

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
