import { arrayOf, DECIMAL, described, HEX, ID, INT64, message, nullable, ref, type SchemaObject, TIMESTAMP, UINT64 } from './openapi.js';

/**
 * The messages the service answers with, each written once: its fields in proto order, with
 * their value types, docs, and where each value comes from in SQL. Everything else derives from
 * that one definition: the OpenAPI schemas (messageSchemas), the JSON text PostgreSQL renders
 * (pagination/message-sql.ts, also the stored rows' render functions that `migrate` installs), and
 * the TypeScript types of the JSON (MessageJson: the explorer's and the tests').
 *
 * Plain data: no framework, no driver (the explorer's front-end imports these types).
 */

/**
 * How a value is written in the gateway's JSON (proto3 JSON):
 * - id: a bytea id, shown as lowercase hex or the well-known name of a one-byte id;
 * - hex: a bytea shown as lowercase hex;
 * - int64, uint64, timestamp (Unix ns): 64-bit integers, as JSON strings of decimal digits;
 * - decimal: an exact decimal number, as a JSON string;
 * - enum: an enum value's name, a JSON string that needs no escaping;
 * - string: any text, escaped as Go's encoding/json does;
 * - bool.
 */
export type Scalar = 'id' | 'hex' | 'int64' | 'uint64' | 'timestamp' | 'decimal' | 'enum' | 'string' | 'bool';

export interface Field {
  /** The JSON name (lowerCamelCase). */
  readonly name: string;
  readonly doc: string;
  readonly type: Scalar | MessageDef;
  /** A JSON array of the type. */
  readonly list?: true;
  /** JSON null when the SQL value is NULL (a message field the event lacked, and the explorer's messages). */
  readonly nullable?: true;
  /** A proto3 `optional` field: left out of the JSON when the SQL value is NULL (family.md §3). Never a message's first field. */
  readonly optional?: true;
  /** OpenAPI constraints beyond the type's (a pattern, examples). */
  readonly schema?: SchemaObject;
  /**
   * The value as SQL over a row alias. A scalar's type decides how it is written; a list's SQL
   * gives its elements' JSON texts joined by commas; a nested message reads the same row, and its
   * SQL is only tested for NULL when the field is nullable.
   */
  readonly sql: (row: string) => string;
}

export interface MessageDef {
  /** The proto message's full name, e.g. datanode.api.v2.ReferralSet. */
  readonly name: string;
  readonly doc: string;
  readonly fields: readonly Field[];
}

/** The fields of a message a door reads, by field name (a GraphQL selection); undefined: every field. */
export type FieldsRead = ReadonlySet<string> | undefined;

type ScalarJson<S extends Scalar> = S extends 'bool' ? boolean : string;
type ValueJson<T> = T extends Scalar ? ScalarJson<T> : T extends MessageDef ? MessageJson<T> : never;
type FieldJson<F extends Field> = F extends { list: true } ? ValueJson<F['type']>[] : ValueJson<F['type']>;

/** A message's JSON as the service writes it, e.g. `MessageJson<typeof REFERRAL_SET>`. */
export type MessageJson<M extends MessageDef> = {
  -readonly [F in M['fields'][number] as F extends { optional: true } ? never : F['name']]: F extends { nullable: true }
    ? FieldJson<F> | null
    : FieldJson<F>;
} & {
  -readonly [F in M['fields'][number] as F extends { optional: true } ? F['name'] : never]?: FieldJson<F>;
};

/** The name OpenAPI documents of the gateway give a message: its package's last part and its name (v2ReferralSet). */
export function schemaName(fullName: string): string {
  const parts = fullName.split('.');
  return parts.slice(-2).join('');
}

const SCALAR_SCHEMAS: Record<Scalar, SchemaObject> = {
  id: ID,
  hex: HEX,
  int64: INT64,
  uint64: UINT64,
  timestamp: TIMESTAMP,
  decimal: DECIMAL,
  enum: { type: 'string' },
  string: { type: 'string' },
  bool: { type: 'boolean' },
};

function fieldSchema(f: Field): SchemaObject {
  const value = typeof f.type === 'string' ? { ...SCALAR_SCHEMAS[f.type], ...f.schema } : ref(schemaName(f.type.name));
  if (f.list) return arrayOf(value, f.doc);
  if (f.nullable) return nullable(value, f.doc);
  return typeof f.type === 'string' ? described(value, f.doc) : { ...value, description: f.doc };
}

/** The OpenAPI schemas of a message and of the messages it holds, by schema name. */
export function messageSchemas(def: MessageDef): Record<string, SchemaObject> {
  const schemas: Record<string, SchemaObject> = {};
  for (const f of def.fields) if (typeof f.type !== 'string') Object.assign(schemas, messageSchemas(f.type));
  schemas[schemaName(def.name)] = message(
    def.doc,
    def.fields.map((f) => [f.name, fieldSchema(f)] as const),
    def.fields.filter((f) => f.optional).map((f) => f.name),
  );
  return schemas;
}

/**
 * A cursor: compact JSON of a row's position in the sort key, base64, byte-compatible with the
 * reference's (contract §4). Its keys are the reference's, in its order:
 * - time: an RFC3339Nano UTC string of a Unix ns value (a missing one is Go's zero time);
 * - id: an id as shown (hex, or a well-known name);
 * - uint64: a JSON number;
 * - enum: a JSON string that needs no escaping;
 * - decimal: a decimal string the reference writes but that is not part of the position (a
 *   cursor holding something else is still not one we issued).
 */
export interface CursorField {
  readonly key: string;
  readonly type: 'time' | 'id' | 'uint64' | 'enum' | 'decimal';
  /** The position's property it gives (none for a decimal). */
  readonly position?: string;
  /** The value as SQL over a row alias (Unix ns for a time, bytea for an id). */
  readonly sql: (row: string) => string;
}

export interface CursorDef {
  readonly fields: readonly CursorField[];
}

type PositionValue<T extends CursorField['type']> = T extends 'time' | 'uint64' ? bigint : string;

/** The position a cursor decodes to: ids as lowercase hex, times in Unix ns (fields without a position, only written, are not in it). */
export type PositionOf<C extends CursorDef> = {
  -readonly [F in C['fields'][number] as F extends { position: infer P extends string } ? P : never]: PositionValue<F['type']>;
};

/** A page's pageInfo (contract §4). */
export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string;
  endCursor: string;
}

export interface Edge<Node> {
  node: Node;
  cursor: string;
}

/** A connection (a page of nodes) as its JSON shows it. */
export interface Connection<Node> {
  edges: Edge<Node>[];
  pageInfo: PageInfo;
}
