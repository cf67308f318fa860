/**
 * A team's position in the sort key (createdAt, id): the same cursor as a referral set's,
 * base64 of {"CreatedAt":"<RFC3339Nano UTC>","ID":"<id>"}.
 */
export { cursorSql, decodePosition, type Position } from '../referral-sets/cursor.js';
