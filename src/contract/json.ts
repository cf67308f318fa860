/**
 * JSON text as the reference gateway writes it: compact (or indented for ?pretty), field order as
 * built, and strings escaped like Go's encoding/json (`<`, `>`, `&`, U+2028 and U+2029 as \u
 * escapes). Page bodies are written by PostgreSQL with the same rules (see pagination/sql-json).
 */
const GO_ESCAPES = /[<>&\u2028\u2029]/g;
const ESCAPE: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

export function goJson(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent);
  // Outside strings JSON has none of these characters, so replacing over the whole text is safe.
  return GO_ESCAPES.test(text) ? text.replace(GO_ESCAPES, (c) => ESCAPE[c]!) : text;
}
