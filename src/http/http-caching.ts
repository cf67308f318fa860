import { hash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acceptedEncoding } from './compression.js';

/**
 * Caches, in one place. An API answer can come from three layers, each invalidated by what it
 * keeps:
 *
 * 1. **The response cache** (response-cache.ts), in the process: whole answers by URL. Ingestion
 *    records for each read model the height of the last block that changed it, and the store
 *    announces the head with those versions; an answer goes when a block changes a read model
 *    its operation reads (`reads`), and all go when the head is unknown or goes back.
 * 2. **The row cache** (pagination/row-cache.ts), in the process: the rendered text of page rows
 *    by row version. Nothing is invalidated: a changed row gets a new version, so a kept text is
 *    never wrong, only no longer asked; texts go by age when it is full, and all go with the
 *    response cache's (another chain's versions name other rows).
 * 3. **HTTP caches outside the process** (this module): browsers, nginx, CDNs. Every successful
 *    API answer (REST, and GraphQL GETs of our own fields) carries an `ETag` made of the versions
 *    of the read models its operation reads, and `Cache-Control: public, max-age=1,
 *    stale-while-revalidate=1`. A cache keeps it a second, then asks again with `If-None-Match`;
 *    while no block changed those read models the tag is the same and the answer is a 304 that
 *    reads nothing from the store (not even the response cache; once the process has answered
 *    the URL: see AnsweredUrls), and a block that changed one of them makes a new tag, so the
 *    revalidation gets the new answer.
 *
 * **The tag** is a hash of the code that makes the answers (codeHash below), the representation
 * the request negotiates (identity, or gzip or deflate with zlib's version) and the versions of
 * the read models the URL's operation reads (a GraphQL GET's: of every root field's operation,
 * and the schema's hash). Not of the URL itself: a validator tells apart the answers of one URL
 * (RFC 9110 §8.8.3; every cache compares the tags of the URL it keeps), and those differ only by
 * the versions. So a tag is made once per state, not hashed per request (a SHA-256 of the URL was
 * 2% of the instructions of a 50-row page's answer); URLs that read the same models share it, and
 * whether the URL a tag is sent with has an answer is told by the URLs answered (AnsweredUrls).
 * An answer gets one only when it is the answer at the versions the process knows (ResponseCache
 * stampOfAnswer): one read in a snapshot newer than the last head notice, or older than a change
 * of what it reads, is sent without, so no tag ever names the bytes of other versions.
 * The same URL at the same versions is the same bytes from every worker of `--workers N` and
 * every hot standby of the chain running the same code, so the tag is strong (`"…"`, not `W/`):
 * a cache may compare it byte for byte, and an answer read by one process is validated by
 * another. The compressed representations have tags of their own, as RFC 9110 §8.8.3 asks: a
 * cache that holds the gzipped bytes and revalidates for a client that takes identity must not
 * get a 304 that would serve it gzip. nginx passes our gzipped bytes and their tags through as
 * they are (it compresses only what arrives uncompressed, and then weakens the tag itself); a CDN
 * that recompresses (brotli at the edge) weakens or drops a strong tag, as the RFC asks of it,
 * and `If-None-Match` compares weakly, so `W/"…"` from such a cache matches too.
 *
 * **The freshness**: `max-age=1` because a read model changes at most once per block and Vega's
 * blocks are about a second apart: an answer through a cache is a second or so older than the
 * origin's at most (nginx counts whole seconds, so up to two), and every second each cached URL
 * costs the origin one revalidation, a 304 without a store read. `stale-while-revalidate=1` lets
 * the cache answer from its expired copy while one request revalidates it, instead of sending
 * every request that arrives meanwhile to the origin (nginx sends all of them otherwise, unless
 * told `proxy_cache_use_stale updating` as the README's configuration does), so that a popular URL
 * costs one full answer per change of its read models, not one per request in flight; a stale
 * copy is served only during such a revalidation, and for at most a second more.
 *
 * **Vary**: `Accept-Encoding` on every tagged answer, compressed or not (whether an answer is
 * compressed depends on it, and a cache must not hand a gzip answer to a client that did not ask
 * for it). Not `Origin`: CORS allows every origin with the same `*`, so the answer does not
 * depend on it.
 *
 * **Not stored** (`no-store`, no tag): errors (a 503 or 504 is over the moment it is sent, a 429
 * is one client's, and a 400 costs no store read to answer again), GraphQL POSTs and answers with errors,
 * GraphQL answers with fields from `--graphql-upstream` (what they read and when they change is
 * the upstream's to say, and the data-node says nothing), and answers while the head's versions
 * are unknown (the listening connection down): a cache cannot revalidate them.
 */

/** The Cache-Control of a tagged answer (see above). */
export const CACHE_CONTROL = 'public, max-age=1, stale-while-revalidate=1';

/** The Cache-Control of every answer that carries no tag (see above). */
export const NO_STORE = 'no-store';

/**
 * A hash of the code that makes the answers: the compiled modules and migrations beside this
 * one (dist/, or src/ when run from the sources), the explorer's pages left out. A build that
 * changes an answer's bytes changes every tag, so no cache revalidates an answer of the old build
 * into a 304 of the new one; processes of one build agree.
 */
function codeHash(): string {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => /\.(js|ts|sql)$/.test(f) && !f.startsWith('web')).sort();
  const parts = files.map((f) => `${f}\n${hash('sha256', readFileSync(join(root, f)), 'base64url')}`);
  return hash('sha256', parts.join('\n'), 'base64url');
}

let code: string | undefined;

/** The representation a request negotiates, with what its bytes depend on beyond the answer's. */
function representationOf(headers: IncomingHttpHeaders): string {
  const encoding = acceptedEncoding(headers);
  return encoding === undefined ? 'identity' : `${encoding} zlib ${process.versions.zlib}`;
}

/** The tags made, by scope, representation and stamp: a few per read model and block. */
const tags = new Map<string, string>();
const MAX_TAGS = 1024;

/**
 * The entity tag of an answer at the versions `stamp` (an operation's; see ResponseCache.stamp),
 * in the representation the request's headers negotiate. `scope` is what else the answers
 * depend on ('' for REST; a GraphQL GET's schema hash).
 */
export function entityTag(scope: string, stamp: string, headers: IncomingHttpHeaders): string {
  const key = `${scope}\n${representationOf(headers)}\n${stamp}`;
  let tag = tags.get(key);
  if (tag === undefined) {
    code ??= codeHash();
    tag = `"${hash('sha256', `${code}\n${key}`, 'base64url')}"`;
    // Those of past blocks are never asked again: forgotten all at once, not one by one.
    if (tags.size >= MAX_TAGS) tags.clear();
    tags.set(key, tag);
  }
  return tag;
}

/**
 * Whether the request's If-None-Match names `tag` (compared weakly, as RFC 9110 §13.1.2 asks:
 * `W/` ignored), or is `*`, which a GET's current answer matches whatever its tag (the callers
 * ask only when there is one).
 */
export function notModified(headers: IncomingHttpHeaders, tag: string): boolean {
  const header = headers['if-none-match'];
  if (header === undefined) return false;
  for (const item of header.split(',')) {
    const t = item.trim();
    if (t === '*' || (t.startsWith('W/') ? t.slice(2) : t) === tag) return true;
  }
  return false;
}

const MAX_ANSWERED_CHARS = 4 * 2 ** 20;

/**
 * The URLs a server has answered successfully, noted where an answer is made (a response cache's
 * hit was made there first), so that the 304 before anything is read goes only to a URL whose
 * answer would be a 2xx: a precondition applies only then (RFC 9110 §13.2.1), and a tag does not
 * name its URL (see above), so the current tag sent with `?pagination.first=abc` matched too.
 * Whether a URL has an answer is the URL's matter (its query string, ids, cursors, document);
 * where the data decides (no current referral program: 404), the versions the tag names move
 * with it. Up to MAX_ANSWERED_CHARS of URLs, forgotten all at once when full; a URL not known
 * is answered in full first, then 304 if its tag is the one named. One per server (server.ts),
 * REST's and GraphQL's together.
 */
export class AnsweredUrls {
  private readonly urls = new Set<string>();
  private chars = 0;

  /** Notes that `url` was answered successfully (a 2xx whatever the versions). */
  note(url: string): void {
    if (this.urls.has(url)) return;
    if (this.chars + url.length > MAX_ANSWERED_CHARS) {
      this.urls.clear();
      this.chars = 0;
    }
    this.urls.add(url);
    this.chars += url.length;
  }

  has(url: string): boolean {
    return this.urls.has(url);
  }
}

/** The headers that let HTTP caches keep and revalidate an answer with this tag. */
export function cacheHeaders(tag: string): Record<string, string> {
  return { 'cache-control': CACHE_CONTROL, etag: tag, vary: 'accept-encoding' };
}
