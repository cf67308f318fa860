import { message, type SchemaObject } from '../contract/openapi.js';

/**
 * A response message written once: its fields in proto order, each with its OpenAPI schema and
 * the SQL that writes its JSON value. The same list gives the schema in the OpenAPI document and
 * the JSON text PostgreSQL builds, so the two cannot drift apart.
 */
export interface MessageField {
  name: string;
  schema: SchemaObject;
  /** The field's JSON value (a string literal with its quotes, a number, an array) as SQL text over the row alias. */
  sql: (row: string) => string;
}

export interface MessageSpec {
  /** Its name under components.schemas. */
  schemaName: string;
  description: string;
  fields: readonly MessageField[];
}

/** The message's JSON text for a row, as one SQL expression: `'{"a":' || … || ',"b":' || … || '}'`. */
export function messageJsonSql(spec: MessageSpec, row: string): string {
  return `${spec.fields.map((f, i) => `'${i === 0 ? '{' : ','}"${f.name}":' || ${f.sql(row)}`).join(' || ')} || '}'`;
}

/** The message's schema: every field required, in proto order, nothing else. */
export function messageSchema(spec: MessageSpec): SchemaObject {
  return message(
    spec.description,
    spec.fields.map((f) => [f.name, f.schema] as const),
  );
}
