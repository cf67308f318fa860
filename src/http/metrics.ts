import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.js';

/** GET /metrics: the registry in Prometheus' text format. Requests are observed in server.ts. */
export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.get('/metrics', { config: { operation: 'metrics' } }, async (_request, reply) => {
    const text = await metrics.registry.metrics();
    return reply.header('content-type', metrics.registry.contentType).header('cache-control', 'no-store').send(text);
  });
}
