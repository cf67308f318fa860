import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONTENT_TYPES, type File, file, IMMUTABLE, REVALIDATE, send } from '../http/explorer-pages.js';
import { GRAPHIQL_CSP, pageHeaders, registerPageScope } from '../http/page-headers.js';

/**
 * GraphiQL at GET /graphql for a browser (issue 28 §7): the page built from web/graphiql/ by
 * `npm run build` into dist/web/graphiql/, its files at /graphql/assets/<file> (named by their
 * content's hash, kept a year), all with the pages' security headers. Nothing from another host.
 */

const DIR = fileURLToPath(new URL('../../dist/web/graphiql/', import.meta.url));
export const GRAPHIQL_ASSETS = '/graphql/assets';

/** Whether a GET of /graphql is a browser's visit: it takes HTML and asks no query. */
function wantsPage(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes('text/html') && !(request.raw.url ?? '').includes('query=');
}

/**
 * Registers the page's files, and returns what GET /graphql answers a browser with (undefined for
 * any other request); without a built front-end, logs why and returns no page.
 */
export function registerGraphiql(
  app: FastifyInstance,
): ((request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined) | undefined {
  const indexPath = join(DIR, 'index.html');
  if (!existsSync(indexPath)) {
    app.log.warn({ dir: DIR }, 'GraphiQL not built (npm run build): GET /graphql from a browser answers as any GET');
    return undefined;
  }
  const page = file('text/html; charset=utf-8', Buffer.from(readFileSync(indexPath, 'utf8').replace('{{base}}', './')));
  const assets = new Map<string, File>();
  for (const name of readdirSync(join(DIR, 'assets'))) {
    const type = CONTENT_TYPES[extname(name)];
    if (type) assets.set(name, file(type, readFileSync(join(DIR, 'assets', name))));
  }
  registerPageScope(app, GRAPHIQL_CSP, (scope) => {
    scope.get(`${GRAPHIQL_ASSETS}/:name`, (request, reply) => {
      const asset = assets.get((request.params as { name: string }).name);
      return asset ? send(request, reply, asset, IMMUTABLE) : reply.callNotFound();
    });
  });
  const headers = pageHeaders(GRAPHIQL_CSP);
  // The page or GraphQL's answer, by Accept: a cache keeps them apart.
  return (request, reply) =>
    wantsPage(request) ? send(request, reply.headers(headers), page, REVALIDATE, 'accept, accept-encoding') : undefined;
}
