/** Exact decimal helpers for amounts and volumes that do not fit a double. */

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * Rounds a decimal string to an integer, half away from zero (2.5 → 3, -2.5 → -3,
 * 1.4999999 → 1). Returns undefined when the text is not a decimal number.
 */
export function roundHalfAwayFromZero(text: string): bigint | undefined {
  const m = DECIMAL.exec(text.trim());
  if (!m) return undefined;
  const [, sign, intPart = '', fracPart = '', expText] = m;
  if (intPart === '' && fracPart === '') return undefined;
  const exp = expText === undefined ? 0 : Number(expText);
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > 4096) return undefined;
  // Shift the decimal point by the exponent over the digit string.
  let digits = intPart + fracPart;
  let point = intPart.length + exp;
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  const whole = BigInt(digits.slice(0, point) || '0');
  const roundsUp = (digits[point] ?? '0') >= '5';
  const magnitude = roundsUp ? whole + 1n : whole;
  return sign === '-' ? -magnitude : magnitude;
}

/**
 * The text without its trailing '0's. A loop, not /0+$/: that regex retries from every zero of a
 * run that does not end the text, quadratic in its length (a factor from the chain with 40,000
 * zeros before a 1 held the event loop for 5 s).
 */
export function withoutTrailingZeros(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 48) end--;
  return text.slice(0, end);
}

const INTEGER = /^[+-]?\d+$/;

/** Parses an integer given as a decimal string, a JSON number or a bigint (a binary event's); undefined otherwise. */
export function parseInteger(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'string') return INTEGER.test(value) ? BigInt(value) : undefined;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  return undefined;
}
