import { WELL_KNOWN } from '../contract/ids.js';

/**
 * SQL expressions that write JSON text the way the contract does (§3), so that PostgreSQL builds
 * a page's body and the process only forwards it. Each takes SQL text and returns SQL text.
 */

/** A bytea id as shown: lowercase hex, or the well-known name of a one-byte id (contract §2). */
export function sqlId(bytea: string): string {
  const names = WELL_KNOWN.map(([name, hex]) => `WHEN ${parseInt(hex, 16)} THEN '${name}'`).join(' ');
  // The length test first: nearly every id is longer than one byte and takes one branch.
  return `(CASE WHEN length(${bytea}) = 1 THEN CASE get_byte(${bytea}, 0) ${names} ELSE encode(${bytea}, 'hex') END ELSE encode(${bytea}, 'hex') END)`;
}

/** Text known to need no escaping (ids, decimal numbers) as a JSON string. */
export function sqlPlainString(text: string): string {
  return `'"' || ${text} || '"'`;
}

/** `json` (SQL writing a JSON value from `value`), or JSON null when `value` is NULL. */
export function sqlNullable(value: string, json: string): string {
  return `CASE WHEN ${value} IS NULL THEN 'null' ELSE ${json} END`;
}

/**
 * Any text as a JSON string escaped like Go's encoding/json: PostgreSQL's to_json escapes quotes,
 * backslashes and control characters, and `<`, `>`, `&`, U+2028 and U+2029 are escaped after.
 */
export function sqlJsonString(text: string): string {
  let sql = `to_json(${text}::text)::text`;
  for (const [c, escaped] of [
    ['<', '\\u003c'],
    ['>', '\\u003e'],
    ['&', '\\u0026'],
    ['\u2028', '\\u2028'],
    ['\u2029', '\\u2029'],
  ]) {
    sql = `replace(${sql}, '${c}', '${escaped}')`;
  }
  return sql;
}

/** Standard padded base64 of a text's UTF-8 bytes, on one line (PostgreSQL breaks lines every 76 characters; Go does not). */
export function sqlBase64(text: string): string {
  return `translate(encode(convert_to(${text}, 'UTF8'), 'base64'), E'\\n', '')`;
}

/**
 * Unix ns (a bigint) as Go's RFC3339Nano in UTC: `2024-02-29T23:40:00.25Z`, the fraction's
 * trailing zeros trimmed and no fraction when it is zero. Floor division keeps times before 1970
 * right; numeric keeps the whole int64 range from overflowing.
 */
export function sqlRfc3339Nanos(ns: string): string {
  const frac = `((${ns} % 1000000000 + 1000000000) % 1000000000)`;
  return (
    `to_char(to_timestamp(floor(${ns}::numeric / 1000000000)::float8) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || ` +
    `CASE WHEN ${frac} = 0 THEN '' ELSE '.' || rtrim(lpad(${frac}::text, 9, '0'), '0') END || 'Z'`
  );
}
