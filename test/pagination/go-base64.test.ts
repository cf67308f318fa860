import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeGoBase64 } from '../../src/pagination/go-base64.js';

const offset = (text: string) => {
  try {
    decodeGoBase64(text);
  } catch (err) {
    return (err as Error).message;
  }
  return 'ok';
};

test('decodes standard padded base64 like Buffer does', () => {
  for (const s of ['', 'a', 'ab', 'abc', 'abcd', '{"ID":"c1"}', 'ÿþ\u0000x']) {
    const b64 = Buffer.from(s, 'latin1').toString('base64');
    assert.deepEqual(decodeGoBase64(b64), Buffer.from(s, 'latin1'), b64);
  }
  assert.equal(decodeGoBase64('eyJh\r\nIjoxfQ==').toString(), '{"a":1}', 'CR and LF are ignored');
});

test('reports the byte offsets Go reports', () => {
  assert.equal(offset('eyJ'), 'illegal base64 data at input byte 0'); // short final quantum
  assert.equal(offset('eyJh*IjoxfQ=='), 'illegal base64 data at input byte 4'); // illegal character
  assert.equal(offset('ab c'), 'illegal base64 data at input byte 2'); // "+" decoded to a space
  assert.equal(offset('YQ==YQ=='), 'illegal base64 data at input byte 4'); // data after padding
  assert.equal(offset('YQ='), 'illegal base64 data at input byte 3'); // not enough padding
  assert.equal(offset('Y==='), 'illegal base64 data at input byte 1'); // padding too early
  assert.equal(offset('YQ=x'), 'illegal base64 data at input byte 2'); // bad second pad
  assert.equal(offset('YWJj-'), 'illegal base64 data at input byte 4'); // URL alphabet is not standard
  assert.equal(offset('YW\u00e9j'), 'illegal base64 data at input byte 2'); // non-ASCII
  assert.equal(offset('YWI='), 'ok');
});
