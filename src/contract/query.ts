import { parseError } from './errors.js';

/**
 * Query strings parsed the way the reference grpc-gateway does (contract §2): every field under
 * its JSON name and its proto name, repeated fields by repeating the key, a singular field given
 * twice is an error, `+` is a space, unknown keys are ignored. Error texts follow the gateway's.
 */
export type FieldKind = 'int32' | 'uint64' | 'bool' | 'string';

export interface FieldSpec {
  /** Query keys that set this field: the JSON name first, then the proto name when different. */
  keys: readonly string[];
  /** The proto field name, as the gateway's messages show it. */
  protoName: string;
  kind: FieldKind;
  repeated?: boolean;
}

export type ParsedValue = number | bigint | boolean | string | string[];

const BAD_ESCAPE = /%(?![0-9a-fA-F]{2}).{0,2}/;

/** Splits a raw query string (without "?") into decoded (key, value) pairs, in order. */
export function queryPairs(raw: string): [string, string][] {
  const bad = BAD_ESCAPE.exec(raw);
  if (bad) throw parseError(`invalid URL escape ${JSON.stringify(bad[0])}`);
  const pairs: [string, string][] = [];
  for (const [k, v] of new URLSearchParams(raw)) pairs.push([k, v]);
  return pairs;
}

const INT = /^[+-]?\d+$/;
const UINT = /^\+?\d+$/;
const BOOL_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const BOOL_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

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
      if (n < -(2n ** 31n) || n > 2n ** 31n - 1n) throw parseError(`${field}: strconv.ParseInt: parsing ${goQuote(text)}: value out of range`);
      return Number(n);
    }
    case 'uint64': {
      if (!UINT.test(text)) throw parseError(`${field}: strconv.ParseUint: parsing ${goQuote(text)}: invalid syntax`);
      const n = BigInt(text);
      if (n > UINT64_MAX) throw parseError(`${field}: strconv.ParseUint: parsing ${goQuote(text)}: value out of range`);
      // (fix) The reference stores these as int64 and fails with a 500 above 2^63-1.
      if (n > INT64_MAX) throw parseError(`${field}: strconv.ParseInt: parsing ${goQuote(text)}: value out of range`);
      return n;
    }
  }
}

/** Go's %q for the simple strings that appear here. */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

/**
 * Reads the fields of `specs` from the query pairs. Returns, per field name (the record key),
 * its value, or undefined when not given; repeated fields give an array (empty when absent).
 */
export function parseQuery<K extends string>(pairs: readonly [string, string][], specs: Record<K, FieldSpec>): Record<K, ParsedValue | undefined> {
  const byKey = new Map<string, { name: K; spec: FieldSpec }>();
  for (const name of Object.keys(specs) as K[]) for (const key of specs[name].keys) byKey.set(key, { name, spec: specs[name] });

  // Each field's (key, value) pairs, in query order.
  const given = new Map<K, [string, string][]>();
  for (const pair of pairs) {
    const field = byKey.get(pair[0]);
    if (field) given.set(field.name, [...(given.get(field.name) ?? []), pair]);
  }

  const out = {} as Record<K, ParsedValue | undefined>;
  for (const name of Object.keys(specs) as K[]) {
    const spec = specs[name];
    const entries = given.get(name) ?? [];
    if (spec.repeated) {
      out[name] = entries.map(([, v]) => convert(spec, v) as string);
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
  return out;
}

/** The pagination fields every operation accepts. */
export const PAGINATION_FIELDS = {
  first: { keys: ['pagination.first'], protoName: 'first', kind: 'int32' },
  after: { keys: ['pagination.after'], protoName: 'after', kind: 'string' },
  last: { keys: ['pagination.last'], protoName: 'last', kind: 'int32' },
  before: { keys: ['pagination.before'], protoName: 'before', kind: 'string' },
  newestFirst: { keys: ['pagination.newestFirst', 'pagination.newest_first'], protoName: 'newest_first', kind: 'bool' },
} as const satisfies Record<string, FieldSpec>;
