import { GraphQLScalarType, Kind } from 'graphql';

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

/** Go's RFC3339Nano in UTC of a Unix ns value: the fraction's trailing zeros trimmed, none when zero. */
export function rfc3339Nano(ns: bigint): string {
  let seconds = ns / 1_000_000_000n;
  let fraction = ns % 1_000_000_000n;
  if (fraction < 0n) {
    fraction += 1_000_000_000n;
    seconds -= 1n;
  }
  const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  const digits = fraction === 0n ? '' : `.${fraction.toString().padStart(9, '0').replace(/0+$/, '')}`;
  return `${whole}${digits}Z`;
}

/** The data-node's Timestamp scalar: an RFC3339Nano string out (from REST's Unix ns), `null` for zero. */
export const TIMESTAMP = new GraphQLScalarType({
  name: 'Timestamp',
  description: 'RFC3339Nano value for time',
  serialize(value) {
    const ns = BigInt(value as string);
    return ns === 0n ? ZERO_TIME : rfc3339Nano(ns);
  },
  parseValue: (value) => value,
  parseLiteral: (ast) => (ast.kind === Kind.STRING ? ast.value : undefined),
});
