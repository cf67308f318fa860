import type { CursorDef, CursorField, Field, MessageDef, Scalar } from '../contract/message.js';
import { sqlBase64, sqlId, sqlJsonString, sqlNullable, sqlPlainString, sqlRfc3339Nanos } from './sql-json.js';

/**
 * A message's and a cursor's JSON text as one SQL expression over a row, from their definitions
 * (contract/message.ts): `'{"a":' || … || ',"b":' || … || '}'`. Page statements render with it,
 * and so do the stored rows' render functions (see operations/rendered-rows.ts).
 */

function scalarJsonSql(type: Scalar, value: string): string {
  switch (type) {
    case 'id':
      return sqlPlainString(sqlId(value));
    case 'hex':
      return sqlPlainString(`encode(${value}, 'hex')`);
    case 'int64':
    case 'uint64':
    case 'timestamp':
    case 'decimal':
      return sqlPlainString(`${value}::text`);
    case 'enum':
      return sqlPlainString(value);
    case 'string':
      return sqlJsonString(value);
    case 'bool':
      return `CASE WHEN ${value} THEN 'true' ELSE 'false' END`;
  }
}

function fieldJsonSql(f: Field, row: string): string {
  const value = f.sql(row);
  const json = f.list ? `'[' || ${value} || ']'` : typeof f.type === 'string' ? scalarJsonSql(f.type, value) : messageJsonSql(f.type, row);
  return f.nullable ? sqlNullable(value, json) : json;
}

/** The message's JSON text for a row. An optional field (never the first) is left out, key and value, when its value is NULL. */
export function messageJsonSql(def: MessageDef, row: string): string {
  const part = (f: Field, i: number) => {
    const member = `'${i === 0 ? '{' : ','}"${f.name}":' || `;
    if (!f.optional) return member + fieldJsonSql(f, row);
    if (i === 0) throw new Error(`${def.name}: an optional field cannot be the first`);
    return `coalesce(${member}CASE WHEN ${f.sql(row)} IS NULL THEN NULL ELSE ${fieldJsonSql(f, row)} END, '')`;
  };
  return `${def.fields.map(part).join(' || ')} || '}'`;
}

/** One key of a cursor's JSON and its value, as SQL over a row. */
function cursorFieldSql(f: CursorField, first: boolean, row: string): string {
  const key = `${first ? '{' : ','}"${f.key}":`;
  const value = f.sql(row);
  switch (f.type) {
    case 'time':
      return `'${key}"' || ${sqlRfc3339Nanos(value)} || '"'`;
    case 'id':
      return `'${key}"' || ${sqlId(value)} || '"'`;
    case 'uint64':
      return `'${key}' || ${value}::text`;
    case 'enum':
      return `'${key}"' || ${value} || '"'`;
    case 'decimal':
      return `'${key}"' || ${value}::text || '"'`;
  }
}

/** The cursor of a row: base64 of its position's JSON. */
export function cursorSql(def: CursorDef, row: string): string {
  return sqlBase64(`${def.fields.map((f, i) => cursorFieldSql(f, i === 0, row)).join(' || ')} || '}'`);
}
