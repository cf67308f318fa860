import { cursorField, decodeCursorObject } from '../../pagination/cursor.js';
import { sqlBase64 } from '../../pagination/sql-json.js';

/** A member's position in the sort key partyId; the cursor is the reference's {"ID":"<party as shown>"}. */
export interface Position {
  /** Lowercase hex. */
  party: string;
}

export function decodePosition(cursor: string): Position {
  return { party: cursorField.id(decodeCursorObject(cursor), 'ID') };
}

/** The cursor of a row, in SQL, from the party id as shown (text). */
export function cursorSql(shownParty: string): string {
  return sqlBase64(`'{"ID":"' || ${shownParty} || '"}'`);
}
