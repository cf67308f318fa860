import type { FieldsRead, MessageDef } from '../contract/message.js';
import type { FieldSpec, ParsedQuery } from '../contract/query.js';
import type { AnswerSource } from '../db/read-models.js';
import type { Store, Until } from '../db/store.js';
import type { ItemResult, PageResult } from '../pagination/result.js';
import type { RowCache } from '../pagination/row-cache.js';

/** A request as every door hands it to an operation: each field by name, typed by its kind (a repeated field is a list). */
export type RequestOf<Fields extends Record<string, FieldSpec>> = ParsedQuery<Fields>;

/**
 * What an operation reads with: the store, the rendered rows kept across requests (see
 * RowCache), if any, and when the request's caller stops waiting (its deadline, see Until).
 */
export interface ReadContext {
  store: Store;
  rows?: RowCache | undefined;
  until?: Until;
}

/** A list answer: the response message holds one connection of nodes under `key`. */
export interface PageResponse {
  kind: 'page';
  /** Full proto names of the response message, its connection and its edge. */
  message: string;
  connection: string;
  edge: string;
  key: string;
  node: MessageDef;
  /** The node in words, for the documents: "referral set", "referral sets". */
  one: string;
  many: string;
}

/** A single message. */
export interface ItemResponse {
  kind: 'item';
  message: MessageDef;
}

/**
 * One operation of the core: a typed request in, a page or a message out (with the chain head it
 * was read at), or an ApiError of the contract's catalogue. It knows nothing of the doors: each
 * (REST, and the others to come) parses its own request form into the fields and renders the
 * result in its own encoding. Everything about the operation is in its own folder: its request
 * fields (with their docs), its messages, cursor, SQL and examples.
 */
export interface Operation<Fields extends Record<string, FieldSpec> = Record<string, FieldSpec>, Result = PageResult | ItemResult> {
  /** The operation's name (the data-node's RPC name), in logs and metrics. */
  name: string;
  /** The service it belongs to: the data-node's TradingDataService, or the explorer's own. */
  service: 'TradingDataService' | 'Explorer';
  summary: string;
  description: string;
  /**
   * The read models its answers are made of (and 'block' when an answer shows the head): a
   * cached answer stays valid while none of them changes.
   */
  reads: readonly AnswerSource[];
  /** The request's fields, with their docs; each names the query keys the gateway reads it from. */
  fields: Fields;
  /**
   * The REST door reads no query string at all (GetCurrentReferralProgram, family.md §1): unknown,
   * repeated and malformed keys are no error; `?pretty` still indents.
   */
  ignoresQuery?: true;
  /** When its answer may be 404 NotFound with a detail (no current referral program): why, for the documents. */
  notFound?: string;
  response: PageResponse | ItemResponse;
  /** vega.ErrorDetail code and message of unexpected failures of this operation. */
  errorCode: number;
  errorMessage: string;
  /**
   * `reads`: the node's fields the door will read, by message field name (a GraphQL selection);
   * undefined: every field. An operation may leave the others out of its nodes when they are
   * costly to make (the statistics' per-epoch lists); such an answer is for that door alone.
   */
  run(ctx: ReadContext, request: RequestOf<Fields>, reads?: FieldsRead): Promise<Result>;
}

/** Any operation, as the doors list them. */
// biome-ignore lint/suspicious/noExplicitAny: the doors hand each operation the request its own fields type.
export type AnyOperation = Operation<any, PageResult | ItemResult>;
