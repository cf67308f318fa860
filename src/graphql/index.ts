import type { GraphQLSchema } from 'graphql';
import { resolveRoot } from './execute.js';
import { ROOT_FIELDS } from './roots.js';
import { localSchema } from './schema.js';
import type { UpstreamStatus } from './upstream.js';

/** The schema GraphQL answers with: our root fields, stitched with an upstream's when one is given (see upstream.ts). */
export interface GraphqlSchema {
  schema: () => GraphQLSchema;
  onSchemaChange?: (listener: () => void) => void;
  /** The upstream's state, for /readyz and /metrics; none without an upstream. */
  upstream?: () => UpstreamStatus;
  close(): void;
}

export async function graphqlSchema(
  upstreamUrl: string | undefined,
  opts: { timeoutMs: number; log: { info(fields: object, msg: string): void; warn(fields: object, msg: string): void } },
): Promise<GraphqlSchema> {
  const local = localSchema(ROOT_FIELDS, resolveRoot);
  if (!upstreamUrl) return { schema: () => local, close: () => {} };
  // Loaded only with an upstream: @graphql-tools' stitching costs every start about 100 ms of CPU.
  const { Upstream } = await import('./upstream.js');
  const upstream = new Upstream(upstreamUrl, local, new Set(ROOT_FIELDS.map((r) => r.name)), opts.timeoutMs, opts.log);
  upstream.start();
  return {
    schema: () => upstream.schema(),
    onSchemaChange: (listener) => upstream.onChange(listener),
    upstream: () => upstream.state(),
    close: () => upstream.close(),
  };
}
