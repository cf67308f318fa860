/**
 * The ceiling of a scenario: the service's own HTTP path (buildServer: the API's fast path, or
 * Fastify's route for what that leaves, with the same options, logger and per-request log line
 * and metrics) answering with the exact bytes and headers the real service gave for that URL,
 * from memory. Each operation's run() finds them by what it is given (the operation, its path
 * parameters and query pairs, as the service parsed them from the URL), so a request takes the
 * service's path up to the store, the response cache off; it never touches a store. (With
 * --gzip, an answer is gzipped per request, as the service does an answer it does not cache.)
 *
 *   node --import tsx bench/ceiling-server.ts <port> <recorded.json> [log level]
 *
 * recorded.json maps a request URL (path and query) to {status, headers, body (base64)}; every
 * status is 200 (bench/run.ts records valid URLs only).
 */
import { readFileSync } from 'node:fs';
import { queryPairs } from '../src/contract/query.js';
import type { Operation } from '../src/operations/operation.js';
import { OPERATIONS } from '../src/operations/index.js';
import type { Store } from '../src/db/store.js';
import { queryOf } from '../src/http/api-answer.js';
import { routeMatcher } from '../src/http/fast-path.js';
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

/** What run() is given for a request, as one key. */
const keyOf = (op: Operation, path: Record<string, string>, query: readonly [string, string][]) => JSON.stringify([op.name, path, query]);

/** The operation of a URL and its path parameters, as the service's fast path finds them. */
const routeOf = routeMatcher(OPERATIONS);

const answers = new Map<string, { body: Buffer; head: { height: string; time: string } | null }>();
for (const [url, r] of Object.entries(recorded)) {
  if (r.status !== 200) throw new Error(`${url}: recorded with status ${r.status}; the ceiling answers 200s only`);
  const routed = routeOf(url.split('?')[0]!);
  if (!routed) throw new Error(`${url}: no operation's route, as the fast path takes it`);
  const height = r.headers['x-block-height'];
  const time = r.headers['x-block-timestamp'];
  answers.set(keyOf(routed.op, routed.params, queryPairs(queryOf(url))), {
    body: Buffer.from(r.body, 'base64'),
    head: height !== undefined && time !== undefined ? { height, time } : null,
  });
}

const fromMemory: Operation[] = OPERATIONS.map((op) => ({
  ...op,
  run: async (_store, input) => {
    const answer = answers.get(keyOf(op, input.path, input.query));
    if (!answer) throw new Error('not a recorded request');
    return answer;
  },
}));

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
const app = await buildServer({
  store: noStore,
  operations: fromMemory,
  logger,
  responseCacheBytes: 0,
  requestLog: (reqId, line) => writeRequestLine(logger, reqId, line),
});
await app.listen({ port: Number(portText), host: '127.0.0.1' });
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
