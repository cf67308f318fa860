import { parseId } from '../contract/ids.js';
import { INT64_MAX, INT64_MIN, UINT64_MAX } from '../contract/int64.js';
import type { CursorDef, PositionOf } from '../contract/message.js';
import { LONG_INTEGER, quoteNumbers } from '../contract/json-numbers.js';
import { decodeGoBase64, Base64Error } from './go-base64.js';

/**
 * Cursors are standard padded base64 of compact JSON, byte-compatible with the reference
 * data-node; PostgreSQL writes them into the pages (see sql-json.ts), and this reads them back.
 * Decoding follows Go's encoding/json: keys match case-insensitively, unknown keys are ignored, a
 * missing key leaves the zero value, a value of the wrong type is an error.
 */
const FRACTION_OR_EXPONENT = /[.eE]/;

/**
 * Where a cursor may hold an integer literal a double may not hold (LONG_INTEGER): a field's value
 * is then a bigint, exact. An epoch past 2^53 read as a double named its neighbour, and paging by
 * its cursor repeated a row for ever.
 */
const LONG_INTEGER_IN = /\d{16}/;

/** Why a cursor could not be used; the text goes after "failed to decode <which> cursor: ". */
export class CursorError extends Error {}

/** Decodes the base64 and JSON of a cursor into its object, or throws CursorError. */
export function decodeCursorObject(cursor: string): Map<string, unknown> {
  if (cursor === '') throw new CursorError('cursor is empty');
  let bytes: Buffer;
  try {
    bytes = decodeGoBase64(cursor);
  } catch (err) {
    if (err instanceof Base64Error) throw new CursorError(`failed to decode cursor: ${err.message}`);
    throw err;
  }
  let value: unknown;
  try {
    const text = bytes.toString('utf8');
    value = JSON.parse(text);
    // Then a fraction or exponent (1.0, 1e2) is read as text: Go does not decode such a literal
    // into an integer field, and no cursor field is a float (a decimal amount may be a string).
    // A long integer too, and then made a bigint (LONG_INTEGER).
    if (FRACTION_OR_EXPONENT.test(text) || LONG_INTEGER_IN.test(text)) {
      value = withLongIntegers(
        value,
        JSON.parse(quoteNumbers(text, (literal) => FRACTION_OR_EXPONENT.test(literal) || LONG_INTEGER.test(literal))),
      );
    }
  } catch {
    throw new CursorError('invalid cursor');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CursorError('invalid cursor');
  // Case-insensitive keys; a later duplicate wins, as in Go.
  const fields = new Map<string, unknown>();
  for (const [k, v] of Object.entries(value)) fields.set(k.toLowerCase(), v);
  return fields;
}

/**
 * `quoted` (the cursor read with its number literals of note as strings) with each top-level
 * value that `parsed` read as a number and whose literal is a long integer made a bigint: the
 * input's own strings of digits stay strings.
 */
function withLongIntegers(parsed: unknown, quoted: unknown): unknown {
  if (typeof parsed !== 'object' || parsed === null || typeof quoted !== 'object' || quoted === null) return quoted;
  const out = quoted as Record<string, unknown>;
  for (const [key, v] of Object.entries(parsed)) {
    const text = out[key];
    if (typeof v === 'number' && typeof text === 'string' && LONG_INTEGER.test(text)) out[key] = BigInt(text);
  }
  return out;
}

/** Field readers for decoded cursor objects; null (JSON null) and absence give the zero value. */
export const cursorField = {
  string(fields: Map<string, unknown>, key: string): string {
    const v = fields.get(key.toLowerCase());
    if (v === undefined || v === null) return '';
    // No text PostgreSQL holds has a NUL (it refuses one as a parameter): a position with one is no row's.
    if (typeof v !== 'string' || v.includes('\0')) throw new CursorError('invalid cursor');
    return v;
  },
  /** An id (hex or well-known name), returned as lowercase hex. */
  id(fields: Map<string, unknown>, key: string): string {
    const id = parseId(cursorField.string(fields, key));
    if (id === undefined) throw new CursorError('invalid cursor');
    return id;
  },
  /** A JSON integer, exactly (a long one is a bigint: LONG_INTEGER), of 64 bits signed or not. */
  int64(fields: Map<string, unknown>, key: string): bigint {
    const v = fields.get(key.toLowerCase());
    if (v === undefined || v === null) return 0n;
    if (typeof v === 'number') return BigInt(v);
    if (typeof v === 'bigint' && v >= INT64_MIN && v <= UINT64_MAX) return v;
    throw new CursorError('invalid cursor');
  },
};

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Parses an RFC 3339 time (as Go's time.Time JSON decoding does) into Unix nanoseconds. */
export function parseRfc3339Nanos(text: string): bigint | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = '', z, sign, oh, om] = m;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  const ms = Date.UTC(Number(y), month - 1, day, Number(h), Number(mi), Number(s));
  // Date.UTC maps years 0-99 to 1900-1999; fix those up, and reject dates like Feb 30.
  const date = new Date(ms);
  if (Number(y) < 100) date.setUTCFullYear(Number(y));
  if (date.getUTCDate() !== day) return undefined;
  const offsetMinutes = z ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const seconds = BigInt(date.getTime() / 1000) - BigInt(offsetMinutes * 60);
  return seconds * 1_000_000_000n + BigInt(frac.padEnd(9, '0'));
}

const DECIMAL_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const clampInt64 = (n: bigint) => (n < INT64_MIN ? INT64_MIN : n > INT64_MAX ? INT64_MAX : n);

/** Decodes a cursor into the position its definition gives, or throws CursorError. */
export function decodePosition<C extends CursorDef>(def: C, cursor: string): PositionOf<C> {
  const fields = decodeCursorObject(cursor);
  const position: Record<string, bigint | string> = {};
  for (const f of def.fields) {
    const value = decodeField(fields, f.key, f.type);
    if (f.position !== undefined && value !== undefined) position[f.position] = value;
  }
  return position as PositionOf<C>;
}

function decodeField(fields: Map<string, unknown>, key: string, type: CursorDef['fields'][number]['type']): bigint | string | undefined {
  switch (type) {
    case 'time': {
      const raw = fields.get(key.toLowerCase());
      // A missing (or null) time is Go's zero time, before every row.
      if (raw === undefined || raw === null) return INT64_MIN;
      const ns = typeof raw === 'string' ? parseRfc3339Nanos(raw) : undefined;
      if (ns === undefined) throw new CursorError('invalid cursor');
      return clampInt64(ns);
    }
    case 'id':
      return cursorField.id(fields, key);
    case 'uint64': {
      // The reference's field is a uint64: a negative number is not a position; one past 2^63 − 1
      // is past every row, as the highest a bigint column holds.
      const n = cursorField.int64(fields, key);
      if (n < 0n) throw new CursorError('invalid cursor');
      return clampInt64(n);
    }
    case 'enum':
      return cursorField.string(fields, key);
    case 'decimal': {
      const v = fields.get(key.toLowerCase());
      if (
        v !== undefined &&
        v !== null &&
        typeof v !== 'number' &&
        typeof v !== 'bigint' &&
        !(typeof v === 'string' && DECIMAL_TEXT.test(v))
      ) {
        throw new CursorError('invalid cursor');
      }
      return undefined;
    }
  }
}
