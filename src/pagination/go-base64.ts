/**
 * Standard padded base64 decoding with the error positions of Go's encoding/base64
 * (StdEncoding.DecodeString), so a bad cursor is reported exactly as the reference does:
 * "illegal base64 data at input byte N". CR and LF are ignored, as Go ignores them.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VALUE = new Int16Array(256).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i;

export class Base64Error extends Error {
  constructor(readonly offset: number) {
    super(`illegal base64 data at input byte ${offset}`);
  }
}

const isNewline = (c: number | undefined) => c === 0x0a || c === 0x0d;

export function decodeGoBase64(text: string): Buffer {
  // Go works on the UTF-8 bytes; a non-ASCII byte is illegal where it stands.
  const src = Buffer.from(text, 'utf8');
  const out: number[] = [];
  let si = 0;
  while (si < src.length) {
    const quantum = [0, 0, 0, 0];
    let len = 4;
    let j = 0;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Buffer.from(out);
        throw new Base64Error(si - j);
      }
      const c = src[si++]!;
      const v = VALUE[c]!;
      if (v >= 0) {
        quantum[j] = v;
        continue;
      }
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== 0x3d) throw new Base64Error(si - 1);
      // Padding: only after two or three characters of a quantum.
      if (j < 2) throw new Base64Error(si - 1);
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) throw new Base64Error(src.length);
        if (src[si] !== 0x3d) throw new Base64Error(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      if (si < src.length) throw new Base64Error(si);
      len = j;
      break;
    }
    const v = (quantum[0]! << 18) | (quantum[1]! << 12) | (quantum[2]! << 6) | quantum[3]!;
    out.push((v >> 16) & 0xff);
    if (len >= 3) out.push((v >> 8) & 0xff);
    if (len === 4) out.push(v & 0xff);
  }
  return Buffer.from(out);
}
