import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type OperationDefinitionNode,
  parse,
  type SelectionSetNode,
  specifiedRules,
  validate,
  type GraphQLSchema,
} from 'graphql';
import { requestErrorJson, type ErrorJson } from './errors.js';

/**
 * Documents parsed and validated once (the data-node keeps 1,000), with the limits that do not
 * depend on variables: size, depth, fields. A hostile document costs at most one parse within the
 * size and token bounds, and one walk that stops at the first bound it passes.
 */

export interface DocumentLimits {
  /** Longest document, in bytes. */
  maxBytes: number;
  /** Deepest nesting of selection sets, fragments expanded. */
  maxDepth: number;
  /** Most fields selected, fragments expanded (aliases each count). */
  maxFields: number;
  /** Most root fields of one operation (aliases each count). */
  maxRootFields: number;
  /** Most rows asked by one operation, over its root fields' page sizes (see rows.ts). */
  maxRows: number;
}

export const DEFAULT_DOCUMENT_LIMITS: Readonly<DocumentLimits> = {
  maxBytes: 64 * 1024,
  maxDepth: 20,
  maxFields: 1000,
  maxRootFields: 20,
  maxRows: 20_000,
};

/** A document's parse and validation: the document, or the 422's errors. */
export type Checked = { document: DocumentNode; errors?: undefined } | { document?: undefined; errors: ErrorJson[] };

/** Tokens one document may hold: a bound on parsing's work beside the size. */
const MAX_TOKENS = 20_000;

/** A limit's error: a validation error (422) saying which limit and by how much. */
export function limitError(message: string): ErrorJson {
  return { message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } };
}

/** Depth and field count of each operation, fragments expanded; the first bound passed, as an error. */
function checkShape(document: DocumentNode, limits: DocumentLimits): ErrorJson | undefined {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  let fields = 0;
  // Validation has ruled out fragment cycles; the counts bound the walk of repeated spreads.
  const walk = (set: SelectionSetNode, depth: number): ErrorJson | undefined => {
    if (depth > limits.maxDepth) return limitError(`the document is nested ${depth} levels deep or more, the limit is ${limits.maxDepth}`);
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        if (++fields > limits.maxFields)
          return limitError(`the document selects more than ${limits.maxFields} fields (fragments expanded)`);
        if (s.selectionSet) {
          const err = walk(s.selectionSet, depth + 1);
          if (err) return err;
        }
      } else {
        const sub = s.kind === Kind.INLINE_FRAGMENT ? s.selectionSet : fragments.get(s.name.value)?.selectionSet;
        const err = sub && walk(sub, depth);
        if (err) return err;
      }
    }
    return undefined;
  };
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    const err = walk(d.selectionSet, 1);
    if (err) return err;
  }
  return undefined;
}

/** The parse, validation and limits of documents by their text, the most recent `capacity` kept. */
export class DocumentCache {
  private readonly kept = new Map<string, Checked>();

  constructor(
    private readonly limits: DocumentLimits,
    private readonly capacity = 1000,
  ) {}

  /** Forgets every document (the schema changed: their validation may differ). */
  clear(): void {
    this.kept.clear();
  }

  check(query: string, schema: GraphQLSchema): Checked {
    const hit = this.kept.get(query);
    if (hit) {
      this.kept.delete(query);
      this.kept.set(query, hit);
      return hit;
    }
    const checked = this.checkAfresh(query, schema);
    // A document over the size bound is not kept: it would take the room of many.
    if (Buffer.byteLength(query) <= this.limits.maxBytes) {
      if (this.kept.size >= this.capacity) this.kept.delete(this.kept.keys().next().value!);
      this.kept.set(query, checked);
    }
    return checked;
  }

  private checkAfresh(query: string, schema: GraphQLSchema): Checked {
    const bytes = Buffer.byteLength(query);
    if (bytes > this.limits.maxBytes)
      return { errors: [limitError(`the document is ${bytes} bytes, the limit is ${this.limits.maxBytes}`)] };
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: MAX_TOKENS });
    } catch (err) {
      if (err instanceof GraphQLError) return { errors: [requestErrorJson(err, 'GRAPHQL_PARSE_FAILED')] };
      throw err;
    }
    const invalid = validate(schema, document, specifiedRules, { maxErrors: 20 });
    if (invalid.length > 0) return { errors: invalid.map((e) => requestErrorJson(e, 'GRAPHQL_VALIDATION_FAILED')) };
    const shape = checkShape(document, this.limits);
    return shape ? { errors: [shape] } : { document };
  }
}

/** The operation a request executes: the one named, or the only one (graphql.md §4); else the 422's message. */
export function selectOperation(document: DocumentNode, name: string | undefined): OperationDefinitionNode | string {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (name) return operations.find((o) => o.name?.value === name) ?? `operation ${name} not found`;
  if (operations.length === 1) return operations[0]!;
  return operations.length === 0 ? 'no operation provided' : 'operation name is required when a document has several operations';
}
