/**
 * Statement parameters as PostgreSQL's text input reads them, for both stores: the embedded
 * store's wire (pglite-wire.ts) and the server's (postgres-store.ts hands node-postgres an
 * array's text instead of the array). Ingestion passes the rows of a batch as arrays of up to
 * 100,000 elements; node-postgres quoted each element with two regular-expression replaces,
 * 7% of ingest's main-thread CPU, where nearly every element is a hex id or a decimal that
 * needs no escape: such an array is joined whole, 2 to 3 times faster.
 */

/** Characters that must be escaped inside a quoted array element. */
const ESCAPED = /[\\"]/;
const ESCAPED_ALL = /[\\"]/g;

/** A parameter's text (null for NULL): booleans as t/f, arrays as array literals of quoted elements. */
export function paramText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (Array.isArray(value)) return arrayText(value);
  return String(value);
}

function arrayText(values: readonly unknown[]): string {
  if (values.length === 0) return '{}';
  if (values.every((v) => typeof v === 'string') && !ESCAPED.test(values.join(''))) return `{"${values.join('","')}"}`;
  return `{${values.map(arrayElement).join(',')}}`;
}

function arrayElement(value: unknown): string {
  const text = paramText(value);
  return text === null ? 'NULL' : `"${text.replace(ESCAPED_ALL, '\\$&')}"`;
}

/** The parameters with each array as its text (others as they are, for node-postgres to send). */
export function withArraysAsText(params: readonly unknown[]): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < params.length; i++) {
    if (!Array.isArray(params[i])) continue;
    out ??= [...params];
    out[i] = arrayText(params[i] as unknown[]);
  }
  return out ?? (params as unknown[]);
}
