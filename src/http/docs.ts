import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument } from './openapi.js';
import type { Route } from './routes.js';
import { DOCS_CSP, registerPageScope } from './page-headers.js';

/**
 * The API's own documentation: GET /api/v2/openapi.json (the OpenAPI document of the server's
 * operations) and GET /docs (Swagger UI over it, from @fastify/swagger-ui, which ships the UI's
 * files in its package: the page loads nothing from elsewhere, and installing it reports to no
 * one, unlike swagger-ui-dist and its @scarf/scarf install script). @fastify/swagger holds the
 * document for it, as a static specification. Its page loads the UI's initializer as a file
 * (static/swagger-initializer.js) and has no inline script or style, so /docs and its files carry
 * the page headers (see page-headers.ts) with no exception in the policy.
 */
export const OPENAPI_PATH = '/api/v2/openapi.json';
export const DOCS_PATH = '/docs';

/** Registers the documentation routes for the given API routes. */
export async function registerDocs(app: FastifyInstance, routes: readonly Route[]): Promise<void> {
  const document = buildOpenApiDocument(routes);
  const text = Buffer.from(JSON.stringify(document));
  app.get(OPENAPI_PATH, (_request, reply) => reply.header('content-type', 'application/json').send(text));

  registerPageScope(app, DOCS_CSP, async (scope) => {
    await scope.register(swagger, { mode: 'static', specification: { document: document as never } });
    await scope.register(swaggerUi, {
      routePrefix: DOCS_PATH,
      uiConfig: {
        deepLinking: true,
        docExpansion: 'list',
        defaultModelsExpandDepth: 0,
        displayRequestDuration: true,
        supportedSubmitMethods: ['get'],
        // No top bar with a field for other documents' URLs: this page shows this service.
        layout: 'BaseLayout',
      },
      // Swagger UI's online validator badge would send the document to validator.swagger.io.
      validatorUrl: false,
    });
  });
}
