import type { GraphQLSchema } from 'graphql';
import { resolveRoot } from './execute.js';
import { ROOT_FIELDS } from './roots.js';
import { localSchema } from './schema.js';

/** The schema GraphQL answers with: the root fields of our operations (and, later, an upstream's). */
export function graphqlSchema(_upstream: string | undefined): { schema: () => GraphQLSchema } {
  const local = localSchema(ROOT_FIELDS, resolveRoot);
  return { schema: () => local };
}
