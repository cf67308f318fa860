/**
 * The ceiling of a scenario: the service's own HTTP stack (buildServer: the same Fastify
 * options, CORS, compression, logger and per-request log line) answering from memory with the
 * exact bytes and headers the real service gave for that URL (gzipped once, as the service
 * does with a cached answer, when the client asks for gzip). It never touches a store.
 *
 *   node --import tsx bench/ceiling-server.ts <port> <recorded.json> [log level]
 *
 * recorded.json maps a request URL (path and query) to {status, headers, body (base64)}.
 */
import { readFileSync } from 'node:fs';
import { OPERATIONS } from '../src/operations/index.js';
import type { Store } from '../src/db/store.js';
import { gzipAsync, sendsGzip } from '../src/http/compression.js';
import { buildServer } from '../src/http/server.js';
import { createLogger, writeRequestLine } from '../src/log.js';

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const [portText, file, logLevel = 'info'] = process.argv.slice(2);
if (!portText || !file) {
  process.stderr.write('usage: ceiling-server.ts <port> <recorded.json> [log level]\n');
  process.exit(2);
}
const recorded = JSON.parse(readFileSync(file, 'utf8')) as Record<string, RecordedResponse>;
const responses = new Map(Object.entries(recorded).map(([url, r]) => [url, { ...r, body: Buffer.from(r.body, 'base64'), gzipped: undefined as Promise<Buffer> | undefined }]));

const noStore: Store = {
  kind: 'postgres',
  location: 'none (ceiling)',
  query: () => Promise.reject(new Error('the ceiling server has no store')),
  queryRow: () => Promise.reject(new Error('the ceiling server has no store')),
  transaction: () => Promise.reject(new Error('the ceiling server has no store')),
  exec: () => Promise.reject(new Error('the ceiling server has no store')),
  listen: () => Promise.resolve(async () => {}),
  close: async () => {},
};

const logger = createLogger(logLevel);
const app = await buildServer({ store: noStore, operations: OPERATIONS, logger, responseCacheBytes: 0, requestLog: (reqId, line) => writeRequestLine(logger, reqId, line) });
// After the server's own onRequest hooks (CORS); onSend (compression) and onResponse (the log
// line) still run for this reply, as they do for the real one.
app.addHook('onRequest', async (request, reply) => {
  const r = responses.get(request.raw.url ?? '');
  if (!r) return;
  reply.code(r.status);
  for (const [k, v] of Object.entries(r.headers)) reply.header(k, v);
  // As the API routes send a cached answer: gzipped once, then from memory.
  if (sendsGzip(request.headers, r.body)) return reply.header('content-encoding', 'gzip').header('vary', 'accept-encoding').send(await (r.gzipped ??= gzipAsync(r.body)));
  return reply.send(r.body);
});
await app.listen({ port: Number(portText), host: '127.0.0.1' });
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
