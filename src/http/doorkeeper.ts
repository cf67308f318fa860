/**
 * The response cache's admission filter: how often each URL was asked recently. An answer is kept
 * only on its URL's second request within the window, so a URL asked once (most of them, when
 * traffic is spread over many URLs) costs no copy, no entry and no eviction of a popular answer;
 * and when the cache is full, the counts say which answers are worth their bytes (see
 * ResponseCache). It holds 30-bit hashes of URLs and counts, never answers: a collision only
 * counts a URL as asked more often than it was.
 *
 * The window is two generations: the current one becomes the previous one, and the oldest is
 * forgotten, when it holds `capacity` URLs or has counted 8 × capacity requests (TinyLFU's
 * doorkeeper and counts, reset by halves), so that what was popular long ago fades.
 */
export class Doorkeeper {
  private current = new Map<number, number>();
  private previous = new Map<number, number>();
  private counted = 0;

  constructor(readonly capacity: number) {}

  /** The key a URL is counted under. */
  keyOf(url: string): number {
    return hash30(url);
  }

  /** Counts a request of the key; returns its requests within the window, this one included. */
  record(key: number): number {
    const earlier = this.count(key);
    if (this.current.size >= this.capacity || this.counted >= 8 * this.capacity) {
      this.previous = this.current;
      this.current = new Map();
      this.counted = 0;
    }
    this.counted++;
    this.current.set(key, (this.current.get(key) ?? 0) + 1);
    return earlier + 1;
  }

  /** The key's requests within the window. */
  count(key: number): number {
    return (this.current.get(key) ?? 0) + (this.previous.get(key) ?? 0);
  }
}

/** FNV-1a over the UTF-16 code units, folded to 30 bits (a small integer in V8: no allocation). */
function hash30(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h ^ (h >>> 30)) & 0x3fffffff;
}
