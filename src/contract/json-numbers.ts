/** An integer literal a double may not hold exactly: 16 digits or more (10^15 and up). */
export const LONG_INTEGER = /^-?\d{16,}$/;

/**
 * Rewrites JSON text so that each number literal `quote` picks becomes a string of the same
 * characters. JSON.parse keeps no trace of a literal's spelling: this is how a reader tells
 * 12345678901234567890 from its nearest double, or 1.0 from 1.
 */
export function quoteNumbers(text: string, quote: (literal: string) => boolean): string {
  let out = '';
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      continue;
    }
    const isDigit = c >= 0x30 && c <= 0x39;
    if (c !== 0x2d && !isDigit) continue;
    let j = i + 1;
    while (j < text.length && /[0-9.eE+-]/.test(text[j]!)) j++;
    const literal = text.slice(i, j);
    if (quote(literal)) {
      out += `${text.slice(last, i)}"${literal}"`;
      last = j;
    }
    i = j - 1;
  }
  return out + text.slice(last);
}
