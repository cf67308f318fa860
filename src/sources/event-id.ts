import { INT64_MAX } from '../contract/int64.js';
import { InputError, type InputPosition } from './input-error.js';

/** The height prefix of the last id seen and its value: consecutive events share it. */
let lastPrefix = '';
let lastHeight = 0n;

/**
 * The block height from an event id `<height>-<sequence>`, in either input format. A height past
 * 64 bits is refused here: the store keeps heights as bigint.
 */
export function heightOf(id: string, at: InputPosition): bigint {
  // Most events share the previous one's height: its prefix is compared, not cut out again.
  const n = lastPrefix.length;
  if (n > 0 && id.charCodeAt(n) === 45 && id.startsWith(lastPrefix) && isDigits(id, n + 1, id.length)) return lastHeight;
  const dash = id.indexOf('-');
  if (dash <= 0 || !isDigits(id, 0, dash) || !isDigits(id, dash + 1, id.length)) {
    throw new InputError(at, id, 'id', `expected "<block height>-<sequence>", got ${JSON.stringify(id)}`);
  }
  const height = BigInt(id.slice(0, dash));
  if (height > INT64_MAX) throw new InputError(at, id, 'id', `expected a 64-bit block height, got ${JSON.stringify(id)}`);
  lastPrefix = id.slice(0, dash);
  lastHeight = height;
  return height;
}

function isDigits(s: string, start: number, end: number): boolean {
  if (end <= start) return false;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}
