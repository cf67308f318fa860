// Exact arithmetic on the API's decimal strings. Amounts are integers of an asset's smallest unit
// (often 18 decimals: beyond a double's 53 bits) and quantum values carry fractions, so sums,
// comparisons and unit conversion are done on BigInt, never on floats. Numbers (floats) are made
// only for drawing, where a pixel is coarser than their error.

import { withoutTrailingZeros } from '../src/contract/decimal.js';

/** A decimal as an integer scaled by 10^scale. */
interface Scaled {
  value: bigint;
  scale: number;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

function parse(text: string): Scaled {
  const m = DECIMAL.exec(text);
  if (!m) throw new Error(`not a decimal number: ${JSON.stringify(text)}`);
  const fraction = m[3] ?? '';
  const value = BigInt(m[2]! + fraction);
  return { value: m[1] ? -value : value, scale: fraction.length };
}

function rescale(n: Scaled, scale: number): bigint {
  return n.value * 10n ** BigInt(scale - n.scale);
}

/** The plain decimal text of value / 10^scale: no exponent, no trailing fractional zeros. */
function format(value: bigint, scale: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = withoutTrailingZeros(digits.slice(whole.length));
  return (negative ? '-' : '') + whole + (fraction ? `.${fraction}` : '');
}

/** The exact sum of decimal strings ("0" for none). */
export function sumDecimals(values: Iterable<string>): string {
  const parsed = [...values].map(parse);
  const scale = parsed.reduce((max, n) => Math.max(max, n.scale), 0);
  return format(
    parsed.reduce((sum, n) => sum + rescale(n, scale), 0n),
    scale,
  );
}

/** -1, 0 or 1 as a is less than, equal to or greater than b. */
export function compareDecimals(a: string, b: string): number {
  const x = parse(a);
  const y = parse(b);
  const scale = Math.max(x.scale, y.scale);
  const d = rescale(x, scale) - rescale(y, scale);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/**
 * An integer amount of an asset's smallest unit in the asset's units: "1234500" with 6 decimals
 * is "1.2345". Exact: string arithmetic on the digits.
 */
export function applyDecimals(raw: string, decimals: number): string {
  const n = parse(raw);
  return format(n.value, decimals + n.scale);
}

/**
 * Groups the integer digits in threes: "1234567.891" → "1,234,567.891". By slices, not the usual
 * /\B(?=(\d{3})+(?!\d))/g, whose lookahead reads to the end from every digit: quadratic, and
 * the digits come from the chain (as trailing zeros are cut by withoutTrailingZeros, not /0+$/).
 */
export function groupDigits(text: string): string {
  const [whole, fraction] = text.split('.') as [string, string | undefined];
  const sign = whole.startsWith('-') ? '-' : '';
  const digits = whole.slice(sign.length);
  const groups: string[] = [];
  for (let start = ((digits.length - 1) % 3) + 1, from = 0; from < digits.length; from = start, start += 3) {
    groups.push(digits.slice(from, start));
  }
  const grouped = sign + groups.join(',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}
