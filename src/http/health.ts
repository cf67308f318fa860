import type { FastifyInstance } from 'fastify';
import type { Store } from '../db/store.js';
import { unavailable } from '../contract/errors.js';
import { withDeadline } from './limits.js';

/** The chain head the store answers with: the last applied block. */
interface Head {
  height: string;
  block_time: string;
}

/**
 * Probes for an orchestrator. /healthz: the process answers (liveness; never touches the
 * store). /readyz: the store answers too (readiness), with the last block applied; 503 with the
 * contract's "Unavailable error" body when it does not (down, restarting, or slower than the
 * request timeout).
 */
export function registerHealth(app: FastifyInstance, store: Store, timeoutMs: number): void {
  app.get('/healthz', { config: { operation: 'healthz' } }, async (_request, reply) => {
    return reply.header('cache-control', 'no-store').send({ status: 'ok' });
  });

  app.get('/readyz', { config: { operation: 'readyz' } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    try {
      const rows = await withDeadline(store.query<Head>('SELECT height::text AS height, block_time::text AS block_time FROM chain_head'), timeoutMs);
      const head = rows[0];
      return reply.send({ status: 'ready', store: store.kind, blockHeight: head?.height ?? null, blockTime: head?.block_time ?? null });
    } catch (err) {
      request.log.warn({ err: (err as Error).message }, 'not ready');
      const e = unavailable();
      return reply.code(e.status).header('content-type', 'application/json').send(JSON.stringify(e.toBody()));
    }
  });
}
