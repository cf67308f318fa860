import type { FastifyInstance } from 'fastify';
import type { Store } from '../db/store.js';
import { ROLE_COLUMNS, roleOf, type RoleRow } from '../db/server-role.js';
import { unavailable } from '../contract/errors.js';
import { timeoutMsOf, withDeadline } from '../operations/deadline.js';

/** The chain head the store answers with: the last applied block. */
interface Head {
  height: string | null;
  block_time: string | null;
  chain_id: string | null;
}

/** The head's columns, and `more` after them: one row, of nulls on an empty store (chain_head read once). */
const headSql = (more = '') =>
  `SELECT h.height::text AS height, h.block_time::text AS block_time, h.chain_id${more}
     FROM (SELECT) AS one LEFT JOIN chain_head AS h ON true`;

/**
 * Probes for an orchestrator. /healthz: the process answers (liveness; never touches the
 * store). /readyz: the store answers too (readiness), with the last block applied and, on a
 * PostgreSQL server, whether it is the primary or a hot standby and how far a standby's replay
 * is behind, and the chain the store holds (null until an input named one); 503 with the
 * contract's "Unavailable error" body while the service is starting (`starting()` says why) or
 * the store does not answer (down, restarting, or slower than the request timeout). A ready
 * answer also reports the source of events when there is one (`source()`, the broker socket or
 * the followed file, with its state and error): a stopped source leaves the
 * service ready, answering from what was applied. So does a GraphQL upstream that is down (its
 * state is shown): our own fields are still answered.
 */
export function registerHealth(
  app: FastifyInstance,
  store: Store,
  timeoutMs: number,
  starting: () => string | undefined,
  source?: () => object,
  graphqlUpstream?: () => object,
): void {
  app.get('/healthz', { config: { operation: 'healthz' } }, async (_request, reply) => {
    return reply.header('cache-control', 'no-store').send({ status: 'ok' });
  });

  const sql = headSql(store.kind === 'postgres' ? `, ${ROLE_COLUMNS}` : '');
  app.get('/readyz', { config: { operation: 'readyz' } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const notReady = (why: string) => {
      request.log.warn({ err: why }, 'not ready');
      const e = unavailable();
      return reply.code(e.status).header('content-type', 'application/json').send(JSON.stringify(e.toBody()));
    };
    const waitingFor = starting();
    if (waitingFor !== undefined) return notReady(waitingFor);
    try {
      const [row] = await withDeadline((until) => store.query<Head & RoleRow>(sql, [], until), timeoutMsOf(timeoutMs));
      const head = {
        blockHeight: row?.height ?? null,
        blockTime: row?.block_time ?? null,
        chainId: row?.chain_id ?? null,
        ...(source ? { source: source() } : {}),
        ...(graphqlUpstream ? { graphqlUpstream: graphqlUpstream() } : {}),
      };
      if (store.kind !== 'postgres' || !row) return reply.send({ status: 'ready', store: store.kind, ...head });
      const { role, replayLagBytes } = roleOf(row);
      return reply.send({ status: 'ready', store: store.kind, role, ...(role === 'standby' ? { replayLagBytes } : {}), ...head });
    } catch (err) {
      return notReady((err as Error).message);
    }
  });
}
