import negotiate from '@fastify/accept-negotiator';
import type { IncomingHttpHeaders } from 'node:http';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

/**
 * Response compression. @fastify/compress (registered with these settings) compresses what the
 * routes send; the API routes send cached answers gzipped themselves (ResponseCache.gzipped),
 * so that a browser's repeated request costs no compression. Both must negotiate alike.
 */
export const ENCODINGS: ('gzip' | 'deflate')[] = ['gzip', 'deflate'];

/** Bodies shorter than this go uncompressed (@fastify/compress's default threshold). */
export const COMPRESS_MIN_BYTES = 1024;

/**
 * Accept-Encoding with its `*` spelt out as RFC 9110 §12.5.3 reads it: the codings of ENCODINGS
 * the header does not name (x-gzip names gzip), at `*`'s weight. @fastify/compress reads `*` as
 * gzip whatever else is named, so `gzip;q=0, *` got gzip; with `*` spelt out it chooses as the
 * RFC does. Fastify's requests carry it (server.ts sets it first), the fast path's are read through it.
 */
export function spelledOut(accept: string): string {
  if (!accept.includes('*')) return accept;
  const named = new Set<string>();
  const items: string[] = [];
  let star: string | undefined;
  for (const item of accept.split(',')) {
    const semi = item.indexOf(';');
    const coding = (semi >= 0 ? item.slice(0, semi) : item).trim().toLowerCase();
    if (coding === '*') star ??= semi >= 0 ? item.slice(semi) : '';
    else {
      named.add(coding === 'x-gzip' ? 'gzip' : coding);
      items.push(item);
    }
  }
  if (star === undefined) return accept;
  for (const encoding of ENCODINGS) if (!named.has(encoding)) items.push(`${encoding}${star}`);
  return items.join(',');
}

/** The encoding a request takes, as @fastify/compress chooses it (from the header spelt out); undefined for none. */
export function acceptedEncoding(headers: IncomingHttpHeaders): 'gzip' | 'deflate' | undefined {
  const accept = headers['accept-encoding'];
  if (typeof accept !== 'string' || headers['x-no-compression'] !== undefined) return undefined;
  // "x-gzip" counts as gzip, as the plugin reads it.
  return (
    negotiate(
      spelledOut(accept)
        .toLowerCase()
        .replace(/x-gzip/gu, 'gzip'),
      ENCODINGS,
    ) ?? undefined
  );
}

/** Whether the client gets `body` gzipped, as @fastify/compress would decide it. */
export function sendsGzip(headers: IncomingHttpHeaders, body: Buffer): boolean {
  return body.length >= COMPRESS_MIN_BYTES && acceptedEncoding(headers) === 'gzip';
}

/** gzip in zlib's thread pool, off the event loop. */
export const gzipAsync: (body: Buffer) => Promise<Buffer> = promisify(gzip);
