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
