/**
 * The ceiling of a scenario: the service's own HTTP path (buildServer, with the same options,
 * logger and per-request log line and metrics) answering with the exact bytes the real service
 * gave for that URL, from memory. Each operation's run() finds them by what it is given (the
 * operation and its request, as the service parsed it from the URL), so a request takes the
 * service's path up to the store, the response cache off; it never touches a store. (With
 * --gzip, an answer is gzipped per request, as the service does an answer it does not cache.)
 *
 *   node --import tsx bench/ceiling-server.ts <port> <recorded.json> [log level]
 *
 * recorded.json maps a request URL (path and query) to {status, headers, body (base64)}; every
 * status is 200 (bench/run.ts records valid URLs only).
 */
import { readFileSync } from 'node:fs';
import { parseQuery, queryPairs } from '../src/contract/query.js';
import type { Store } from '../src/db/store.js';
import { queryOf } from '../src/http/api-answer.js';
import { ROUTES, type Route } from '../src/http/routes.js';
import { buildServer } from '../src/http/server.js';
import { ItemResult } from '../src/pagination/result.js';
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
const keyOf = (operation: string, request: object) =>
  JSON.stringify([operation, request], (_key, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

/** The route of a request path and its path parameters, as the router matches them. */
function routeOf(path: string): { route: Route; params: Record<string, string> } | undefined {
  for (const route of ROUTES) {
    const names = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
    const match = new RegExp(`^${route.path.replace(/:[A-Za-z]+/g, '([^/]+)')}$`).exec(path);
    if (match) return { route, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1]!)])) };
  }
  return undefined;
}

/** The recorded bytes as a result: the body is the whole response message already. */
const answers = new Map<string, ItemResult>();
for (const [url, r] of Object.entries(recorded)) {
  if (r.status !== 200) throw new Error(`${url}: recorded with status ${r.status}; the ceiling answers 200s only`);
  const routed = routeOf(url.split('?')[0]!);
  if (!routed) throw new Error(`${url}: no route`);
  const height = r.headers['x-block-height'];
  const time = r.headers['x-block-timestamp'];
  const op = routed.route.operation;
  answers.set(
    keyOf(op.name, { ...parseQuery(queryPairs(queryOf(url)), op.fields), ...routed.params }),
    new ItemResult(Buffer.from(r.body, 'base64').toString(), height !== undefined && time !== undefined ? { height, time } : null),
  );
}

const fromMemory: Route[] = ROUTES.map((route) => ({
  ...route,
  operation: {
    ...route.operation,
    run: async (_ctx, request) => {
      const answer = answers.get(keyOf(route.operation.name, request));
      if (!answer) throw new Error('not a recorded request');
      return answer;
    },
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
  routes: fromMemory,
  logger,
  responseCacheBytes: 0,
  requestLog: (reqId, line) => writeRequestLine(logger, reqId, line),
});
await app.listen({ port: Number(portText), host: '127.0.0.1' });
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
