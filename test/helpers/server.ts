import { request } from 'node:http';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Store } from '../../src/db/store.js';
import { ROUTES } from '../../src/http/routes.js';
import { buildServer, type ServerOptions } from '../../src/http/server.js';

/** A real HTTP server on a free loopback port, over the given store (limits, metrics, cache sizes and trusted proxies optional). */
export async function startServer(
  store: Store,
  opts: Pick<ServerOptions, 'limits' | 'metrics' | 'responseCacheBytes' | 'rowCacheBytes' | 'trustProxy'> = {},
): Promise<{ url: string; app: FastifyInstance; close(): Promise<void> }> {
  const app = await buildServer({ store, routes: ROUTES, logger: pino({ level: 'silent' }), ...opts });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, app, close: () => app.close() };
}

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

/**
 * For fetches of many pages whose bodies are what a test checks: no gzip, which would cost both
 * ends CPU on every page (compression has tests of its own).
 */
export const UNCOMPRESSED: RequestInit = { headers: { 'accept-encoding': 'identity' } };

export async function get(url: string, init?: RequestInit): Promise<HttpResult> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** An answer as sent: status, header names and values in order (Date left out: it ticks), body bytes. */
export interface RawAnswer {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

/** A request with exactly the given headers (fetch adds its own), answered as sent. */
export function rawRequest(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const pairs: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2)
          if (res.rawHeaders[i] !== 'Date') pairs.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
        resolve({ status: res.statusCode!, headers: pairs, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}
