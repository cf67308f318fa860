/**
 * The parameters of a GET /graphql query string, as URLSearchParams reads them (WHATWG's
 * application/x-www-form-urlencoded parser: `+` is a space, the first of a repeated name counts)
 * but without its cost: its decoding in JavaScript was 4 to 5 µs of a 50-row answer's CPU (the
 * document makes a long query string), where decodeURIComponent is native. Where the two could
 * differ (an escape that is not one, or bytes that are not UTF-8, which decodeURIComponent
 * refuses) URLSearchParams reads the whole string.
 */

/** Reads `get(name)` of the parameters of `query` (the text after `?`). */
export function getParams(query: string): { get(name: string): string | null } {
  const params = new Map<string, string>();
  try {
    for (const pair of query.split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const name = decode(eq < 0 ? pair : pair.slice(0, eq));
      if (params.has(name)) continue;
      const value = eq < 0 ? '' : pair.slice(eq + 1);
      params.set(name, name === 'query' ? decodeDocument(value) : decode(value));
    }
  } catch (err) {
    if (!(err instanceof URIError)) throw err;
    return new URLSearchParams(query);
  }
  return { get: (name) => params.get(name) ?? null };
}

function decode(text: string): string {
  return decodeURIComponent(text.includes('+') ? text.replaceAll('+', ' ') : text);
}

/**
 * Decoded documents by their encoded text: a client sends the same few documents with other
 * variables each time, and decoding one was still 2 to 3 µs. The most recent 1,000 of up to
 * 16 KiB are kept (the document cache keeps as many parsed).
 */
const documents = new Map<string, string>();
const KEPT_DOCUMENTS = 1000;
const KEPT_DOCUMENT_LENGTH = 16 * 1024;

function decodeDocument(text: string): string {
  let decoded = documents.get(text);
  if (decoded === undefined) {
    decoded = decode(text);
    if (text.length <= KEPT_DOCUMENT_LENGTH) {
      if (documents.size >= KEPT_DOCUMENTS) documents.delete(documents.keys().next().value!);
      documents.set(text, decoded);
    }
  }
  return decoded;
}
