import { GraphQLScalarType, Kind } from 'graphql';
import { withoutTrailingZeros } from '../contract/decimal.js';

/**
 * The encodings of graphql.md §3, where GraphQL differs from REST. The operations' nodes are
 * REST's proto3 JSON (64-bit integers as strings, times in Unix ns); these turn its values into
 * the data-node's GraphQL ones.
 */

/**
 * What a zero time serializes to: the data-node writes `null` for it even in a `Timestamp!`
 * field, which graphql-js refuses to return, so the body writer (see body.ts) puts `null` in
 * place of this mark. No RFC3339 text can equal it.
 */
export const ZERO_TIME = '\u0000zero-time';

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/** The civil date of a day since 1970-01-01 (Howard Hinnant's days_from_civil, inverted): Date's toISOString cost 1 µs a time. */
function civil(days: number): string {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return `${String(year).padStart(4, '0')}-${pad2(month)}-${pad2(day)}`;
}

/** The last whole second written: a page's rows are often of the same second. */
let lastSeconds = '';
let lastWhole = '';

/** `YYYY-MM-DDTHH:MM:SS` of Unix seconds (decimal digits, 0 or more). */
function wholeSeconds(text: string): string {
  if (text === lastSeconds) return lastWhole;
  const seconds = Number(text);
  const days = Math.floor(seconds / 86400);
  const rest = seconds - days * 86400;
  lastWhole = `${civil(days)}T${pad2(Math.floor(rest / 3600))}:${pad2(Math.floor((rest % 3600) / 60))}:${pad2(rest % 60)}`;
  lastSeconds = text;
  return lastWhole;
}

/** Go's RFC3339Nano in UTC of a Unix ns value (decimal digits, as REST writes it): the fraction's trailing zeros trimmed, none when zero. */
export function rfc3339Nano(ns: string): string {
  const negative = ns.startsWith('-');
  if (negative || ns.length > 19) return rfc3339NanoBig(BigInt(ns));
  const seconds = ns.length > 9 ? ns.slice(0, -9) : '0';
  const fraction = ns.length > 9 ? ns.slice(-9) : ns.padStart(9, '0');
  const digits = withoutTrailingZeros(fraction);
  return `${wholeSeconds(seconds)}${digits === '' ? '' : `.${digits}`}Z`;
}

/** The same of any int64 (before 1970 too), by Date. */
function rfc3339NanoBig(ns: bigint): string {
  let seconds = ns / 1_000_000_000n;
  let fraction = ns % 1_000_000_000n;
  if (fraction < 0n) {
    fraction += 1_000_000_000n;
    seconds -= 1n;
  }
  const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  const digits = fraction === 0n ? '' : `.${withoutTrailingZeros(fraction.toString().padStart(9, '0'))}`;
  return `${whole}${digits}Z`;
}

/** The data-node's Timestamp scalar: an RFC3339Nano string out (from REST's Unix ns), `null` for zero. */
export const TIMESTAMP = new GraphQLScalarType({
  name: 'Timestamp',
  description: 'RFC3339Nano value for time',
  serialize(value) {
    const ns = String(value);
    return /^-?0*$/.test(ns) ? ZERO_TIME : rfc3339Nano(ns);
  },
  parseValue: (value) => value,
  parseLiteral: (ast) => (ast.kind === Kind.STRING ? ast.value : undefined),
});
