import type { AnswerSource, HeadState } from '../db/read-models.js';
import type { Until } from '../db/store.js';
import type { ChainHead } from '../pagination/result.js';
import { gzipAsync } from './compression.js';
import { Doorkeeper } from './doorkeeper.js';

/** An operation's successful answer as sent: the body bytes, and the chain head they reflect. */
export interface Answer {
  body: Buffer;
  head: ChainHead | null;
  /**
   * The height of the oldest snapshot the body was read in, when that is not the head's (a
   * GraphQL document's root fields may each read their own snapshot).
   */
  readAt?: string;
}

/** hit: from the cache; shared: joined an identical request in flight; miss: computed; bypass: computed, cache off or head unknown. */
export type CacheOutcome = 'hit' | 'shared' | 'miss' | 'bypass';

/** Why a computed answer was not kept: its URL's first request, or a full cache holding answers worth more per byte. */
export type NotAdmitted = 'new' | 'crowded';

/** What the cache reports: each request's outcome, and after a miss whose answer is not kept, why. */
export type CacheEvent = CacheOutcome | `not-admitted-${NotAdmitted}`;

/**
 * The cache's bound unless set (`--response-cache-mb`). On the mainnet chain the answers asked
 * most outgrow 64 MiB (1,000-row pages of 0.44 MB, a big team's 2.7 MB): live Zipf traffic over
 * 2,000 URLs hit 86% with 64 MiB, 96 to 99% with 256. Memory is taken only by answers asked twice.
 */
export const DEFAULT_RESPONSE_CACHE_BYTES = 256 * 2 ** 20;

/** URLs per generation of the doorkeeper (see Doorkeeper): two generations make the window. */
export const DOORKEEPER_CAPACITY = 16_384;

/** A full cache weighs the answer to keep against its this many least recently used entries. */
const EVICTION_CANDIDATES = 16;

/** Distinct source lists whose stamps are kept per state: the operations' (a few dozen at most). */
const MAX_STAMPS = 256;

/** What an entry is counted as besides its body and URL: the Map entry, the objects, headers. */
const ENTRY_OVERHEAD_BYTES = 200;

interface Entry {
  answer: Answer;
  /** The URL's doorkeeper key. */
  key: number;
  /** What it is made of: it goes when a block changes any of them. */
  sources: readonly AnswerSource[];
  /** Counted against maxBytes: body, URL, overhead, and the gzipped body once made. */
  bytes: number;
  gzipped?: Promise<Buffer>;
}

/** The versions of the sources in a state. */
function stampOf(sources: readonly AnswerSource[], state: HeadState): string {
  return sources.map((s) => state.versions[s]).join(' ');
}

/**
 * The answers of API requests by URL, for as long as the read models they are made of stay as
 * they were. Ingestion records for each read model the height of the last block that changed
 * it, and the store announces the head with those versions (watchChainHead); each operation
 * names the models it reads. An entry is dropped when a block changes any of its models; a
 * block that changes none of them leaves it, and it is then served as the answer at the current
 * head, with that head's height and time. While the head is unknown nothing is cached or served
 * from the cache.
 *
 * An answer carries the height it was read at (its X-Block-Height, read in the same snapshot as
 * its rows). It is kept only when it is the answer at the current head: read at that height, or
 * earlier but after the last change of each model it reads. An answer read after a block whose
 * notice has not come yet is not kept.
 *
 * Identical requests arriving while one is being computed share its result, so a burst after a
 * block costs the store one query per distinct URL asked before (a URL's first request is not
 * shared: the one after it computes once more, and those after that share). The entries are
 * bounded by maxBytes.
 *
 * An answer is admitted (kept) only on its URL's second request within the doorkeeper's window:
 * a URL asked once, as most are when traffic is spread over many URLs, then costs nothing beyond
 * the miss. An answer dropped by a block is kept again on its next request, its URL being known.
 * When the cache is full, what goes is chosen by requests per byte (the doorkeeper's counts over
 * the entry's bytes): the least worth of the 16 least recently used entries, until there is room;
 * and if one of them is worth as much as the new answer, the new answer is not kept. So a page
 * of 1,000 rows asked now and then does not push out fifty small answers asked more often. The
 * new answer's worth counts its URL's requests before this one (a kept entry's counts only
 * requests it had, or was kept by): to push others out, a URL must have been asked more often
 * than they were. URLs asked in turn, more than fit, then leave the cache holding those it has
 * instead of each pushing out the next one to be asked.
 * (doorkeeperCapacity 0: every answer is kept on its first request, least recently used out.)
 */
export class ResponseCache {
  private state: HeadState | null = null;
  /** The current head as answers carry it. */
  private head: ChainHead | null = null;
  private readonly entries = new Map<string, Entry>();
  private entriesBytes = 0;
  private readonly inflight = new Map<string, Promise<Answer>>();
  private readonly doorkeeper: Doorkeeper | undefined;
  /** The stamps of the current state, by the sources' list (an operation's `reads`, one array for all its answers). */
  private stamps = new Map<readonly AnswerSource[], { stamp: string; atHead: boolean }>();

  constructor(
    readonly maxBytes: number,
    private readonly observe: (event: CacheEvent) => void = () => {},
    doorkeeperCapacity = DOORKEEPER_CAPACITY,
  ) {
    this.doorkeeper = doorkeeperCapacity > 0 ? new Doorkeeper(doorkeeperCapacity) : undefined;
  }

  /** The head answers are made at now (null while unknown): the headers of an answer that read nothing. */
  get currentHead(): ChainHead | null {
    return this.head;
  }

  /**
   * The versions of `sources` now (see stampOf), which an answer made of them is the answer at;
   * undefined while the head is unknown.
   */
  stamp(sources: readonly AnswerSource[]): string | undefined {
    return this.state ? this.stampAt(sources, this.state).stamp : undefined;
  }

  /** The stamp of `sources` in `state` and whether an answer read at its head is the answer at it, made once per state. */
  private stampAt(sources: readonly AnswerSource[], state: HeadState): { stamp: string; atHead: boolean } {
    let s = this.stamps.get(sources);
    if (s === undefined) {
      s = { stamp: stampOf(sources, state), atHead: isAnswerAt(state, sources, BigInt(state.height)) };
      if (this.stamps.size < MAX_STAMPS) this.stamps.set(sources, s);
    }
    return s;
  }

  /**
   * The versions of `sources` now, if `answer` is the answer at them (see isAnswerAt): read at
   * the current head, or earlier but after the last change of each source. Undefined when it may
   * be older or newer than the current head, or the head is unknown.
   */
  stampOfAnswer(sources: readonly AnswerSource[], answer: Answer): string | undefined {
    const state = this.state;
    const readAt = answer.readAt ?? answer.head?.height;
    if (state === null || readAt === undefined) return undefined;
    // Read at the head (as every hit is): answered per state, not per answer.
    const s = this.stampAt(sources, state);
    if (readAt === state.height ? !s.atHead : !isAnswerAt(state, sources, BigInt(readAt))) return undefined;
    return s.stamp;
  }

  /** Bytes held, and entries. */
  get size(): { bytes: number; entries: number } {
    return { bytes: this.entriesBytes, entries: this.entries.size };
  }

  /**
   * The store's head and versions moved, or became unknown (null): the entries of the models
   * that changed go. All go when the head is unknown or went back (another chain, say); returns
   * whether they did.
   */
  setHead(state: HeadState | null): boolean {
    const previous = this.state;
    this.state = state;
    this.stamps = new Map();
    this.head = state && { height: state.height, time: state.time };
    if (state === null || previous === null || BigInt(state.height) < BigInt(previous.height)) {
      this.entries.clear();
      this.entriesBytes = 0;
      return true;
    }
    const changed = (Object.keys(state.versions) as AnswerSource[]).filter((s) => state.versions[s] !== previous.versions[s]);
    if (changed.length === 0) return false;
    for (const [url, entry] of this.entries) {
      if (entry.sources.some((s) => changed.includes(s))) {
        this.entries.delete(url);
        this.entriesBytes -= entry.bytes;
      }
    }
    return false;
  }

  /**
   * The answer for the key (REST's is the URL), made of `sources`: cached, shared with an
   * identical request in flight, or compute()d. A computation that other requests may join is not
   * given up at the deadline `until` of the request that started it (compute(undefined)): it ends
   * by statement_timeout. The key may be given as the function that makes it, called only when
   * the cache is used (GraphQL's, a JSON text, was 2 µs of an answer's CPU with the cache off).
   * compute is told when its answer goes to this request alone (`exclusive`: neither kept nor
   * shared), whose body may then be reused once it is sent (see BodyPool).
   */
  answer(
    key: string | (() => string),
    sources: readonly AnswerSource[],
    compute: (until: Until, exclusive: boolean) => Promise<Answer>,
    until?: Until,
  ): Promise<Answer> {
    const state = this.state;
    if (this.maxBytes <= 0 || state === null) {
      this.observe('bypass');
      return compute(until, true);
    }
    const url = typeof key === 'string' ? key : key();
    const counted = this.doorkeeper?.keyOf(url) ?? 0;
    const asked = this.doorkeeper?.record(counted) ?? Infinity;
    const hit = this.entries.get(url);
    if (hit) {
      // Most recently used goes last: Map iteration order is insertion order.
      this.entries.delete(url);
      this.entries.set(url, hit);
      this.observe('hit');
      return Promise.resolve({ body: hit.answer.body, head: this.head });
    }
    if (asked < 2) {
      // Not kept, and not offered to identical requests either: a promise held in the long-lived
      // registry for the whole computation cost a sixth of the req/s on never-repeated URLs
      // (garbage collection, measured). An identical request arriving meanwhile is the URL's
      // second: it computes once more, and the requests after it share that one. (Nor is the
      // registry looked up: only the requests after a URL's first are ever in it.)
      this.observe('miss');
      this.observe('not-admitted-new');
      return compute(until, true);
    }
    // Keyed by the versions too: a request arriving after a block that changed its models must
    // not join one that began before it.
    const flightKey = `${this.stampAt(sources, state).stamp} ${url}`;
    const flight = this.inflight.get(flightKey);
    if (flight) {
      this.observe('shared');
      return flight;
    }
    this.observe('miss');
    const computing = compute(undefined, false).then((answer) => this.keep(url, counted, sources, answer) ?? answer);
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
    if (entry?.answer.body !== answer.body) return gzipAsync(answer.body);
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

  /** Keeps the answer if it is the current head's and worth its room, and returns what is kept. */
  private keep(url: string, key: number, sources: readonly AnswerSource[], answer: Answer): Answer | undefined {
    if (this.stampOfAnswer(sources, answer) === undefined) return undefined;
    const bytes = answer.body.length + url.length * 2 + ENTRY_OVERHEAD_BYTES;
    if (bytes > this.maxBytes || this.entries.has(url)) return undefined;
    if (!this.makeRoom(key, bytes)) {
      this.observe('not-admitted-crowded');
      return undefined;
    }
    const kept = { ...answer, body: unpooled(answer.body) };
    this.entries.set(url, { answer: kept, key, sources, bytes });
    this.entriesBytes += bytes;
    this.evict();
    return kept;
  }

  /**
   * Room for an answer of `bytes` whose URL has `key`: entries out, each the least worth
   * (requests per byte) of the least recently used ones, while they are worth less than it.
   * False, and nothing out, if one is worth as much. Without a doorkeeper, evict() makes room.
   */
  private makeRoom(key: number, bytes: number): boolean {
    const need = this.entriesBytes + bytes - this.maxBytes;
    if (this.doorkeeper === undefined || need <= 0) return true;
    const worth = (this.doorkeeper.count(key) - 1) / bytes;
    const out = new Set<string>();
    let freed = 0;
    while (freed < need) {
      const victim = this.leastWorth(out);
      if (victim === undefined || this.worth(victim[1]) >= worth) return false;
      out.add(victim[0]);
      freed += victim[1].bytes;
    }
    for (const url of out) this.drop(url);
    return true;
  }

  /** Requests per byte of an entry (without a doorkeeper, all alike: the least recently used goes first). */
  private worth(entry: Entry): number {
    return this.doorkeeper ? this.doorkeeper.count(entry.key) / entry.bytes : 0;
  }

  /** Of the least recently used entries not in `skip`, the first of the least worth. */
  private leastWorth(skip: ReadonlySet<string>): [string, Entry] | undefined {
    let victim: [string, Entry] | undefined;
    let victimWorth = Infinity;
    let looked = 0;
    for (const [url, entry] of this.entries) {
      if (skip.has(url)) continue;
      const w = this.worth(entry);
      if (w < victimWorth) [victim, victimWorth] = [[url, entry], w];
      if (++looked === EVICTION_CANDIDATES) break;
    }
    return victim;
  }

  private drop(url: string): void {
    this.entriesBytes -= this.entries.get(url)!.bytes;
    this.entries.delete(url);
  }

  /**
   * Entries out until the bound holds (after an entry grew by its gzipped body, which may make
   * it the least worth): each the least worth of the least recently used.
   */
  private evict(): void {
    const none = new Set<string>();
    while (this.entriesBytes > this.maxBytes) this.drop(this.leastWorth(none)![0]);
  }
}

/**
 * The bytes in memory of their own. A small Buffer made from a string is a slice of an 8 KiB
 * pool shared with other allocations: kept for long, it would hold the whole slab, and the
 * memory held would be up to 8 KiB per entry beyond what the bound counts.
 */
function unpooled(body: Buffer): Buffer {
  if (body.byteOffset === 0 && body.buffer.byteLength === body.length) return body;
  const own = Buffer.allocUnsafeSlow(body.length);
  body.copy(own);
  return own;
}

/**
 * Whether an answer read at `height` is the answer at the state's head: not read after it (a
 * block whose notice has not come yet may have changed it), and none of its sources changed
 * since it was read. ('block' changes at every height: its answers must be read at the head.)
 */
function isAnswerAt(state: HeadState, sources: readonly AnswerSource[], height: bigint): boolean {
  return height <= BigInt(state.height) && sources.every((s) => BigInt(state.versions[s]) <= height);
}
