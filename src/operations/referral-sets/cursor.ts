import { cursorField, CursorError, decodeCursorObject, parseRfc3339Nanos } from '../../pagination/cursor.js';
import { sqlBase64, sqlRfc3339Nanos } from '../../pagination/sql-json.js';

/**
 * A referral set's position in the sort key (createdAt, id). The cursor is byte-compatible with
 * the reference's: base64 of {"CreatedAt":"<RFC3339Nano UTC>","ID":"<id as shown>"}.
 */
export interface Position {
  createdAt: bigint;
  /** Lowercase hex. */
  id: string;
}

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

export function decodePosition(cursor: string): Position {
  const fields = decodeCursorObject(cursor);
  const raw = fields.get('createdat');
  // A missing (or null) time is Go's zero time, before every set.
  const ns = raw === undefined || raw === null ? INT64_MIN : typeof raw === 'string' ? parseRfc3339Nanos(raw) : undefined;
  if (ns === undefined) throw new CursorError('invalid cursor');
  const createdAt = ns < INT64_MIN ? INT64_MIN : ns > INT64_MAX ? INT64_MAX : ns;
  return { createdAt, id: cursorField.id(fields, 'ID') };
}

/** The cursor of a row, in SQL: its creation time (bigint ns) and its id as shown (text). */
export function cursorSql(createdAt: string, shownId: string): string {
  return sqlBase64(`'{"CreatedAt":"' || ${sqlRfc3339Nanos(createdAt)} || '","ID":"' || ${shownId} || '"}'`);
}
