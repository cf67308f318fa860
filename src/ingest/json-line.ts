/**
 * JSON.parse for event lines, except that integer literals too long for a double keep every
 * digit: they are turned into strings first, which is how the rest of ingestion reads 64-bit
 * integers anyway. Only lines that hold such a literal are parsed again: a literal of 16 digits
 * or more parses to an integer of at least 10^15, and looking for one in the parsed value costs
 * a third of scanning the text for it.
 */
export function parseJsonLine(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return hasLongInteger(value) ? JSON.parse(quoteLongNumbers(text)) : value;
}

function hasLongInteger(v: unknown): boolean {
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) >= 1e15;
  if (typeof v !== 'object' || v === null) return false;
  if (Array.isArray(v)) {
    for (const x of v) if (hasLongInteger(x)) return true;
    return false;
  }
  for (const key in v) if (hasLongInteger((v as Record<string, unknown>)[key])) return true;
  return false;
}

function quoteLongNumbers(text: string): string {
  let out = '';
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
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
    const token = text.slice(i, j);
    if (/^-?\d{16,}$/.test(token)) {
      out += `${text.slice(last, i)}"${token}"`;
      last = j;
    }
    i = j - 1;
  }
  return out + text.slice(last);
}
