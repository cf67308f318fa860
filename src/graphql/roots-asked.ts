import {
  type DocumentNode,
  type FieldNode,
  getArgumentValues,
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type GraphQLSchema,
} from 'graphql';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../contract/pagination.js';

/**
 * The root fields an operation asks for, as it will execute them (fragments expanded, @skip and
 * @include applied), for the limits on root fields and on rows, which depend on variables.
 */
export interface RootsAsked {
  /** Root fields, aliases each counted (__typename included). */
  count: number;
  /** Their names. */
  names: Set<string>;
  /** Rows asked: each page's size (first, else last, else the default page), over the root fields. */
  rows: number;
  /** The arguments of each root field with a page, coerced: the compiled execution's (compiled.ts), not coerced again. */
  args: Map<FieldNode, Record<string, unknown>>;
}

export function rootsAsked(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): RootsAsked {
  const query = schema.getQueryType();
  const asked: RootsAsked = { count: 0, names: new Set(), rows: 0, args: new Map() };
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  // A value the executor will refuse (null, sent for a variable whose default made the document
  // valid, in a non-null position) is its field error to give, with a path, not the request's
  // 422: such a directive counts as including, such arguments as no rows.
  const included = (node: FieldNode | { directives?: FieldNode['directives'] }) => {
    try {
      return (
        getDirectiveValues(GraphQLSkipDirective, node, variables)?.if !== true &&
        getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false
      );
    } catch {
      return true;
    }
  };
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const s of set.selections) {
      if (!included(s)) continue;
      if (s.kind === Kind.FIELD) {
        asked.count++;
        asked.names.add(s.name.value);
        const def = query?.getFields()[s.name.value];
        if (def?.args.some((a) => a.name === 'pagination')) {
          let args: Record<string, unknown>;
          try {
            args = getArgumentValues(def, s, variables);
          } catch {
            continue;
          }
          asked.args.set(s, args);
          const pagination = args.pagination as { first?: number | null; last?: number | null } | undefined;
          const size = pagination?.first ?? pagination?.last ?? DEFAULT_PAGE_SIZE;
          // A size outside the range reads nothing: the operation refuses it (invalid pagination).
          if (size >= 1 && size <= MAX_PAGE_SIZE) asked.rows += size;
        }
      } else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet);
      else if (!seen.has(s.name.value)) {
        // A fragment spread twice at the root adds its fields once (the executor merges them).
        seen.add(s.name.value);
        const fragment = fragments.get(s.name.value);
        if (fragment) walk(fragment.selectionSet);
      }
    }
  };
  walk(operation.selectionSet);
  return asked;
}
