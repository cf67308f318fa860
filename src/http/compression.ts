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

/** The encoding a request takes, as @fastify/compress chooses it; undefined for none. */
export function acceptedEncoding(headers: IncomingHttpHeaders): 'gzip' | 'deflate' | undefined {
  const accept = headers['accept-encoding'];
  if (typeof accept !== 'string' || headers['x-no-compression'] !== undefined) return undefined;
  // "*" (no preference) and "x-gzip" count as gzip, as the plugin reads them.
  return negotiate(accept.toLowerCase().replace(/\*|x-gzip/gu, 'gzip'), ENCODINGS) ?? undefined;
}

/** Whether the client gets `body` gzipped, as @fastify/compress would decide it. */
export function sendsGzip(headers: IncomingHttpHeaders, body: Buffer): boolean {
  return body.length >= COMPRESS_MIN_BYTES && acceptedEncoding(headers) === 'gzip';
}

/** gzip in zlib's thread pool, off the event loop. */
export const gzipAsync: (body: Buffer) => Promise<Buffer> = promisify(gzip);
