import { LONG_INTEGER, quoteNumbers } from '../../contract/json-numbers.js';

/**
 * JSON.parse for event lines, except that integer literals too long for a double keep every
 * digit: they are turned into strings first, which is how the rest of ingestion reads 64-bit
 * integers anyway. Only lines that hold such a literal are parsed again: a literal of 16 digits
 * or more parses to an integer of at least 10^15, and looking for one in the parsed value costs
 * a third of scanning the text for it.
 */
export function parseJsonLine(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return hasLongInteger(value) ? JSON.parse(quoteNumbers(text, (literal) => LONG_INTEGER.test(literal))) : value;
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
