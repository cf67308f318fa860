/**
 * Vega ids: even-length hex, either case, compared and returned in lowercase. A few one-byte ids
 * have well-known names that are accepted on input and shown on output (contract §2; pages
 * show them through pagination/sql-json.ts's sqlId).
 */
export const WELL_KNOWN: ReadonlyArray<readonly [name: string, hex: string]> = [
  ['VOTE', '00'],
  ['network', '03'],
  ['XYZalpha', '04'],
  ['XYZbeta', '05'],
  ['XYZdelta', '06'],
  ['XYZepsilon', '07'],
  ['XYZgamma', '08'],
  ['fBTC', '09'],
  ['fDAI', '0a'],
  ['fEURO', '0b'],
  ['fUSDC', '0c'],
];
const HEX_BY_NAME = new Map(WELL_KNOWN.map(([n, h]) => [n, h]));
const HEX = /^(?:[0-9a-fA-F]{2})*$/;
const LOWER_HEX = /^[0-9a-f]*$/;

/** The lowercase hex of an id given as hex or by its well-known name; undefined if neither. */
export function parseId(text: string): string | undefined {
  // Nearly every id (all of the events') comes as lowercase hex: returned as it is after one
  // cheap test, since no well-known name is lowercase hex.
  if (text.length % 2 === 0 && LOWER_HEX.test(text)) return text;
  const known = HEX_BY_NAME.get(text);
  if (known !== undefined) return known;
  return HEX.test(text) ? text.toLowerCase() : undefined;
}

/** The message the reference data-node gives for an id it cannot decode. */
export function badIdMessage(text: string): string {
  return `decoding '${text}': not a valid hex id (or well known exception)`;
}

/** The lowercase hex of an id, else the error `invalid` makes of the data-node's message. */
export function requireId(text: string, invalid: (message: string) => Error): string {
  const id = parseId(text);
  if (id === undefined) throw invalid(badIdMessage(text));
  return id;
}
