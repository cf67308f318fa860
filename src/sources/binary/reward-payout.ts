import { MAX_EPOCH } from '../fields.js';
import { ACCOUNT_TYPE } from '../enums.js';
import type { ChainEvent } from '../events.js';
import { ascii, isAscii, LEN, VARINT } from '../../lib/wire.js';

type RewardPayout = Extract<ChainEvent, { kind: 'rewardPayout' }>;

/**
 * A RewardPayoutEvent read straight off the wire: nearly all the events ingestion applies are
 * these, and the generic path (an object per message, then Fields and regexes over its strings)
 * was most of the decoding time. Only the usual shape is read here: one-byte tags, lowercase hex
 * ids, plain digit strings, a known reward type. Anything else returns undefined and the generic
 * path decodes the event, so its result and its errors are the ones it always gave.
 */
export function decodeRewardPayout(buf: Uint8Array, start: number, end: number): RewardPayout | undefined {
  // Where each field's bytes are (the last occurrence wins, as in the generic path); -1: absent.
  let party = -1;
  let partyEnd = 0;
  let epoch = -1;
  let epochEnd = 0;
  let asset = -1;
  let assetEnd = 0;
  let amount = -1;
  let amountEnd = 0;
  let rewardType = -1;
  let rewardTypeEnd = 0;
  let quantum = -1;
  let quantumEnd = 0;
  let game = -1;
  let gameEnd = 0;
  let pos = start;
  while (pos < end) {
    const tag = buf[pos++]!;
    if (tag >= 0x80 || tag < 8) return undefined;
    const field = tag >>> 3;
    const wireType = tag & 7;
    if (wireType === VARINT) {
      // Only the timestamp (6) and unknown fields may be varints; the value is not used.
      if (field !== 6 && field <= 11 && field !== 8) return undefined;
      for (let n = 0; ; n++) {
        if (pos >= end || n === 10) return undefined;
        if (buf[pos++]! < 0x80) break;
      }
      continue;
    }
    if (wireType !== LEN || pos >= end) return undefined;
    let length = buf[pos++]!;
    if (length >= 0x80) {
      if (pos >= end || buf[pos]! >= 0x80) return undefined;
      length = (length & 0x7f) | (buf[pos++]! << 7);
    }
    const from = pos;
    pos += length;
    if (pos > end) return undefined;
    switch (field) {
      case 1:
        party = from;
        partyEnd = pos;
        break;
      case 2:
        epoch = from;
        epochEnd = pos;
        break;
      case 3:
        asset = from;
        assetEnd = pos;
        break;
      case 4:
        amount = from;
        amountEnd = pos;
        break;
      case 7:
        rewardType = from;
        rewardTypeEnd = pos;
        break;
      case 10:
        quantum = from;
        quantumEnd = pos;
        break;
      case 11:
        game = from;
        gameEnd = pos;
        break;
      case 5:
      case 9:
        // Strings not used, but the generic path checks their UTF-8.
        if (!isAscii(buf, from, pos)) return undefined;
        break;
      case 6:
        return undefined;
      default:
        break;
    }
  }
  if (party < 0 || asset < 0 || rewardType < 0) return undefined;
  if (!isLowerHexId(buf, party, partyEnd) || !isLowerHexId(buf, asset, assetEnd)) return undefined;
  if (game >= 0 && !isLowerHexId(buf, game, gameEnd)) return undefined;
  const type = isAscii(buf, rewardType, rewardTypeEnd) ? ascii(buf, rewardType, rewardTypeEnd) : '';
  if (!Object.hasOwn(ACCOUNT_TYPE, type)) return undefined;
  const amountValue = amount < 0 ? 0n : digits(buf, amount, amountEnd);
  const epochValue = epoch < 0 ? 0n : digits(buf, epoch, epochEnd);
  const quantumValue = quantum < 0 || quantum === quantumEnd ? 0n : rounded(buf, quantum, quantumEnd);
  // An epoch past MAX_EPOCH is the general path's to refuse, by name.
  if (amountValue === undefined || epochValue === undefined || epochValue > MAX_EPOCH || quantumValue === undefined) return undefined;
  return {
    kind: 'rewardPayout',
    party: ascii(buf, party, partyEnd),
    epoch: epochValue,
    asset: ascii(buf, asset, assetEnd),
    amount: amountValue,
    rewardType: type,
    quantumAmount: quantumValue,
    gameId: game < 0 || game === gameEnd ? null : ascii(buf, game, gameEnd),
  };
}

/** 1 for the bytes of lowercase hex digits. */
const LOWER_HEX = new Uint8Array(256);
for (const c of '0123456789abcdef') LOWER_HEX[c.charCodeAt(0)] = 1;

/** Even-length lowercase hex: what parseId returns as it is. */
function isLowerHexId(buf: Uint8Array, start: number, end: number): boolean {
  if ((end - start) % 2 !== 0) return false;
  for (let i = start; i < end; i++) if (LOWER_HEX[buf[i]!] === 0) return false;
  return true;
}

/** A non-empty string of decimal digits as a bigint; undefined for anything else. */
function digits(buf: Uint8Array, start: number, end: number): bigint | undefined {
  if (end === start) return undefined;
  let n = 0;
  for (let i = start; i < end; i++) {
    const d = buf[i]! - 0x30;
    if (d < 0 || d > 9) return undefined;
    n = n * 10 + d;
  }
  // Up to 15 digits are exact in a double: no string made.
  return end - start <= 15 ? BigInt(n) : BigInt(ascii(buf, start, end));
}

/** `digits[.digits]` rounded half away from zero (roundHalfAwayFromZero of a non-negative decimal). */
function rounded(buf: Uint8Array, start: number, end: number): bigint | undefined {
  let point = start;
  while (point < end && buf[point] !== 0x2e) point++;
  const whole = digits(buf, start, point);
  if (whole === undefined || point === end) return whole;
  if (point + 1 === end) return undefined;
  for (let i = point + 1; i < end; i++) if (buf[i]! < 0x30 || buf[i]! > 0x39) return undefined;
  return buf[point + 1]! >= 0x35 ? whole + 1n : whole;
}
