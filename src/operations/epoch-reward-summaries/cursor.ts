import { cursorField, CursorError, decodeCursorObject } from '../../pagination/cursor.js';
import { sqlBase64 } from '../../pagination/sql-json.js';

/**
 * The position of a summary in the sort key (epoch, assetId, marketId, rewardType); ids as
 * lowercase hex. The cursor is byte-compatible with the reference's EpochRewardSummaryCursor:
 * {"epoch_id":<number>,"asset_id":"…","market_id":"…","reward_type":"…","amount":"…"}.
 */
export interface Position {
  epoch: bigint;
  assetId: string;
  marketId: string;
  rewardType: string;
}

const INT64_MAX = (1n << 63n) - 1n;
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export function decodePosition(cursor: string): Position {
  const fields = decodeCursorObject(cursor);
  // The reference's epoch_id is a uint64: a negative epoch is not a position.
  const epoch = cursorField.int64(fields, 'epoch_id');
  if (epoch < 0n) throw new CursorError('invalid cursor');
  // The amount is not part of the position, but a cursor whose amount is not a decimal is not
  // one we issued.
  const amount = fields.get('amount');
  if (amount !== undefined && amount !== null && typeof amount !== 'number' && !(typeof amount === 'string' && DECIMAL.test(amount))) {
    throw new CursorError('invalid cursor');
  }
  return {
    // A JSON number that reaches 2^63 (e.g. 9223372036854775807, read as a double) is the
    // highest epoch the bigint column can hold.
    epoch: epoch > INT64_MAX ? INT64_MAX : epoch,
    assetId: cursorField.id(fields, 'asset_id'),
    marketId: cursorField.id(fields, 'market_id'),
    rewardType: cursorField.string(fields, 'reward_type'),
  };
}

/**
 * The cursor of a summary row, in SQL: epoch and amount as decimal text, ids as shown (lowercase
 * hex or a well-known name), the reward type as a JSON string literal.
 */
export function cursorSql(epoch: string, shownAsset: string, shownMarket: string, rewardTypeJson: string, amount: string): string {
  return sqlBase64(
    `'{"epoch_id":' || ${epoch} || ',"asset_id":"' || ${shownAsset} || '","market_id":"' || ${shownMarket} || '","reward_type":' || ${rewardTypeJson} || ',"amount":"' || ${amount} || '"}'`,
  );
}
