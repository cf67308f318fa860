import { Agent, request } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Store } from '../../src/db/store.js';
import { ROUTES } from '../../src/http/routes.js';
import { buildServer, type ServerOptions } from '../../src/http/server.js';

/** A real HTTP server on a free loopback port, over the given store (limits, metrics, cache sizes and trusted proxies optional). */
export async function startServer(
  store: Store,
  opts: Pick<ServerOptions, 'limits' | 'graphqlLimits' | 'metrics' | 'responseCacheBytes' | 'rowCacheBytes' | 'trustProxy'> = {},
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

/** A request of the tests' own: its method, headers (a header given replaces fetch's) and body. */
export interface TestRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * For fetches of many pages whose bodies are what a test checks: no gzip, which would cost both
 * ends CPU on every page (compression has tests of its own).
 */
export const UNCOMPRESSED: TestRequest = { headers: { 'accept-encoding': 'identity' } };

/** The headers fetch sends unless told otherwise, so that the tests' requests stay what they were. */
const FETCH_HEADERS: Record<string, string> = {
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
};

/** Connections kept open between a test's requests, as fetch keeps them. */
const agent = new Agent({ keepAlive: true });

const DECODERS: Record<string, (b: Buffer) => Buffer> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/**
 * A request as fetch makes it (its headers, the body decoded), through node:http: the suite asks
 * tens of thousands of pages, and fetch's streams and signals cost several times the CPU.
 */
export function get(url: string, init: TestRequest = {}): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    // By lower-case name, as fetch merges them: one header each, never two differently spelt.
    const headers = { ...FETCH_HEADERS };
    for (const [name, value] of Object.entries(init.headers ?? {})) headers[name.toLowerCase()] = value;
    const req = request(url, { method: init.method ?? 'GET', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const answer = new Headers();
        for (let i = 0; i < res.rawHeaders.length; i += 2) answer.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        let bytes: Buffer = Buffer.concat(chunks);
        try {
          for (const coding of (answer.get('content-encoding') ?? '').split(',').reverse()) {
            const decode = DECODERS[coding.trim().toLowerCase()];
            if (decode) bytes = decode(bytes);
          }
        } catch (err) {
          reject(err);
          return;
        }
        const text = bytes.toString('utf8');
        let body: unknown;
        try {
          body = text === '' ? undefined : JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode!, headers: answer, text, body });
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** An answer as sent: status, header names and values in order (Date left out: it ticks), body bytes. */
export interface RawAnswer {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

/** A request with exactly the given headers (fetch adds its own) and path (a '#' in it sent too), answered as sent. */
export function rawRequest(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawAnswer> {
  const pathAt = url.indexOf('/', url.indexOf('//') + 2);
  return new Promise((resolve, reject) => {
    const req = request(url.slice(0, pathAt), { method, headers, path: url.slice(pathAt) }, (res) => {
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
