import {
  type ASTVisitor,
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
  type ValidationContext,
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
  /**
   * Most text of the pages one operation reads, over its root fields, checked as each arrives:
   * the answer's size, near enough. Rows do not bound it: a team's statistics carry two lists of
   * up to N epochs, and 20 leaderboards of 1,000 teams at 192 epochs on a mainnet-sized chain
   * read 360 MB, parsed into objects several times that (a medium chain's 42 MB peaked at 372 MB).
   */
  maxPagesBytes: number;
}

export const DEFAULT_DOCUMENT_LIMITS: Readonly<DocumentLimits> = {
  maxBytes: 64 * 1024,
  maxDepth: 20,
  maxFields: 1000,
  maxRootFields: 20,
  maxRows: 20_000,
  // Above the largest REST page (5,000 leaderboard rows with 192-epoch lists: about 90 MB).
  maxPagesBytes: 128 * 2 ** 20,
};

/** A document's parse and validation: the document, or the 422's errors (with the document when it parsed). */
export type Checked =
  | { document: DocumentNode; errors?: undefined; parsed?: undefined }
  | { document?: undefined; errors: ErrorJson[]; parsed?: DocumentNode };

/** Tokens one document may hold: a bound on parsing's work beside the size. */
const MAX_TOKENS = 20_000;

/**
 * How deep a document may nest, in brackets (`{`, `[`, `(`) and in selections with fragments
 * followed: a bound on graphql-js' recursion, which parses, validates and executes a document by
 * its shape. Within the size and token bounds, 5,000 nested selection sets or 2,000 nested
 * lists overflowed the parser's stack, and a chain of 1,500 fragments each spreading the next
 * the introspection depth rule's (a 500). The introspection query nests
 * 10 brackets and 18 selections deep, Vega's apps' documents fewer.
 */
const MAX_NESTING = 100;

/**
 * gqlparser's KnownRootType rule, which gqlgen validates with (graphql-js 16 has none: it refuses
 * such an operation only when executing it, with a 200): an operation of a type the schema has no
 * root for, executed or not.
 */
function knownRootTypeRule(context: ValidationContext): ASTVisitor {
  const schema = context.getSchema();
  return {
    OperationDefinition(node) {
      if (!schema.getRootType(node.operation))
        context.reportError(new GraphQLError(`Schema does not support operation type "${node.operation}"`, { nodes: node }));
    },
  };
}

const RULES = [...specifiedRules, knownRootTypeRule];

/** A limit's error: a validation error (422) saying which limit and by how much. */
export function limitError(message: string): ErrorJson {
  return { message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } };
}

/**
 * Whether the document's brackets nest deeper than MAX_NESTING, outside strings, block strings
 * and comments (as graphql-js' lexer reads them): checked before parsing, in one pass over the
 * text. Unbalanced brackets are the parser's to report.
 */
function bracketsTooDeep(query: string): boolean {
  let depth = 0;
  const n = query.length;
  for (let i = 0; i < n; i++) {
    const c = query.charCodeAt(i);
    if (c === 0x7b || c === 0x5b || c === 0x28) {
      if (++depth > MAX_NESTING) return true;
    } else if (c === 0x7d || c === 0x5d || c === 0x29) {
      if (depth > 0) depth--;
    } else if (c === 0x23) {
      // A comment, to the end of the line.
      while (i + 1 < n && query.charCodeAt(i + 1) !== 0x0a && query.charCodeAt(i + 1) !== 0x0d) i++;
    } else if (c === 0x22) {
      if (query.startsWith('""', i + 1)) {
        // A block string, to the next """ that a backslash does not escape.
        i += 3;
        while (i < n && !query.startsWith('"""', i)) i += query.startsWith('\\"""', i) ? 4 : 1;
        i += 2;
      } else {
        // A string, to the next quote that a backslash does not escape (or a line's end: the lexer's error).
        for (i++; i < n; i++) {
          const d = query.charCodeAt(i);
          if (d === 0x5c) i++;
          else if (d === 0x22 || d === 0x0a || d === 0x0d) break;
        }
      }
    }
  }
  return false;
}

/**
 * Whether selections nest deeper than MAX_NESTING in some definition, a field's selection set,
 * an inline fragment and a fragment spread each a level, spreads followed. Before validation,
 * which rules out cycles (here a spread of a fragment being walked counts for nothing), so the
 * walk stops at the bound and takes each fragment once.
 */
function selectionsTooDeep(document: DocumentNode): boolean {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  // Each fragment's nesting once walked; 0 while it is walked.
  const heights = new Map<string, number>();
  /** The levels of `set` and below, or more than `budget` once it passes that. */
  const height = (set: SelectionSetNode, budget: number): number => {
    if (budget <= 0) return 1;
    let below = 0;
    for (const s of set.selections) {
      let h = 0;
      if (s.kind !== Kind.FRAGMENT_SPREAD) h = s.selectionSet ? height(s.selectionSet, budget - 1) : 0;
      else {
        const name = s.name.value;
        const fragment = fragments.get(name);
        h = heights.get(name) ?? 0;
        if (!heights.has(name) && fragment) {
          heights.set(name, 0);
          h = height(fragment.selectionSet, budget - 1);
          heights.set(name, h);
        }
      }
      if (h >= budget) return budget + 1;
      if (h > below) below = h;
    }
    return below + 1;
  };
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION && d.kind !== Kind.FRAGMENT_DEFINITION) continue;
    if (height(d.selectionSet, MAX_NESTING) > MAX_NESTING) return true;
  }
  return false;
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
    if (bracketsTooDeep(query)) return { errors: [limitError(`the document nests brackets more than ${MAX_NESTING} deep`)] };
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: MAX_TOKENS });
    } catch (err) {
      if (err instanceof GraphQLError) return { errors: [requestErrorJson(err, 'GRAPHQL_PARSE_FAILED')] };
      throw err;
    }
    if (selectionsTooDeep(document))
      return { errors: [limitError(`the document nests selections more than ${MAX_NESTING} deep (fragments followed)`)] };
    const invalid = validate(schema, document, RULES, { maxErrors: 20 });
    if (invalid.length > 0)
      return { errors: invalid.map((e) => requestErrorJson(e, 'GRAPHQL_VALIDATION_FAILED')), parsed: operationsOnly(document) };
    const shape = checkShape(document, this.limits);
    return shape ? { errors: [shape] } : { document };
  }
}

/**
 * What a refused document keeps for selectOperation (a GET's mutation is a 406 before its 422):
 * its operations' kinds and names, not the tree, which the cache would hold (megabytes for a
 * 64 KB document: its nodes, and the tokens their locations link).
 */
function operationsOnly(document: DocumentNode): DocumentNode {
  const definitions = document.definitions.flatMap((d): OperationDefinitionNode[] =>
    d.kind === Kind.OPERATION_DEFINITION
      ? [
          {
            kind: Kind.OPERATION_DEFINITION,
            operation: d.operation,
            ...(d.name ? { name: { kind: Kind.NAME, value: d.name.value } } : {}),
            selectionSet: { kind: Kind.SELECTION_SET, selections: [] },
          },
        ]
      : [],
  );
  return { kind: Kind.DOCUMENT, definitions };
}

/** The operation a request executes: the one named, or the only one (graphql.md §4); else the 422's message. */
export function selectOperation(document: DocumentNode, name: string | undefined): OperationDefinitionNode | string {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (name) return operations.find((o) => o.name?.value === name) ?? `operation ${name} not found`;
  if (operations.length === 1) return operations[0]!;
  return operations.length === 0 ? 'no operation provided' : 'operation name is required when a document has several operations';
}
