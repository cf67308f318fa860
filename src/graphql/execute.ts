import {
  execute,
  getVariableValues,
  type GraphQLFieldResolver,
  GraphQLError,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { PageResult } from '../pagination/result.js';
import { argumentsOf, type Compiled, type CompiledRoot, compile, writeAnswer } from './compiled.js';
import { unavailable } from '../contract/errors.js';
import type { AnswerSource } from '../db/read-models.js';
import { type RunContext, runOperation } from '../operations/run.js';
import type { ChainHead } from '../pagination/result.js';
import { type Checked, type DocumentCache, type DocumentLimits, limitError, selectOperation } from './documents.js';
import { answerBody, type ErrorJson, errorsBody, executionErrorJson, requestErrorJson } from './errors.js';
import { type RootsAsked, rootsAsked } from './roots-asked.js';
import { ROOT_FIELDS, type RootField } from './roots.js';
import type { RootResolver } from './schema.js';
import { coerceVariables } from './variables.js';

/**
 * A GraphQL request from its parts to its answer, whatever carried it: the document checked (or
 * taken from the cache), the operation chosen, its variables coerced, the limits that depend on
 * them applied, and the operation executed. The root fields call the core's operations.
 */

/** A request as the transport read it. */
export interface GraphqlRequest {
  query: string;
  operationName?: string | undefined;
  variables?: Record<string, unknown> | undefined;
}

/** What executing a request needs from the server, for every request alike. */
export interface Execution {
  /** The schema answered with: ours, or ours stitched with an upstream's (see upstream.ts). */
  schema: () => GraphQLSchema;
  documents: DocumentCache;
  limits: DocumentLimits;
}

/** A request made ready to execute: its operation, variables and what it asks. */
export interface Prepared {
  checked: Checked & { document: object };
  operation: OperationDefinitionNode;
  /** The variables as sent (execution coerces them again) and as coerced. */
  sent: Record<string, unknown>;
  variables: Record<string, unknown>;
  asked: RootsAsked;
  schema: GraphQLSchema;
}

/** A request that cannot execute: its status and body. */
export interface Refusal {
  status: number;
  body: Buffer;
}

/** Checks a request up to execution; a Refusal (422 mostly) when it cannot run. */
export function prepare(x: Execution, request: GraphqlRequest, method: 'GET' | 'POST'): Prepared | Refusal {
  const schema = x.schema();
  const checked = x.documents.check(request.query, schema);
  // A GET carries queries only (graphql.md §4): a mutation's is a 406 before its validation (which
  // refuses it when the schema has no mutation type).
  const parsed = checked.document ?? checked.parsed;
  const operation = parsed && selectOperation(parsed, request.operationName);
  if (method === 'GET' && typeof operation === 'object' && operation.operation === 'mutation')
    return { status: 406, body: errorsBody({ message: 'GET requests only for queries' }) };
  if (checked.errors) return { status: 422, body: errorsBody(...checked.errors) };
  if (typeof operation !== 'object') return { status: 422, body: errorsBody(limitError(operation!)) };
  if (operation.operation === 'subscription') {
    return { status: 422, body: errorsBody(limitError('subscriptions are not served over HTTP here: use a data-node websocket')) };
  }
  const sent = request.variables ?? {};
  let variables = coerceVariables(schema, operation, sent);
  if (variables === undefined) {
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], sent, { maxErrors: 20 });
    if (coerced.errors)
      return { status: 422, body: errorsBody(...coerced.errors.map((e) => requestErrorJson(e, 'GRAPHQL_VALIDATION_FAILED'))) };
    variables = coerced.coerced;
  }
  let asked: RootsAsked;
  try {
    asked = rootsAsked(schema, checked.document, operation, variables);
  } catch (err) {
    if (err instanceof GraphQLError) return { status: 422, body: errorsBody(requestErrorJson(err, 'GRAPHQL_VALIDATION_FAILED')) };
    throw err;
  }
  if (asked.count > x.limits.maxRootFields) {
    return {
      status: 422,
      body: errorsBody(limitError(`the operation asks ${asked.count} root fields, the limit is ${x.limits.maxRootFields}`)),
    };
  }
  if (asked.rows > x.limits.maxRows) {
    return { status: 422, body: errorsBody(limitError(`the operation asks ${asked.rows} rows, the limit is ${x.limits.maxRows}`)) };
  }
  return { checked, operation, sent, variables, asked, schema };
}

/** The read models an answer is made of, when all its root fields are ours (or introspection); undefined when some are not. */
export function sourcesOf(asked: RootsAsked): AnswerSource[] | undefined {
  const sources = new Set<AnswerSource>();
  for (const name of asked.names) {
    if (name.startsWith('__')) continue;
    const root = ROOT_FIELDS.find((r) => r.name === name);
    if (!root) return undefined;
    for (const s of root.operation.reads) sources.add(s);
  }
  return [...sources];
}

/** What a root field's resolver reads with, per request. */
export interface RootContext {
  /** Why the store is not ready; undefined once it is. */
  waitingFor: () => string | undefined;
  /** The operation's work, bounded by the request's deadline (handed to the store), mapped to the contract's errors. */
  run: (root: RootField, work: (read: RunContext) => Promise<unknown>) => Promise<unknown>;
  /** The latest chain head an operation answered at. */
  head: ChainHead | null;
  /** The height of the oldest snapshot an operation read (root fields may each read their own). */
  readAt?: string;
  /** The executor answers after the compiled pass failed: what that pass read is not this answer's. */
  newPass?: () => void;
}

/** Notes the head a root field's operation answered at. */
function noteHead(ctx: RootContext, head: ChainHead | null): void {
  if (head === null) return;
  if (ctx.head === null || BigInt(head.height) > BigInt(ctx.head.height)) ctx.head = head;
  if (ctx.readAt === undefined || BigInt(head.height) < BigInt(ctx.readAt)) ctx.readAt = head.height;
}

/** The root fields' resolver: the operation called with the arguments mapped to its request. */
export const resolveRoot: RootResolver = (root) => {
  const resolver: GraphQLFieldResolver<unknown, RootContext> = async (_source, args, ctx, info) => {
    if (ctx.waitingFor() !== undefined) throw unavailable();
    const request = root.request(args, info);
    const result = (await ctx.run(root, (read) => runOperation(root.operation, read, request))) as { head: ChainHead | null };
    noteHead(ctx, result.head);
    return result;
  };
  return resolver as GraphQLFieldResolver<unknown, unknown>;
};

/** An executed request's answer: the body, and whether it holds errors (such an answer is not kept by the cache). */
export interface Executed {
  body: Buffer;
  head: ChainHead | null;
  /** See RootContext.readAt. */
  readAt: string | undefined;
  failed: boolean;
}

/** The operation compiled (see compiled.ts), once per document and operation; null when it is not plain. */
const compiledOperations = new WeakMap<object, Map<string, Compiled | null>>();

function compiledOf(p: Prepared): Compiled | undefined {
  let byName = compiledOperations.get(p.checked.document);
  if (!byName) {
    byName = new Map();
    compiledOperations.set(p.checked.document, byName);
  }
  const name = p.operation.name?.value ?? '';
  let compiled = byName.get(name);
  if (compiled === undefined) {
    compiled = compile(p.schema, p.checked.document, p.operation) ?? null;
    byName.set(name, compiled);
  }
  return compiled ?? undefined;
}

/** The compiled operation's answer; undefined when any root field fails (the executor then answers, errors and all). */
async function executeCompiled(compiled: Compiled, p: Prepared, ctx: RootContext): Promise<Executed | undefined> {
  if (ctx.waitingFor() !== undefined) return undefined;
  const pageOf = async (f: CompiledRoot | string) => {
    if (typeof f === 'string') return undefined;
    const info = { fieldNodes: [f.node] } as unknown as GraphQLResolveInfo;
    // As prepare() coerced them for the row limit (rootsAsked).
    const request = f.root.request(p.asked.args.get(f.node) ?? argumentsOf(f, p.variables), info);
    // Only the node fields the document selects are made (Operation.run): the executor, should
    // it answer instead, runs the operation again for every field.
    const page = (await ctx.run(f.root, (read) => runOperation(f.root.operation, read, request, f.reads))) as PageResult;
    noteHead(ctx, page.head);
    return page;
  };
  try {
    const fields = compiled.fields;
    const pages = fields.length === 1 ? [await pageOf(fields[0]!)] : await Promise.all(fields.map(pageOf));
    return { body: writeAnswer(compiled, pages), head: ctx.head, readAt: ctx.readAt, failed: false };
  } catch {
    ctx.head = null;
    ctx.readAt = undefined;
    ctx.newPass?.();
    return undefined;
  }
}

export async function executePrepared(p: Prepared, ctx: RootContext): Promise<Executed> {
  const compiled = compiledOf(p);
  const fast = compiled && (await executeCompiled(compiled, p, ctx));
  if (fast) return fast;
  const result = await execute({
    schema: p.schema,
    document: p.checked.document,
    operationName: p.operation.name?.value,
    variableValues: p.sent,
    contextValue: ctx,
  });
  const errors: ErrorJson[] = (result.errors ?? []).map(executionErrorJson);
  return { body: answerBody(errors, result.data), head: ctx.head, readAt: ctx.readAt, failed: errors.length > 0 };
}
