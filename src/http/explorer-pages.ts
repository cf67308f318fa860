import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendsGzip } from './compression.js';
import { EXPLORER_CSP, registerPageScope } from './page-headers.js';

/**
 * The explorer's pages (issue 16). The front-end is built from web/ by `npm run build` into
 * dist/web/: index.html and, under assets/, files named by a hash of their content. `/` and the
 * explorer's page routes answer the HTML (revalidated on every visit, so a new build shows at
 * once); /explorer/assets/<file> answers the files, which browsers may keep for a year since a
 * changed file gets a new name. Everything is read once at startup, and gzipped once when first
 * asked so. The pages and files carry the page headers (see page-headers.ts).
 */

/** dist/web from this file, whether it runs compiled (dist/http) or from source (src/http). */
const WEB_DIR = fileURLToPath(new URL('../../dist/web/', import.meta.url));

/** The page routes: the client-side router shows the view of each. */
export const EXPLORER_PAGES = ['/', '/explorer/rewards', '/explorer/referral-sets', '/explorer/teams', '/explorer/teams/:teamId'];
export const EXPLORER_ASSETS = '/explorer/assets';

export const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'no-cache';

export interface File {
  type: string;
  body: Buffer;
  /** Made on the first request that takes gzip, then kept: starting does not wait for it. */
  readonly gzipped: Buffer;
}

export function file(type: string, body: Buffer): File {
  let gzipped: Buffer | undefined;
  return {
    type,
    body,
    get gzipped() {
      gzipped ??= gzipSync(body, { level: 9 });
      return gzipped;
    },
  };
}

/** Sends a file, gzipped when the client takes it; `vary` names what else chose it besides the encoding. */
export function send(request: FastifyRequest, reply: FastifyReply, f: File, cacheControl: string, vary = 'accept-encoding'): FastifyReply {
  reply.header('content-type', f.type).header('cache-control', cacheControl).header('vary', vary);
  // Already encoded: @fastify/compress leaves it as it is.
  if (sendsGzip(request.headers, f.body)) return reply.header('content-encoding', 'gzip').send(f.gzipped);
  return reply.send(f.body);
}

/**
 * The page's URLs are relative to <base href>, which points from the route back to the root, so
 * the pages also work behind a proxy that adds a path prefix: `/explorer/teams/:id` → "../../".
 */
function baseOf(route: string): string {
  const depth = route.split('/').length - 2;
  return depth === 0 ? './' : '../'.repeat(depth);
}

/** Registers the explorer's pages and files; without a built front-end (no dist/web), logs why and registers none. */
export function registerExplorerPages(app: FastifyInstance): void {
  const indexPath = join(WEB_DIR, 'index.html');
  if (!existsSync(indexPath)) {
    app.log.warn({ dir: WEB_DIR }, 'explorer front-end not built (npm run build): the explorer pages are off');
    return;
  }
  const template = readFileSync(indexPath, 'utf8');
  const pages = EXPLORER_PAGES.map((route) => ({
    route,
    page: file('text/html; charset=utf-8', Buffer.from(template.replace('{{base}}', baseOf(route)))),
  }));
  const assets = new Map<string, File>();
  const dir = join(WEB_DIR, 'assets');
  for (const name of readdirSync(dir)) {
    const type = CONTENT_TYPES[extname(name)];
    if (type) assets.set(name, file(type, readFileSync(join(dir, name))));
  }

  registerPageScope(app, EXPLORER_CSP, (scope) => {
    for (const { route, page } of pages) {
      scope.get(route, (request, reply) => {
        // The router lets a parameter be empty (/explorer/teams/): no page there.
        if (Object.values(request.params as Record<string, string>).includes('')) return reply.callNotFound();
        return send(request, reply, page, REVALIDATE);
      });
    }
    scope.get(`${EXPLORER_ASSETS}/:name`, (request, reply) => {
      const asset = assets.get((request.params as { name: string }).name);
      return asset ? send(request, reply, asset, IMMUTABLE) : reply.callNotFound();
    });
  });
}
