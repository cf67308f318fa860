import { tooManyValues } from '../contract/errors.js';
import type { FieldSpec } from '../contract/query.js';
import type { FieldsRead } from '../contract/message.js';
import type { AnyOperation, ReadContext, RequestOf } from './operation.js';
import type { ItemResult, PageResult } from '../pagination/result.js';

/** What a door runs an operation with: what it reads with, and the limits on what a request may ask. */
export interface RunContext extends ReadContext {
  /** Most values of one repeated request field (serve --max-filter-values). */
  maxListValues: number;
}

/**
 * An operation run for a door: REST, GraphQL and gRPC call their operations through here, so
 * that the limits on a request hold on each, whatever form its lists came in. A repeated field
 * (a filter's ids) is refused above the limit before anything is read: its SQL grows with its
 * values (one range scan per id), and thousands of them overflowed the statement's text or held
 * the event loop for seconds while it was written. Values are counted as sent, duplicates too.
 * `reads`: the node's fields the door will read (see Operation.run).
 */
export function runOperation(
  op: AnyOperation,
  ctx: RunContext,
  request: RequestOf<Record<string, FieldSpec>>,
  reads?: FieldsRead,
): Promise<PageResult | ItemResult> {
  for (const [name, spec] of repeatedFields(op)) {
    const values = request[name] as readonly unknown[] | undefined;
    if (values && values.length > ctx.maxListValues) throw tooManyValues(spec.keys[0] ?? name, values.length, ctx.maxListValues);
  }
  return op.run(ctx, request, reads);
}

/** Each operation's repeated fields, found once: most operations have none. */
const repeatedOf = new WeakMap<AnyOperation, [string, FieldSpec][]>();

function repeatedFields(op: AnyOperation): [string, FieldSpec][] {
  let fields = repeatedOf.get(op);
  if (fields === undefined) {
    fields = Object.entries(op.fields as Record<string, FieldSpec>).filter(([, spec]) => spec.repeated);
    repeatedOf.set(op, fields);
  }
  return fields;
}
