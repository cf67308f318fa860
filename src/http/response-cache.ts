import type { ChainHead } from '../pagination/page-sql.js';
import { gzipAsync } from './compression.js';

/** An operation's successful answer as sent: the body bytes, and the chain head they reflect. */
export interface Answer {
  body: Buffer;
  head: ChainHead | null;
}

/** hit: from the cache; shared: joined an identical request in flight; miss: computed; bypass: computed, cache off or head unknown. */
export type CacheOutcome = 'hit' | 'shared' | 'miss' | 'bypass';

/** What an entry is counted as besides its body and URL: the Map entry, the objects, headers. */
const ENTRY_OVERHEAD_BYTES = 200;

interface Entry {
  answer: Answer;
  /** Counted against maxBytes: body, URL, overhead, and the gzipped body once made. */
  bytes: number;
  gzipped?: Promise<Buffer>;
}

/**
 * The answers of API requests by URL, for as long as the chain head stays where it was: the
 * read models change only when a block is applied, and every answer carries the head height it
 * was read at (its X-Block-Height, read in the same snapshot as its rows). So an answer is kept
 * only when that height is the current head, and all entries go when the head moves. The head
 * comes from the store's notices (watchChainHead); while it is unknown nothing is cached or
 * served from the cache.
 *
 * Identical requests arriving while one is being computed share its result, so a burst after a
 * block costs the store one query per distinct URL. The entries are bounded by maxBytes, least
 * recently used first out.
 */
export class ResponseCache {
  private head: string | null = null;
  private readonly entries = new Map<string, Entry>();
  private entriesBytes = 0;
  private readonly inflight = new Map<string, Promise<Answer>>();

  constructor(
    readonly maxBytes: number,
    private readonly observe: (outcome: CacheOutcome) => void = () => {},
  ) {}

  /** Bytes held, and entries. */
  get size(): { bytes: number; entries: number } {
    return { bytes: this.entriesBytes, entries: this.entries.size };
  }

  /** The store's chain head moved or became unknown (null): every entry is stale. */
  setHead(height: string | null): void {
    if (height === this.head) return;
    this.head = height;
    this.entries.clear();
    this.entriesBytes = 0;
  }

  /** The answer for url: cached, shared with an identical request in flight, or compute()d. */
  answer(url: string, compute: () => Promise<Answer>): Promise<Answer> {
    const head = this.head;
    if (this.maxBytes <= 0 || head === null) {
      this.observe('bypass');
      return compute();
    }
    const hit = this.entries.get(url);
    if (hit) {
      // Most recently used goes last: Map iteration order is insertion order.
      this.entries.delete(url);
      this.entries.set(url, hit);
      this.observe('hit');
      return Promise.resolve(hit.answer);
    }
    // Keyed by head too: a request arriving after a block must not join one that began before it.
    const flightKey = `${head} ${url}`;
    const flight = this.inflight.get(flightKey);
    if (flight) {
      this.observe('shared');
      return flight;
    }
    this.observe('miss');
    const computing = compute().then((answer) => {
      this.keep(url, answer);
      return answer;
    });
    this.inflight.set(flightKey, computing);
    const done = () => {
      if (this.inflight.get(flightKey) === computing) this.inflight.delete(flightKey);
    };
    computing.then(done, done);
    return computing;
  }

  /**
   * The body of an answer gzipped. For the cached answer of url it is made once and counted in
   * the entry's bytes; any other answer is gzipped each time.
   */
  gzipped(url: string, answer: Answer): Promise<Buffer> {
    const entry = this.entries.get(url);
    if (entry?.answer !== answer) return gzipAsync(answer.body);
    entry.gzipped ??= gzipAsync(answer.body).then(
      (gz) => {
        if (this.entries.get(url) === entry) {
          entry.bytes += gz.length;
          this.entriesBytes += gz.length;
          this.evict();
        }
        return gz;
      },
      (err: unknown) => {
        entry.gzipped = undefined;
        throw err;
      },
    );
    return entry.gzipped;
  }

  private keep(url: string, answer: Answer): void {
    // An answer read before a block whose notice came since, or after one whose notice has not
    // come yet, is not the current head's.
    if (answer.head === null || answer.head.height !== this.head) return;
    const bytes = answer.body.length + url.length * 2 + ENTRY_OVERHEAD_BYTES;
    if (bytes > this.maxBytes || this.entries.has(url)) return;
    this.entries.set(url, { answer, bytes });
    this.entriesBytes += bytes;
    this.evict();
  }

  /** Least recently used entries out until the bound holds. */
  private evict(): void {
    for (const [url, entry] of this.entries) {
      if (this.entriesBytes <= this.maxBytes) break;
      this.entries.delete(url);
      this.entriesBytes -= entry.bytes;
    }
  }
}
