/**
 * The rendered text of page rows (an edge: `{"node":…,"cursor":"…"}`), kept by the row's version
 * (migration 012: a number drawn whenever the row's text changes, so a version names one text
 * for good). A page statement then returns its rows' versions, in order, and the process joins
 * the texts it keeps: a 1,000-row page moves a few KB from the store instead of 0.44 MB. The
 * store still decides which rows make the page, at which head; only text already seen is reused,
 * so no answer can be staler than the store's.
 *
 * Bounded by bytes in two generations: texts are added to the young one, and a text found in
 * the old one moves to the young one; when the young one is full it becomes the old one and the
 * old one is dropped. Texts in use stay, the rest go, without a list to maintain on every read.
 */
export class RowCache {
  private young = new Map<string, Buffer>();
  private old = new Map<string, Buffer>();
  private youngBytes = 0;
  private oldBytes = 0;
  /** Pages answered from kept text, and pages that needed text from the store. */
  hits = 0;
  misses = 0;

  /** maxBytes bounds the texts of both generations together (and a Map entry's overhead). */
  constructor(private readonly maxBytes: number) {}

  /** The texts of these versions, in order; null when one of them is not kept. */
  get(versions: readonly string[]): Buffer[] | null {
    const texts: Buffer[] = new Array<Buffer>(versions.length);
    for (let i = 0; i < versions.length; i++) {
      const v = versions[i]!;
      let text = this.young.get(v);
      if (text === undefined) {
        text = this.old.get(v);
        if (text === undefined) {
          this.misses++;
          return null;
        }
        this.old.delete(v);
        this.oldBytes -= text.length + ENTRY_OVERHEAD;
        this.add(v, text);
      }
      texts[i] = text;
    }
    this.hits++;
    return texts;
  }

  /** Keeps the text of a version. */
  set(version: string, text: Buffer): void {
    if (!this.young.has(version)) this.add(version, text);
  }

  /** Bytes held, both generations. */
  get bytes(): number {
    return this.youngBytes + this.oldBytes;
  }

  private add(version: string, text: Buffer): void {
    this.young.set(version, text);
    this.youngBytes += text.length + ENTRY_OVERHEAD;
    if (this.youngBytes > this.maxBytes / 2) {
      this.old = this.young;
      this.oldBytes = this.youngBytes;
      this.young = new Map();
      this.youngBytes = 0;
    }
  }
}

/** What an entry costs besides its text: the key string, the Buffer object, the Map slot. */
const ENTRY_OVERHEAD = 160;
