// Deterministic randomness for the demo chain: a seeded PRNG and seeded 64-hex ids.
// Nothing here reads the clock or Math.random, and only IEEE-exact operations (+ - * / sqrt,
// integer ops) feed the output, so the same seed gives the same bytes on every platform.

const GOLDEN = 0x9e3779b9;
const TWO_32 = 4294967296;

/** murmur3's 32-bit finaliser: a bijection on uint32 with good avalanche. */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Splits a safe integer seed into two uint32 words (64-bit two's complement, so injective). */
export function seedWords(seed: number): [lo: number, hi: number] {
  if (!Number.isSafeInteger(seed)) {
    throw new RangeError(`demo seed must be a safe integer, got ${String(seed)}`);
  }
  return [seed >>> 0, Math.floor(seed / TWO_32) >>> 0];
}

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counting generator, 128-bit state): fast with 32-bit
 * integer ops and passes PractRand. `stream` gives independent sequences for one seed.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, stream = 0) {
    const [lo, hi] = seedWords(seed);
    this.a = mix32(lo);
    this.b = mix32(hi ^ GOLDEN);
    this.c = mix32((stream + 0x6a09e667) >>> 0);
    this.d = 1;
    for (let i = 0; i < 16; i++) this.u32();
  }

  /** Uniform uint32. */
  u32(): number {
    const t0 = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    const t = (t0 + this.d) | 0;
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1) with 32 bits of precision. */
  float(): number {
    return this.u32() / TWO_32;
  }

  /** Uniform integer in [0, n), n <= 2^32. */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[this.int(items.length)] as T;
  }

  /** floor(x) or ceil(x), with probability making the expectation x. */
  round(x: number): number {
    return Math.floor(x + this.float());
  }

  /** In-place Fisher-Yates shuffle. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = items[i] as T;
      items[i] = items[j] as T;
      items[j] = t;
    }
    return items;
  }

  /** A string of exactly `n` random decimal digits (leading zeros allowed). */
  digits(n: number): string {
    let s = '';
    while (n >= 9) {
      s += (1e9 + this.int(1e9)).toString().slice(1);
      n -= 9;
    }
    if (n > 0) s += (1e9 + this.int(1e9)).toString().slice(10 - n);
    return s;
  }

  /** A positive integer of exactly `n` decimal digits (no leading zero), as a string. */
  positiveInt(n: number): string {
    return String(1 + this.int(9)) + this.digits(n - 1);
  }

  /** Index into a non-decreasing prefix-sum array of weights, over its first `n` entries. */
  weighted(cumulative: Float64Array, n: number): number {
    if (n <= 0) throw new RangeError('weighted pick from an empty prefix');
    const target = this.float() * (cumulative[n - 1] as number);
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cumulative[mid] as number) > target) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** x^s for s a multiple of 1/4, built from multiplications and sqrt (exactly rounded ops). */
export function quarterPower(x: number, s: number): number {
  const quarters = Math.round(s * 4);
  if (quarters < 0 || Math.abs(quarters - s * 4) > 1e-9) {
    throw new RangeError(`exponent must be a non-negative multiple of 0.25, got ${s}`);
  }
  const whole = quarters >> 2;
  let r = 1;
  for (let i = 0; i < whole; i++) r *= x;
  const frac = quarters & 3;
  if (frac & 2) r *= Math.sqrt(x);
  if (frac & 1) r *= Math.sqrt(Math.sqrt(x));
  return r;
}

/** Kinds of seeded ids; (kind, index) maps to a distinct 64-hex id for a given seed. */
export const IdKind = {
  referrer: 1,
  referralSet: 2,
  referee: 3,
  team: 4,
  teamMember: 5,
  trader: 6,
  validator: 7,
  game: 8,
  transfer: 9,
  asset: 10,
  block: 11,
  tx: 12,
  market: 13,
  referralProgram: 14,
} as const;
export type IdKind = (typeof IdKind)[keyof typeof IdKind];

/**
 * Seeded ids. The first 64 bits of an id are a keyed 4-round Feistel permutation of
 * (kind, index), so two different (kind, index) pairs never share an id; the remaining 192 bits
 * are derived from them.
 */
export class IdSpace {
  private readonly k: Uint32Array;
  private readonly scratch = Buffer.alloc(32);

  constructor(seed: number) {
    const rng = new Rng(seed, 1);
    this.k = Uint32Array.from({ length: 8 }, () => rng.u32());
  }

  /** 64 lowercase hex characters. `index` must be a uint32. */
  hex(kind: IdKind, index: number): string {
    const k = this.k;
    const out = this.scratch;
    let l = (kind ^ (k[0] as number)) >>> 0;
    let r = (index ^ (k[1] as number)) >>> 0;
    for (let round = 0; round < 4; round++) {
      const t = (l ^ mix32((r + (k[2 + round] as number)) >>> 0)) >>> 0;
      l = r;
      r = t;
    }
    out.writeUInt32BE(l, 0);
    out.writeUInt32BE(r, 4);
    let w = mix32((l ^ (k[6] as number)) >>> 0) ^ r;
    for (let j = 0; j < 6; j++) {
      w = mix32((w + Math.imul(j + 1, GOLDEN) + (k[7] as number)) >>> 0);
      out.writeUInt32BE(w, 8 + 4 * j);
    }
    // One flat string (cheap to copy into every line that carries it).
    return out.toString('hex');
  }

  /** 64 uppercase hex characters (block hashes, transaction hashes). */
  upperHex(kind: IdKind, index: number): string {
    return this.hex(kind, index).toUpperCase();
  }
}

/** Lazily computed, memoised ids for one kind (the hot paths reuse the same parties a lot). */
export class IdCache {
  private readonly cache: string[];

  constructor(
    private readonly ids: IdSpace,
    private readonly kind: IdKind,
    capacity: number,
  ) {
    // Pre-filled so the array stays a dense packed array, whatever order ids are asked in.
    this.cache = new Array<string>(capacity).fill('');
  }

  get(index: number): string {
    let id = this.cache[index];
    if (id === undefined) throw new RangeError(`id index ${index} out of range`);
    if (id === '') {
      id = this.ids.hex(this.kind, index);
      this.cache[index] = id;
    }
    return id;
  }
}
