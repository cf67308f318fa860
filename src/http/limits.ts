import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';
import { type ApiError, rateLimited, urlTooLong } from '../contract/errors.js';

/**
 * What one request may cost: URL size, values per repeated parameter, time, and (optionally)
 * requests per client IP. Every limit answers with the contract's error body.
 */
export interface Limits {
  /** Longest request URL (path and query), in bytes. */
  maxUrlLength: number;
  /** Most values of one repeated query parameter (or list argument, or repeated gRPC field): see operations/run.ts. */
  maxFilterValues: number;
  /** Answer 504 after this many ms; 0: no limit. */
  requestTimeoutMs: number;
  /** API requests per client IP per window; 0: no rate limit. */
  rateLimitMax: number;
  rateLimitWindowMs: number;
}

/** The limits when none are set (the settings table's defaults come from here). */
export const DEFAULT_LIMITS: Readonly<Limits> = {
  maxUrlLength: 16384,
  maxFilterValues: 100,
  requestTimeoutMs: 10_000,
  rateLimitMax: 0,
  rateLimitWindowMs: 60_000,
};

/** Node's limit on the request head must leave room for the longest URL we accept. */
export function maxHeaderSize(limits: Limits): number {
  return Math.max(16 * 1024, limits.maxUrlLength + 16 * 1024);
}

export function checkUrlLength(url: string, limits: Limits): void {
  const length = Buffer.byteLength(url);
  if (length > limits.maxUrlLength) throw urlTooLong(length, limits.maxUrlLength);
}

/** Proxies trusted to name the client in X-Forwarded-For: a number of hops, or who they are. */
export type TrustProxy = number | string[];

/** proxy-addr's names for address ranges, which Fastify takes beside addresses and ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Reads a trusted-proxy setting: a number of hops, or comma-separated addresses, CIDR ranges and
 * range names. Throws an Error saying which entry is none of those.
 */
export function parseTrustProxy(text: string): TrustProxy {
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text.split(',').map((e) => e.trim());
  for (const entry of entries) {
    if (PROXY_RANGE_NAMES.has(entry)) continue;
    const [address = '', prefix, ...more] = entry.split('/');
    const family = isIP(address);
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (family === 0 || !prefixOk || more.length > 0) {
      throw new Error(`"${entry}" is not an IP address, a CIDR range, loopback, linklocal, uniquelocal or a number of hops`);
    }
  }
  return entries;
}

/**
 * The client's address of a connection from `peer`, as Fastify's request.ip tells it for an HTTP
 * request: the peer itself, or, when the peer is a trusted proxy, the address X-Forwarded-For
 * names (hop by hop, as far as the proxies are trusted). For the gRPC door, whose calls arrive
 * with the same header from a proxy (nginx's grpc_pass, Envoy) and count in the same rate limit.
 */
export function forwardedClient(trust: TrustProxy | undefined): (peer: string, forwardedFor: string | undefined) => string {
  if (trust === undefined) return (peer) => peer;
  const trusted = typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : proxyAddr.compile(trust);
  return (peer, forwardedFor) =>
    proxyAddr({ socket: { remoteAddress: peer }, headers: { 'x-forwarded-for': forwardedFor } } as unknown as IncomingMessage, trusted);
}

/**
 * Per-client-IP rate limiting, when limits.rateLimitMax > 0: one count per client across the
 * routes whose config has `rateLimited: true` (the API operations); health, metrics and docs
 * are exempt and do not count.
 */
export async function registerRateLimit(app: FastifyInstance, limits: Limits): Promise<void> {
  if (limits.rateLimitMax <= 0) return;
  await app.register(rateLimit, {
    global: true,
    max: limits.rateLimitMax,
    timeWindow: limits.rateLimitWindowMs,
    allowList: (request) => (request.routeOptions.config as { rateLimited?: boolean } | undefined)?.rateLimited !== true,
    errorResponseBuilder: (_request, ctx) => rateLimited(ctx.max, limits.rateLimitWindowMs, Math.ceil(ctx.ttl / 1000)),
    // A client's counts are its own: an answer shared caches may keep (Cache-Control: public)
    // must not carry them to the next client. The 429 (no-store) says them.
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
  });
}

/** The rate limit's error for a call from this client address now, if it is over the limit (the call counted). */
export type ClientRateLimit = (address: string) => Promise<ApiError | undefined>;

/**
 * The rate limit of registerRateLimit for calls that come another way than HTTP (gRPC), counted
 * in the same per-IP counts as the API routes' requests: a client's REST, GraphQL and gRPC calls
 * add up to one limit. Undefined when there is no rate limit.
 */
export function clientRateLimit(app: FastifyInstance, limits: Limits): ClientRateLimit | undefined {
  if (limits.rateLimitMax <= 0) return undefined;
  const limit = app.createRateLimit();
  return async (address) => {
    // The request as the limiter reads it: the client's address, on a route that counts (see allowList).
    const counted = await limit({ ip: address, routeOptions: { config: { rateLimited: true } } } as unknown as FastifyRequest);
    return !counted.isAllowed && counted.isExceeded ? rateLimited(counted.max, limits.rateLimitWindowMs, counted.ttlInSeconds) : undefined;
  };
}
