import { parseInteger } from '../contract/decimal.js';
import { parseId } from '../contract/ids.js';
import { INT64_MAX, INT64_MIN } from '../contract/int64.js';
import { enumName } from './enums.js';

/** The largest epoch an event may carry (Fields.epoch). */
export const MAX_EPOCH = INT64_MAX - 1n;

/** Fails the event being decoded: names the field by its path, says why. */
export type Fail = (field: string, reason: string) => never;

/** The most digits a number from the chain may have: far past uint256 (78), far below what the store's numeric holds. */
export const MAX_DIGITS = 100;

/** A value as an error message shows it: JSON, cut short when long (a bad value may be megabytes). */
export function shown(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length <= 100 ? text : `${text.slice(0, 80)}… (${text.length} characters)`;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Reads the fields of one JSON object with proto3 JSON rules: an absent field has its zero
 * value, a present one must have the right type. Failures name the field by its path.
 */
export class Fields {
  constructor(
    private readonly obj: Record<string, unknown>,
    private readonly path: string,
    private readonly failWith: Fail,
  ) {}

  private name(key: string): string {
    return `${this.path}.${key}`;
  }

  /** Fails the event on one of this object's fields. */
  fail(key: string, reason: string): never {
    return this.failWith(this.name(key), reason);
  }

  /** An id that must be present: not empty either, which protobuf cannot tell from absent. */
  id(key: string): string {
    const v = this.obj[key];
    if (v === undefined || v === null || v === '') this.failWith(this.name(key), 'missing');
    return this.idValue(key, v);
  }

  /** An id that may be absent or empty; null then. */
  optionalId(key: string): string | null {
    const v = this.obj[key];
    if (v === undefined || v === null || v === '') return null;
    return this.idValue(key, v);
  }

  private idValue(key: string, v: unknown): string {
    if (typeof v !== 'string') this.failWith(this.name(key), `expected a hex id string, got ${shown(v)}`);
    const id = parseId(v);
    if (id === undefined) this.failWith(this.name(key), `not a hex id: ${shown(v)}`);
    return id;
  }

  /** A list of ids; empty when absent. */
  idList(key: string): string[] {
    return this.array(key, (v, path) => {
      const id = typeof v === 'string' ? parseId(v) : undefined;
      return id ?? this.failWith(path, `not a hex id: ${shown(v)}`);
    });
  }

  /**
   * A 64-bit integer (epochs, times, heights, versions) as a decimal string or a JSON number; 0
   * when absent. Its columns are PostgreSQL's bigint, so a value outside the signed range (a
   * uint64 past 2^63 - 1 included) fails here, named, rather than in the store.
   */
  int(key: string): bigint {
    return this.inRange(key, INT64_MIN, INT64_MAX, 'a 64-bit integer');
  }

  /**
   * A uint64 (heights, versions, lengths; epochs are `epoch`): int's range less the negatives,
   * which the wire cannot carry and protobuf's JSON refuses; 0 when absent.
   */
  uint(key: string): bigint {
    return this.inRange(key, 0n, INT64_MAX, `an integer from 0 to ${INT64_MAX}`);
  }

  /**
   * An epoch: a uint64 short of 2^63 - 1. The read models keep spans of epochs as ranges closed at
   * both ends, which PostgreSQL stores as [first, last + 1): the last epoch plus one must be a
   * bigint too, or the block fails in the store instead of here, named.
   */
  epoch(key: string): bigint {
    return this.inRange(key, 0n, MAX_EPOCH, `an epoch from 0 to ${MAX_EPOCH}`);
  }

  /** An integer (see integer) from min to max, else the field fails, saying what was `expected`. */
  private inRange(key: string, min: bigint, max: bigint, expected: string): bigint {
    const n = this.integer(key);
    if (n < min || n > max) this.failWith(this.name(key), `expected ${expected}, got ${JSON.stringify(String(n))}`);
    return n;
  }

  /** An integer of up to MAX_DIGITS digits (a reward's amount, a volume); 0 when absent. */
  integer(key: string): bigint {
    const v = this.obj[key];
    if (v === undefined || v === null) return 0n;
    if (typeof v === 'string' && v.length > MAX_DIGITS && v.replace(/^[+-]/, '').length > MAX_DIGITS)
      this.failWith(this.name(key), `expected an integer of at most ${MAX_DIGITS} digits, got ${shown(v)}`);
    const n = parseInteger(v);
    if (n === undefined) this.failWith(this.name(key), `expected an integer, got ${shown(v)}`);
    return n;
  }

  /**
   * A string; '' when absent. PostgreSQL's text cannot hold U+0000, which protobuf and JSON
   * strings can: it is read as U+FFFD, so that a name from the chain cannot stop ingestion.
   */
  string(key: string): string {
    const v = this.obj[key];
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') this.failWith(this.name(key), `expected a string, got ${shown(v)}`);
    return v.includes('\0') ? v.replaceAll('\0', '\uFFFD') : v;
  }

  optionalString(key: string): string | null {
    const v = this.obj[key];
    return v === undefined || v === null ? null : this.string(key);
  }

  bool(key: string): boolean {
    const v = this.obj[key];
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') this.failWith(this.name(key), `expected true or false, got ${shown(v)}`);
    return v;
  }

  /** An enum by name or number; `newNames` also lets through names a newer chain may add. */
  enum(key: string, table: Readonly<Record<string, number>>, newNames?: RegExp): string {
    const v = this.obj[key] ?? 0;
    const name = enumName(table, v) ?? (typeof v === 'string' && newNames?.test(v) ? v : undefined);
    if (name === undefined) this.failWith(this.name(key), `unknown enum value ${shown(v)}`);
    return name;
  }

  object(key: string): Fields | null {
    const v = this.obj[key];
    if (v === undefined || v === null) return null;
    if (!isObject(v)) this.failWith(this.name(key), `expected an object, got ${shown(v)}`);
    return new Fields(v, this.name(key), this.failWith);
  }

  array<T>(key: string, each: (item: unknown, path: string) => T): T[] {
    const v = this.obj[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.failWith(this.name(key), `expected an array, got ${shown(v)}`);
    return v.map((item, i) => each(item, `${this.name(key)}[${i}]`));
  }

  objects(key: string): Fields[] {
    return this.array(key, (item, path) => {
      if (!isObject(item)) this.failWith(path, `expected an object, got ${shown(item)}`);
      return new Fields(item, path, this.failWith);
    });
  }
}
