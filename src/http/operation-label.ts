import type { FastifyRequest } from 'fastify';

/**
 * The operation a request's log line and metrics name, when it is known only once the request is
 * read (a GraphQL operation's name); else its route's (see server.ts).
 */
const labels = new WeakMap<FastifyRequest, string>();

export function setOperationLabel(request: FastifyRequest, label: string): void {
  labels.set(request, label);
}

export function operationLabel(request: FastifyRequest): string | undefined {
  return labels.get(request);
}
