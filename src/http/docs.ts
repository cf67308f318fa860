import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Operation } from '../operations/operation.js';
import { buildOpenApiDocument } from './openapi.js';

/**
 * The API's own documentation: GET /api/v2/openapi.json (the OpenAPI document of the server's
 * operations) and GET /docs (Swagger UI over it). Swagger UI's files come from the swagger-ui-dist
 * package and are served from here: the page loads nothing from elsewhere.
 */
export const OPENAPI_PATH = '/api/v2/openapi.json';
export const DOCS_PATH = '/docs';

const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/swagger-ui-bundle.js'));

/** Files of swagger-ui-dist the page uses, under /docs/<name>. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

// Relative URLs, so that the page also works behind a proxy that adds a path prefix.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>epochview API</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
<link rel="icon" type="image/png" href="docs/favicon-32x32.png">
<style>body { margin: 0; } .swagger-ui .information-container { padding-top: 8px; }</style>
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

// A file rather than an inline script, so that a Content-Security-Policy without 'unsafe-inline' works.
const INIT = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_PATH.slice(1))},
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
  supportedSubmitMethods: ['get'],
  validatorUrl: null,
  layout: 'BaseLayout',
});
`;

/** Registers the documentation routes for the given operations. */
export function registerDocs(app: FastifyInstance, operations: readonly Operation[]): void {
  const document = Buffer.from(JSON.stringify(buildOpenApiDocument(operations)));
  app.get(OPENAPI_PATH, (_request, reply) => reply.header('content-type', 'application/json').send(document));

  const page = Buffer.from(PAGE);
  app.get(DOCS_PATH, (_request, reply) => reply.header('content-type', 'text/html; charset=utf-8').send(page));
  const init = Buffer.from(INIT);
  app.get(`${DOCS_PATH}/init.js`, (_request, reply) => reply.header('content-type', 'text/javascript; charset=utf-8').send(init));

  for (const [name, type] of Object.entries(ASSETS)) {
    let content: Buffer | undefined;
    app.get(`${DOCS_PATH}/${name}`, (_request, reply) => {
      // Read on first use: most servers never serve the page.
      content ??= readFileSync(join(SWAGGER_UI_DIR, name));
      return reply.header('content-type', type).header('cache-control', 'public, max-age=3600').send(content);
    });
  }
}
