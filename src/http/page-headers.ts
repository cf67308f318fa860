import type { FastifyInstance } from 'fastify';

/**
 * The security headers of the pages people open in a browser, the explorer and /docs, and of
 * the files they load (issue 27). Both pages load their scripts, styles and data from this
 * server only and have no inline script or style attribute, so the policy allows nothing else:
 * an injected <script> or on* attribute would not run, and a page cannot be framed elsewhere.
 * `data:` images are the explorer's empty favicon and the icons inlined in Swagger UI's CSS.
 */
const POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
];

/**
 * The explorer builds its DOM from elements and text only (web/dom.ts), so it also asks the
 * browser to refuse markup given as a string to innerHTML and the like: a chain string (a team's
 * name) can only ever be text. Swagger UI sets markup from strings (its rendered Markdown): under
 * that rule /docs shows nothing, so its policy goes without it.
 */
export const EXPLORER_CSP = [...POLICY, "require-trusted-types-for 'script'", "trusted-types 'none'"].join('; ');
export const DOCS_CSP = POLICY.join('; ');
/** GraphiQL sets markup from strings too (its docs' Markdown), and its stylesheet inlines its fonts as data: URLs. */
export const GRAPHIQL_CSP = [...POLICY, 'font-src data:'].join('; ');

/** The headers every answer of a page's scope carries, after its CSP. */
export function pageHeaders(csp: string): Record<string, string> {
  return {
    'content-security-policy': csp,
    // Files are taken as the type they are served with, never sniffed as script or HTML.
    'x-content-type-options': 'nosniff',
    // The pages link to this server only: no URL (with its query) leaves it in a Referer.
    'referrer-policy': 'no-referrer',
  };
}

/**
 * Registers `routes` in a scope of their own whose answers, 404s of its routes included, carry
 * the page headers with `csp`. The API's routes are outside: their answers stay the data-node's.
 */
export function registerPageScope(app: FastifyInstance, csp: string, routes: (scope: FastifyInstance) => Promise<void> | void): void {
  const headers = pageHeaders(csp);
  // Loaded with the server's other plugins (when it starts), like any registered plugin.
  void app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply) => void reply.headers(headers));
    await routes(scope);
  });
}
