import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Field } from '../contract/message.js';
import type { PageResult } from '../pagination/result.js';
import { DEFAULT_ROW_CACHE_BYTES } from '../pagination/row-cache.js';
import { rfc3339Nano } from './encode.js';
import { ROOT_FIELDS, type RootField } from './roots.js';

/**
 * Queries of our root fields only, answered without graphql-js's executor: the selection is
 * compiled once per document into functions that write the answer's JSON from each page's
 * values. graphql-js resolved a 50-row page at about 1 µs per field (0.5 ms a page, where the
 * REST door answers the page in 0.13 ms); these write the same bytes. A document is compiled only
 * when plain: no directives, no response key selected twice in one selection set, fragments only
 * on the type they are spread in. Everything else, and any answer with an error, is left to the
 * executor (execute.ts), so its rules (null propagation, error order) stay graphql-js's.
 * test/doors.test.ts asks documents both ways.
 */

/** Writes a value of the selection as JSON text. */
type Write = (value: never) => string;

/** A root field of ours, compiled: its operation, its arguments' node, and the writer of its page. */
export interface CompiledRoot {
  key: string;
  root: RootField;
  def: GraphQLField<unknown, unknown>;
  node: FieldNode;
  write: PageWrite;
  /** The node's fields the selection reads, by message field name: the operation may make only these (Operation.run). */
  reads: ReadonlySet<string>;
}

export interface Compiled {
  /** In selection order; a string is a `__typename` answered by its key. */
  fields: (CompiledRoot | string)[];
}

/** A JSON string as Go writes it (`<`, `>`, `&`, U+2028, U+2029 escaped). */
const GO_UNSAFE = /[<>&\u2028\u2029]/;
function goString(s: string): string {
  const text = JSON.stringify(s);
  return GO_UNSAFE.test(text) ? text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
}

/** The fields of a selection set on `type`, fragments inlined; undefined when not plain. */
function plainFields(
  set: SelectionSetNode,
  type: string,
  fragments: Map<string, FragmentDefinitionNode>,
  depth = 0,
): FieldNode[] | undefined {
  const out: FieldNode[] = [];
  for (const s of set.selections) {
    if (s.directives && s.directives.length > 0) return undefined;
    if (s.kind === Kind.FIELD) {
      out.push(s);
      continue;
    }
    const fragment = s.kind === Kind.INLINE_FRAGMENT ? s : fragments.get(s.name.value);
    if (!fragment || (fragment.typeCondition && fragment.typeCondition.name.value !== type) || depth > 10) return undefined;
    if (fragment.directives && fragment.directives.length > 0) return undefined;
    const inner = plainFields(fragment.selectionSet, type, fragments, depth + 1);
    if (!inner) return undefined;
    out.push(...inner);
  }
  const keys = out.map((f) => (f.alias ?? f.name).value);
  return new Set(keys).size === keys.length ? out : undefined;
}

/** An object's writer: `{"key":value,…}` over its selected fields. */
function objectWriter(
  set: SelectionSetNode | undefined,
  type: GraphQLObjectType,
  fragments: Map<string, FragmentDefinitionNode>,
  value: (name: string, field: GraphQLField<unknown, unknown>, node: FieldNode) => Write | undefined,
): Write | undefined {
  if (!set) return undefined;
  const nodes = plainFields(set, type.name, fragments);
  if (!nodes) return undefined;
  const parts: [string, Write][] = [];
  for (const node of nodes) {
    const key = goString((node.alias ?? node.name).value);
    if (node.name.value === '__typename') {
      const text = goString(type.name);
      parts.push([key, () => text]);
      continue;
    }
    const field = type.getFields()[node.name.value];
    const write = field && value(node.name.value, field, node);
    if (!write) return undefined;
    parts.push([key, write]);
  }
  // Each field's `"key":` (after a comma but the first) made once.
  const prefixes = parts.map(([key], i) => `${i === 0 ? '{' : ','}${key}:`);
  const writers = parts.map(([, write]) => write);
  return ((obj: unknown) => {
    let text = '';
    for (let i = 0; i < writers.length; i++) text += prefixes[i]! + writers[i]!(obj as never);
    return `${text}}`;
  }) as Write;
}

/** A scalar's writer from the node's proto3 JSON value (graphql.md §3). */
function scalarWriter(f: Field): Write | undefined {
  switch (f.type) {
    case 'uint64':
    case 'int64':
      // graphql-js's Int: 32-bit; a larger value is an error there: left to it.
      return ((v: string) => {
        const n = Number(v);
        if (n > 2147483647 || n < -2147483648) throw new NotPlain();
        return String(n);
      }) as Write;
    case 'timestamp':
      return ((v: string) => (v === '0' ? 'null' : `"${rfc3339Nano(v)}"`)) as Write;
    case 'bool':
      return ((v: boolean) => String(v)) as Write;
    case 'id':
    case 'hex':
    case 'decimal':
    case 'enum':
      // Hex, a well-known name, a decimal or an enum name: nothing to escape.
      return ((v: string) => `"${v}"`) as Write;
    default:
      return ((v: string) => goString(v)) as Write;
  }
}

/** An answer the compiled writers cannot give as graphql-js would: the executor answers instead. */
export class NotPlain extends Error {}

/**
 * A message's writer: each selected field from the node, by its message field's name; or, for a
 * flat message read from the page's text (see flatEdges), by its place in the message.
 */
function messageWriter(
  set: SelectionSetNode | undefined,
  type: GraphQLObjectType,
  fragments: Map<string, FragmentDefinitionNode>,
  flat?: readonly Field[],
): Write | undefined {
  return objectWriter(set, type, fragments, (name, field, node) => {
    const def = field.extensions.messageField as Field | undefined;
    if (!def) return undefined;
    const named = getNamedType(field.type);
    const one = isObjectType(named) ? messageWriter(node.selectionSet, named, fragments) : scalarWriter(def);
    if (!one) return undefined;
    if (flat) {
      const at = flat.indexOf(def);
      return at < 0 ? undefined : (((values: string[]) => one(values[at] as never)) as Write);
    }
    if (def.list) return ((node: Record<string, unknown[]>) => `[${node[name]!.map((v) => one(v as never)).join(',')}]`) as Write;
    // An unset optional string is "", as the executor's resolver gives it (schema.ts).
    if (def.optional && def.type === 'string') return ((node: Record<string, unknown>) => one((node[name] ?? '') as never)) as Write;
    return ((node: Record<string, unknown>) => one(node[name] as never)) as Write;
  });
}

/** Scalars whose proto3 JSON is a string holding no quote or escape (hex, names, digits). */
const BARE_SCALARS = new Set(['id', 'hex', 'int64', 'uint64', 'timestamp', 'decimal', 'enum']);

/** A message's fields when it is flat (no list, no message, only bare scalars): its nodes are then read from the page's text. */
function flatFields(type: GraphQLObjectType): readonly Field[] | undefined {
  const defs = Object.values(type.getFields()).map((f) => f.extensions.messageField as Field | undefined);
  if (defs.some((d) => !d || d.list || typeof d.type !== 'string' || !BARE_SCALARS.has(d.type))) return undefined;
  // In the message's order, the order the store writes them in.
  const message = defs as Field[];
  const order = (type.extensions.message as { fields: readonly Field[] } | undefined)?.fields;
  return order && order.length === message.length ? order : undefined;
}

/**
 * Edges read from their text: each node's values in the message's order, and the cursor
 * (JSON.parse made 1,000 objects a page). Split at the quotes (no value holds one), an edge
 * `{"node":{"k":"v",…},"cursor":"c"}` is 4n + 6 pieces, its keys and values at fixed places,
 * the keys checked.
 */
function flatEdges(text: string, fields: readonly Field[]): { node: string[]; cursor: string }[] {
  const n = fields.length;
  const stride = 4 * n + 6;
  const edges: { node: string[]; cursor: string }[] = [];
  const pieces = text.split('"');
  if ((pieces.length - 1) % stride !== 0) throw new NotPlain();
  for (let base = 0; base < pieces.length - 1; base += stride) {
    if (pieces[base + 1] !== 'node' || pieces[base + 4 * n + 3] !== 'cursor') throw new NotPlain();
    const node: string[] = new Array(n);
    for (let i = 0; i < n; i++) {
      if (pieces[base + 3 + 4 * i] !== fields[i]!.name) throw new NotPlain();
      node[i] = pieces[base + 5 + 4 * i]!;
    }
    edges.push({ node, cursor: pieces[base + 4 * n + 5]! });
  }
  return edges;
}

/** Bound on the bytes of kept GraphQL edges, over every compiled selection (see KeptEdges). */
const MAX_KEPT_EDGE_BYTES = DEFAULT_ROW_CACHE_BYTES;
/** What an entry costs besides its bytes (the Buffer and the WeakMap slot), as the row cache counts it. */
const KEPT_ENTRY_OVERHEAD = 120;
let keptEdgeBytes = 0;
/** Bumped when the bound is passed: every KeptEdges then starts empty. */
let keptGeneration = 0;

/**
 * Each kept row text's GraphQL edge for one compiled edge selection, as its UTF-8 bytes: a page
 * of rows the row cache kept is then these bytes joined, as REST joins the row texts (the gRPC
 * door keeps its encoding alike: grpc/codec.ts). Keyed by the text Buffer in a WeakMap, so an
 * edge lives as long as its text is kept and no longer: a row's new version is a new text. The
 * bytes are counted over all selections (a document may select rows many ways), freed texts
 * included; past the bound every selection starts over.
 */
class KeptEdges {
  private edges = new WeakMap<Buffer, Buffer>();
  private generation = keptGeneration;

  constructor(private readonly write: (text: Buffer) => string) {}

  of(text: Buffer): Buffer {
    if (this.generation !== keptGeneration) {
      this.edges = new WeakMap();
      this.generation = keptGeneration;
    }
    let edge = this.edges.get(text);
    if (edge === undefined) {
      edge = Buffer.from(this.write(text));
      this.edges.set(text, edge);
      keptEdgeBytes += edge.length + KEPT_ENTRY_OVERHEAD;
      if (keptEdgeBytes > MAX_KEPT_EDGE_BYTES) {
        keptEdgeBytes = 0;
        keptGeneration++;
      }
    }
    return edge;
  }
}

const PAGE_INFO_WRITERS: Record<string, Write> = {
  hasNextPage: ((v: boolean) => String(v)) as Write,
  hasPreviousPage: ((v: boolean) => String(v)) as Write,
  // Base64 or empty: nothing to escape.
  startCursor: ((v: string) => `"${v}"`) as Write,
  endCursor: ((v: string) => `"${v}"`) as Write,
};

/** An answer's text in pieces: strings, and kept edges' bytes joined by commas (see KeptEdges). */
type Piece = string | readonly Buffer[];

/** The pieces of a root field's page: its connection, written as its selection asks. */
type PageWrite = (page: PageResult) => Piece[];

/** The writer of a root field's connection: its edges (nodes and cursors) and pageInfo. */
function connectionWriter(root: RootField, node: FieldNode, type: GraphQLObjectType, fragments: Map<string, FragmentDefinitionNode>) {
  let edgesWrite: PageWrite | undefined;
  // The edges' value is a mark here, replaced by their pieces: the rest is written as one string.
  const write = objectWriter(node.selectionSet, type, fragments, (name, field, sub) => {
    const named = getNamedType(field.type) as GraphQLObjectType;
    if (name === 'pageInfo') {
      const info = objectWriter(sub.selectionSet, named, fragments, (n) => {
        const w = PAGE_INFO_WRITERS[n];
        return w && (((p: Record<string, never>) => w(p[n]!)) as Write);
      });
      return info && (((page: PageResult) => info(page.pageInfo as never)) as Write);
    }
    if (name !== 'edges' || edgesWrite) return undefined;
    edgesWrite = edgesWriter(root, named, sub, fragments);
    return edgesWrite && ((() => EDGES_MARK) as Write);
  });
  if (!write) return undefined;
  return (page: PageResult): Piece[] => {
    const text = write(page as never);
    const at = edgesWrite ? text.indexOf(EDGES_MARK) : -1;
    if (at < 0) return [text];
    return [text.slice(0, at), ...edgesWrite!(page), text.slice(at + EDGES_MARK.length)];
  };
}

/** Stands for the edges in a connection's text: no JSON text holds a NUL unescaped. */
const EDGES_MARK = '\u0000edges';

/** The writer of a page's edges: from the kept edges of the row cache's texts, or from the store's text. */
function edgesWriter(
  root: RootField,
  type: GraphQLObjectType,
  node: FieldNode,
  fragments: Map<string, FragmentDefinitionNode>,
): PageWrite | undefined {
  const nodeType = getNamedType(type.getFields().node!.type) as GraphQLObjectType;
  const flat = flatFields(nodeType);
  const edge = objectWriter(node.selectionSet, type, fragments, (n, f, s) => {
    // Base64: nothing to escape.
    if (n === 'cursor') return ((e: { cursor: string }) => `"${e.cursor}"`) as Write;
    const message = messageWriter(s.selectionSet, getNamedType(f.type) as GraphQLObjectType, fragments, flat);
    return message && (((e: { node: never }) => message(e.node)) as Write);
  });
  if (!edge) return undefined;
  const empty = root.emptyEdges === null ? 'null' : '[]';
  /** The edges of some text (edges joined by commas), written. */
  const written = (text: string): string[] => {
    const edges = flat ? flatEdges(text, flat) : (JSON.parse(`[${text}]`) as unknown[]);
    return edges.map((e) => edge(e as never));
  };
  // Bare scalars are ASCII: latin1 decodes them at a byte a character.
  const kept = new KeptEdges((text) => written(text.toString(flat ? 'latin1' : 'utf8'))[0]!);
  return (page) => {
    const text = page.edgesText;
    if (typeof text === 'string') return text.length === 0 ? [empty] : [`[${written(text).join(',')}]`];
    const texts = text.each;
    if (texts.length === 0) return [empty];
    const edges: Buffer[] = new Array(texts.length);
    for (let i = 0; i < texts.length; i++) edges[i] = kept.of(texts[i]!);
    return ['[', edges, ']'];
  };
}

/** The operation compiled, or undefined when it is not plain or asks fields that are not ours. */
export function compile(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): Compiled | undefined {
  const query = schema.getQueryType();
  if (operation.operation !== 'query' || !query) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const nodes = plainFields(operation.selectionSet, query.name, fragments);
  if (!nodes) return undefined;
  const fields: Compiled['fields'] = [];
  for (const node of nodes) {
    const key = (node.alias ?? node.name).value;
    if (node.name.value === '__typename') {
      fields.push(key);
      continue;
    }
    const root = ROOT_FIELDS.find((r) => r.name === node.name.value);
    const def = query.getFields()[node.name.value];
    if (!root || root.executorOnly || !def) return undefined;
    const type = isNonNullType(def.type) ? def.type.ofType : def.type;
    if (isListType(type) || !isObjectType(type)) return undefined;
    const write = connectionWriter(root, node, type, fragments);
    if (!write) return undefined;
    fields.push({ key, root, def, node, write, reads: nodeFieldsRead(node.selectionSet, type, fragments) });
  }
  return { fields };
}

/**
 * The node's message fields a connection's selection reads (`edges { node { … } }`), by message
 * field name. Called on a selection the writers compiled, so every set in it is plain.
 */
function nodeFieldsRead(set: SelectionSetNode | undefined, connection: GraphQLObjectType, fragments: Map<string, FragmentDefinitionNode>) {
  const reads = new Set<string>();
  const edge = getNamedType(connection.getFields().edges!.type) as GraphQLObjectType;
  const node = getNamedType(edge.getFields().node!.type) as GraphQLObjectType;
  const selected = (s: FieldNode, name: string, type: GraphQLObjectType) =>
    s.name.value === name && s.selectionSet ? (plainFields(s.selectionSet, type.name, fragments) ?? []) : [];
  for (const e of set ? (plainFields(set, connection.name, fragments) ?? []) : [])
    for (const n of selected(e, 'edges', edge))
      for (const f of selected(n, 'node', node)) {
        const def = node.getFields()[f.name.value]?.extensions.messageField as Field | undefined;
        if (def) reads.add(def.name);
      }
  return reads;
}

/** A root field's arguments as the executor would coerce them. */
export function argumentsOf(c: CompiledRoot, variables: Record<string, unknown>): Record<string, unknown> {
  return getArgumentValues(c.def, c.node, variables);
}

/** The answer's JSON from the pages of the root fields, in selection order, written into one Buffer. */
export function writeAnswer(compiled: Compiled, pages: readonly (PageResult | undefined)[]): Buffer {
  const pieces: Piece[] = ['{"data":{'];
  compiled.fields.forEach((f, i) => {
    const sep = i > 0 ? ',' : '';
    if (typeof f === 'string') pieces.push(`${sep}${goString(f)}:"Query"`);
    else pieces.push(`${sep}${goString(f.key)}:`, ...f.write(pages[i]!));
  });
  pieces.push('}}');
  let size = 0;
  for (const p of pieces) {
    if (typeof p === 'string') size += Buffer.byteLength(p);
    else for (const edge of p) size += edge.length + 1;
  }
  const body = Buffer.allocUnsafe(size);
  let at = 0;
  for (const p of pieces) {
    if (typeof p === 'string') at += body.write(p, at);
    else
      for (let i = 0; i < p.length; i++) {
        if (i > 0) body[at++] = COMMA;
        body.set(p[i]!, at);
        at += p[i]!.length;
      }
  }
  // The edges' pieces counted a comma each; one fewer was written.
  return at === size ? body : body.subarray(0, at);
}

const COMMA = 0x2c;
