import { formDecode, formPairs } from '../contract/query.js';

/**
 * The parameters of a GET /graphql query string, as URLSearchParams reads them (the first of a
 * repeated name counts), decoded as REST's are (formPairs), the document through the kept ones.
 */

/** Reads `get(name)` of the parameters of `query` (the text after `?`). */
export function getParams(query: string): { get(name: string): string | null } {
  const params = new Map<string, string>();
  for (const [name, value] of formPairs(query, (name, text) => (name === 'query' ? decodeDocument(text) : formDecode(text))))
    if (!params.has(name)) params.set(name, value);
  return { get: (name) => params.get(name) ?? null };
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
    decoded = formDecode(text);
    if (text.length <= KEPT_DOCUMENT_LENGTH) {
      if (documents.size >= KEPT_DOCUMENTS) documents.delete(documents.keys().next().value!);
      documents.set(text, decoded);
    }
  }
  return decoded;
}
