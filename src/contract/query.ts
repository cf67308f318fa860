import { parseError } from './errors.js';
import { INT64_MAX, UINT64_MAX } from './int64.js';
import type { SchemaObject } from './openapi.js';

/**
 * Query strings parsed the way the reference grpc-gateway does (contract §2): every field under
 * its JSON name and its proto name, repeated fields by repeating the key, a singular field given
 * twice is an error, `+` is a space, unknown keys are ignored. Error texts follow the gateway's.
 */
export type FieldKind = 'int32' | 'uint32' | 'uint64' | 'bool' | 'string';

export interface FieldSpec {
  /** Query keys that set this field: the JSON name first, then the proto name when different. */
  readonly keys: readonly string[];
  /** The proto field name, as the gateway's messages show it. */
  readonly protoName: string;
  readonly kind: FieldKind;
  readonly repeated?: boolean;
  /** What the field means, for the OpenAPI document. */
  readonly description: string;
  /** Added to the schema its kind gives (ranges, patterns, defaults) in the OpenAPI document. */
  readonly schema?: SchemaObject;
}

/** The value a field's kind parses to. */
type KindValue<K extends FieldKind> = K extends 'int32' | 'uint32'
  ? number
  : K extends 'uint64'
    ? bigint
    : K extends 'bool'
      ? boolean
      : string;

/** A field's parsed value: its kind's value or undefined when not given; a repeated field gives a list (empty when absent). */
export type FieldValue<S extends FieldSpec> = S['repeated'] extends true ? KindValue<S['kind']>[] : KindValue<S['kind']> | undefined;

export type ParsedQuery<Specs extends Record<string, FieldSpec>> = { [K in keyof Specs]: FieldValue<Specs[K]> };

const BAD_ESCAPE = /%(?![0-9a-fA-F]{2}).{0,2}/;

/** Splits a raw query string (without "?") into decoded (key, value) pairs, in order. */
export function queryPairs(raw: string): [string, string][] {
  const bad = BAD_ESCAPE.exec(raw);
  if (bad) throw parseError(`invalid URL escape ${JSON.stringify(bad[0])}`);
  return formPairs(raw);
}

/**
 * The (key, value) pairs of an application/x-www-form-urlencoded text, in order, as
 * URLSearchParams reads them (`+` is a space; empty pairs skipped; a key without `=` has the
 * value ''), but decoded by the native decodeURIComponent: URLSearchParams' decoding in
 * JavaScript was 4 to 5 µs of a GraphQL GET's CPU. Where the two could differ (an escape that is
 * not one, bytes that are not UTF-8: decodeURIComponent refuses them) URLSearchParams reads the
 * whole text. `value` decodes a value, given its decoded key (by default formDecode).
 */
export function formPairs(raw: string, value: (key: string, text: string) => string = (_, text) => formDecode(text)): [string, string][] {
  const pairs: [string, string][] = [];
  try {
    for (const pair of raw.split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const key = formDecode(eq < 0 ? pair : pair.slice(0, eq));
      pairs.push([key, eq < 0 ? '' : value(key, pair.slice(eq + 1))]);
    }
  } catch (err) {
    if (!(err instanceof URIError)) throw err;
    return [...new URLSearchParams(raw)];
  }
  return pairs;
}

/** One key or value of a form text decoded (`+` a space); throws URIError where formPairs falls back. */
export function formDecode(text: string): string {
  const spaced = text.includes('+') ? text.replaceAll('+', ' ') : text;
  // Only an escape needs decoding; V8's decoder copies the text byte by byte even without one.
  return spaced.includes('%') ? decodeURIComponent(spaced) : spaced;
}

const UINT32_MAX = 2n ** 32n - 1n;
const INT = /^[+-]?\d+$/;
const UINT = /^\+?\d+$/;
const BOOL_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const BOOL_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

function convert(spec: FieldSpec, text: string): number | bigint | boolean | string {
  const field = `parsing field "${spec.protoName}"`;
  switch (spec.kind) {
    case 'string':
      return text;
    case 'bool':
      if (BOOL_TRUE.has(text)) return true;
      if (BOOL_FALSE.has(text)) return false;
      throw parseError(`${field}: strconv.ParseBool: parsing ${goQuote(text)}: invalid syntax`);
    case 'int32': {
      if (!INT.test(text)) throw parseError(`${field}: strconv.ParseInt: parsing ${goQuote(text)}: invalid syntax`);
      const n = BigInt(text);
      if (n < -(2n ** 31n) || n > 2n ** 31n - 1n)
        throw parseError(`${field}: strconv.ParseInt: parsing ${goQuote(text)}: value out of range`);
      return Number(n);
    }
    case 'uint32': {
      if (!UINT.test(text)) throw parseError(`${field}: strconv.ParseUint: parsing ${goQuote(text)}: invalid syntax`);
      const n = BigInt(text);
      if (n > UINT32_MAX) throw parseError(`${field}: strconv.ParseUint: parsing ${goQuote(text)}: value out of range`);
      return Number(n);
    }
    case 'uint64': {
      if (!UINT.test(text)) throw parseError(`${field}: strconv.ParseUint: parsing ${goQuote(text)}: invalid syntax`);
      const n = BigInt(text);
      if (n > UINT64_MAX) throw parseError(`${field}: strconv.ParseUint: parsing ${goQuote(text)}: value out of range`);
      return checkedUint64(spec, n, text);
    }
  }
}

/**
 * A uint64 field's value, which must fit an int64. (fix) The reference stores these as int64
 * and fails with a 500 above 2^63-1; here it is the parse error of the value (`text`, as given).
 */
export function checkedUint64(spec: FieldSpec, n: bigint, text = String(n)): bigint {
  if (n > INT64_MAX) throw parseError(`parsing field "${spec.protoName}": strconv.ParseInt: parsing ${goQuote(text)}: value out of range`);
  return n;
}

/** Go's %q for the simple strings that appear here. */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** Each operation's field names by query key, made once per operation rather than per request. */
const keyMaps = new WeakMap<Record<string, FieldSpec>, ReadonlyMap<string, string>>();

function fieldsByKey(specs: Record<string, FieldSpec>): ReadonlyMap<string, string> {
  let byKey = keyMaps.get(specs);
  if (byKey === undefined) {
    const map = new Map<string, string>();
    for (const name of Object.keys(specs)) for (const key of specs[name]!.keys) map.set(key, name);
    keyMaps.set(specs, map);
    byKey = map;
  }
  return byKey;
}

/**
 * Reads the fields of `specs` from the query pairs: per field name (the record key) its value,
 * typed by its kind, or undefined when not given; repeated fields give a list (empty when absent).
 */
export function parseQuery<Specs extends Record<string, FieldSpec>>(pairs: readonly [string, string][], specs: Specs): ParsedQuery<Specs> {
  const names = Object.keys(specs) as (keyof Specs & string)[];
  const byKey = fieldsByKey(specs) as ReadonlyMap<string, keyof Specs & string>;

  // Each field's (key, value) pairs, in query order.
  const given = new Map<string, [string, string][]>();
  for (const pair of pairs) {
    const name = byKey.get(pair[0]);
    if (name !== undefined) given.set(name, [...(given.get(name) ?? []), pair]);
  }

  const out: Record<string, unknown> = {};
  for (const name of names) {
    const spec: FieldSpec = specs[name]!;
    const entries = given.get(name) ?? [];
    if (spec.repeated) {
      out[name] = entries.map(([, v]) => convert(spec, v));
      continue;
    }
    if (entries.length === 0) {
      out[name] = undefined;
      continue;
    }
    const [firstKey] = entries[0]!;
    const sameKey = entries.filter(([k]) => k === firstKey);
    if (sameKey.length > 1) throw parseError(`too many values for field "${spec.protoName}": ${sameKey.map(([, v]) => v).join(', ')}`);
    if (entries.length > 1) throw parseError(`field already set for oneof "_${spec.protoName}"`);
    out[name] = convert(spec, entries[0]![1]);
  }
  // Each value was converted by its spec's kind, which is what ParsedQuery says of it.
  return out as ParsedQuery<Specs>;
}
