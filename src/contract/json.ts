/**
 * JSON text as the reference gateway writes it: compact, field order as built, and strings
 * escaped like Go's encoding/json (`<`, `>`, `&`, U+2028 and U+2029 as \u escapes).
 */
const GO_ESCAPES = /[<>&\u2028\u2029]/g;
const ESCAPE: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * A body whose compact Go-style JSON text is already built (page bodies: see pageJson). goJson
 * returns the text as it is, or re-indents it for ?pretty.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

export function goJson(value: unknown, indent?: number): string {
  if (value instanceof JsonText) {
    if (indent === undefined) return value.text;
    value = JSON.parse(value.text);
  }
  const text = JSON.stringify(value, null, indent);
  // Outside strings JSON has none of these characters, so replacing over the whole text is safe.
  return GO_ESCAPES.test(text) ? text.replace(GO_ESCAPES, (c) => ESCAPE[c]!) : text;
}

/** Characters a JSON string may hold as they are, with no escape (Go's rules included). */
const PLAIN = /^[\w .:+/=-]*$/;

/** A string as a Go-style JSON string literal; the common plain strings take a fast path. */
export function jsonString(s: string): string {
  return PLAIN.test(s) ? `"${s}"` : goJson(s);
}
