import {
  GraphQLBoolean,
  GraphQLEnumType,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  type GraphQLNamedType,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLSchema,
  GraphQLString,
  type GraphQLType,
  buildSchema,
  isInputType,
  type GraphQLInputType,
  type GraphQLFieldConfigArgumentMap,
} from 'graphql';
import type { Field, MessageDef, Scalar } from '../contract/message.js';
import type { ItemResponse, PageResponse } from '../operations/operation.js';
import type { ItemResult, PageResult } from '../pagination/result.js';
import { TIMESTAMP } from './encode.js';
import { ACCOUNT_TYPES, INPUT_SDL, type MessageView, type RootField } from './roots.js';

/**
 * The GraphQL schema of the root fields (graphql.md §1), derived from the operations' message
 * definitions: a message is an object type named as the proto message, its fields typed by their
 * scalar (below) unless its view says otherwise. A field added to a message shows in GraphQL too.
 */

/** The GraphQL type of each scalar of the messages, as the data-node's schema gives them. */
const SCALAR_TYPES: Record<Scalar, string> = {
  id: 'ID!',
  hex: 'String!',
  int64: 'String!',
  uint64: 'Int!',
  timestamp: 'Timestamp!',
  decimal: 'String!',
  enum: 'String!',
  string: 'String!',
  bool: 'Boolean!',
};

/**
 * vega.AccountType. Its values are written as stored, not checked against the list (graphql.md
 * §1), so that a type added to the chain still shows.
 */
class AccountTypeEnum extends GraphQLEnumType {
  override serialize(value: unknown): string {
    return String(value);
  }
}

const ACCOUNT_TYPE = new AccountTypeEnum({
  name: 'AccountType',
  description: 'Various collateral/account types as used by Vega',
  values: Object.fromEntries(
    ACCOUNT_TYPES.map((name) => [
      name,
      name === 'ACCOUNT_TYPE_REWARD_AVERAGE_POSITION' ? { value: name, deprecationReason: 'Deprecated' } : { value: name },
    ]),
  ),
});

/** Pagination and RewardSummaryFilter, from their SDL. */
const INPUTS = buildSchema(`${INPUT_SDL} type Query { unused: Int }`);

/** The proto message's last name part: datanode.api.v2.ReferralSet → ReferralSet. */
const typeName = (fullName: string) => fullName.slice(fullName.lastIndexOf('.') + 1);

/** The types by name, made as the schema is built. */
class Types {
  private readonly named = new Map<string, GraphQLNamedType>([
    ['ID', GraphQLID],
    ['String', GraphQLString],
    ['Int', GraphQLInt],
    ['Boolean', GraphQLBoolean],
    ['Timestamp', TIMESTAMP],
    ['AccountType', ACCOUNT_TYPE],
  ]);

  add(type: GraphQLNamedType): void {
    this.named.set(type.name, type);
  }

  get(name: string): GraphQLNamedType | undefined {
    return this.named.get(name) ?? INPUTS.getType(name) ?? undefined;
  }

  /** A type written as in SDL: `Name`, `Name!`, `[Name!]`, `[Name]!`. */
  parse(text: string): GraphQLType {
    if (text.endsWith('!')) return new GraphQLNonNull(this.parse(text.slice(0, -1)) as never);
    if (text.startsWith('[')) return new GraphQLList(this.parse(text.slice(1, -1)));
    const type = this.get(text);
    if (!type) throw new Error(`unknown GraphQL type ${text}`);
    return type;
  }

  output(text: string): GraphQLOutputType {
    return this.parse(text) as GraphQLOutputType;
  }

  input(text: string): GraphQLInputType {
    const type = this.parse(text);
    if (!isInputType(type)) throw new Error(`${text} is not an input type`);
    return type;
  }
}

/** A field's GraphQL type: the view's, else its scalar's (a message's type by name), as a list when it is one. */
function fieldType(
  f: Field,
  view: MessageView | undefined,
  types: Types,
  views?: Readonly<Record<string, MessageView>>,
): GraphQLOutputType {
  const given = view?.types?.[f.name];
  if (given !== undefined) return types.output(given);
  const one = typeof f.type === 'string' ? SCALAR_TYPES[f.type] : `${views?.[f.type.name]?.name ?? typeName(f.type.name)}!`;
  return types.output(f.list ? `[${one}]!` : one);
}

/**
 * A field's value from the node's proto3 JSON, by its message name: 64-bit integers shown as Int
 * become numbers (graphql.md §3), an absent string is "", and a view may give its own.
 */
function fieldResolver(f: Field, view: MessageView | undefined): GraphQLFieldConfig<Record<string, unknown>, unknown>['resolve'] {
  const name = f.name;
  const own = view?.values?.[name];
  if (own) return (node) => own(node[name], node);
  if (f.type === 'uint64' || f.type === 'int64') {
    if (f.list) return (node) => (node[name] as string[]).map(Number);
    return (node) => (node[name] === undefined ? null : Number(node[name]));
  }
  if (f.type === 'string' && !f.list) return (node) => node[name] ?? '';
  // A renamed field reads its message name; else graphql-js's default, node[name].
  return view?.names?.[name] === undefined ? undefined : (node) => node[name];
}

/** The object type of a message (and, first, of the messages it holds), in its view's field order. */
function messageType(def: MessageDef, views: Readonly<Record<string, MessageView>>, types: Types): GraphQLObjectType {
  const view = views[def.name];
  const name = view?.name ?? typeName(def.name);
  const known = types.get(name);
  if (known) return known as GraphQLObjectType;
  for (const f of def.fields) if (typeof f.type !== 'string') messageType(f.type, views, types);
  const order = view?.order ?? [];
  const rank = (f: Field) => {
    const at = order.indexOf(f.name);
    return at < 0 ? order.length : at;
  };
  const fields = [...def.fields].sort((a, b) => rank(a) - rank(b));
  const type = new GraphQLObjectType({
    name,
    description: def.doc,
    // The message rides along for the compiled writers (compiled.ts): the order its nodes' text is in.
    extensions: { message: def },
    fields: () =>
      Object.fromEntries(
        fields.map((f) => [
          view?.names?.[f.name] ?? f.name,
          // The message field rides along for the compiled writers (compiled.ts).
          {
            type: fieldType(f, view, types, views),
            description: f.doc,
            deprecationReason: view?.deprecated?.[f.name],
            resolve: fieldResolver(f, view),
            extensions: { messageField: f },
          },
        ]),
      ),
  });
  types.add(type);
  return type;
}

const PAGE_INFO = new GraphQLObjectType({
  name: 'PageInfo',
  description: 'Paging information returned with each page of a connection',
  fields: {
    hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) },
    hasPreviousPage: { type: new GraphQLNonNull(GraphQLBoolean) },
    startCursor: { type: new GraphQLNonNull(GraphQLString) },
    endCursor: { type: new GraphQLNonNull(GraphQLString) },
  },
});

/** What a root field's resolver needs from the door: the page of its operation for the request (see resolve.ts). */
export type RootResolver = (root: RootField) => GraphQLFieldConfig<unknown, unknown>['resolve'];

/** The connection and edge types of a root field's page, and the root field itself. */
function rootFieldConfig(root: RootField, types: Types, resolve: RootResolver): GraphQLFieldConfig<unknown, unknown> {
  if (root.operation.response.kind === 'item') return itemFieldConfig(root, root.operation.response, types, resolve);
  const response = root.operation.response as PageResponse;
  const node = messageType(response.node, root.views, types);
  const edge = new GraphQLObjectType({
    name: typeName(response.edge),
    fields: { node: { type: new GraphQLNonNull(node) }, cursor: { type: new GraphQLNonNull(GraphQLString) } },
  });
  types.add(edge);
  const connection = new GraphQLObjectType<PageResult>({
    name: typeName(response.connection),
    fields: {
      edges: {
        type: types.output(root.edges),
        resolve: (page) => {
          const edges = page.edges();
          return edges.length === 0 ? root.emptyEdges : edges;
        },
      },
      pageInfo: { type: types.output(root.pageInfo.replace('PageInfo', PAGE_INFO.name)), resolve: (page) => page.pageInfo },
    },
  });
  types.add(connection);
  const args: GraphQLFieldConfigArgumentMap = {};
  for (const sdl of root.args) {
    const [name, type] = sdl.split(': ') as [string, string];
    args[name] = { type: types.input(type) };
  }
  return {
    type: root.nullable ? connection : new GraphQLNonNull(connection),
    description: root.operation.summary,
    args,
    resolve: resolve(root),
  };
}

/**
 * A root field answering one message: the response message's one field (GetCurrentReferralProgram's
 * currentReferralProgram), as its own object type.
 */
function itemFieldConfig(
  root: RootField,
  response: ItemResponse,
  types: Types,
  resolve: RootResolver,
): GraphQLFieldConfig<unknown, unknown> {
  const [field] = response.message.fields;
  if (!field || typeof field.type === 'string') throw new Error(`${root.name}: an item root needs its response's message field`);
  const type = messageType(field.type, root.views, types);
  const result = resolve(root)!;
  return {
    type: root.nullable ? type : new GraphQLNonNull(type),
    description: root.operation.summary,
    args: {},
    resolve: async (source, args, ctx, info) =>
      ((await result(source, args, ctx, info)) as ItemResult<Record<string, unknown>>).value()[field.name],
  };
}

/** The schema of the root fields, each resolved by `resolve(root)`. */
export function localSchema(roots: readonly RootField[], resolve: RootResolver): GraphQLSchema {
  const types = new Types();
  types.add(PAGE_INFO);
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const root of roots) fields[root.name] = rootFieldConfig(root, types, resolve);
  return new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields }) });
}
