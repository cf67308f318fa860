import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CursorError, cursorField, decodeCursorObject, parseRfc3339Nanos } from '../../src/pagination/cursor.js';

const encodeCursor = (json: string) => Buffer.from(json).toString('base64');

test('RFC 3339 in, as Go parses time (see sql-json.test.ts for out)', () => {
  assert.equal(parseRfc3339Nanos('2024-03-01T00:09:00.123456Z'), 1709251740123456000n);
  assert.equal(parseRfc3339Nanos('2024-03-01T02:09:00.123456789+02:00'), 1709251740123456789n);
  assert.equal(parseRfc3339Nanos('0001-01-01T00:00:00Z'), -62135596800000000000n);
  for (const bad of ['2024-02-30T00:00:00Z', '2024-03-01 00:09:00Z', '2024-03-01T00:09:00', '5', '']) {
    assert.equal(parseRfc3339Nanos(bad), undefined, bad);
  }
});

test('cursor JSON: case-insensitive keys, zero values, type errors', () => {
  const json = '{"CreatedAt":"2024-03-01T00:09:00.123456Z","ID":"04d2"}';
  const cursor = encodeCursor(json);
  assert.equal(cursor, 'eyJDcmVhdGVkQXQiOiIyMDI0LTAzLTAxVDAwOjA5OjAwLjEyMzQ1NloiLCJJRCI6IjA0ZDIifQ==');
  const fields = decodeCursorObject(cursor);
  assert.equal(cursorField.id(fields, 'ID'), '04d2');
  assert.equal(cursorField.id(decodeCursorObject(encodeCursor('{"id":"ABCD","unknown":1}')), 'ID'), 'abcd');
  assert.equal(cursorField.id(decodeCursorObject(encodeCursor('{"asset_id":"fBTC"}')), 'asset_id'), '09');
  assert.equal(cursorField.id(decodeCursorObject(encodeCursor('{}')), 'ID'), '');
  assert.equal(cursorField.int64(decodeCursorObject(encodeCursor('{"epoch_id":12}')), 'epoch_id'), 12n);
  const invalid = (c: string, read: (f: Map<string, unknown>) => unknown) =>
    assert.throws(
      () => read(decodeCursorObject(c)),
      (e: Error) => e instanceof CursorError && e.message === 'invalid cursor',
    );
  invalid(encodeCursor('{"epoch_id":1.5}'), (f) => cursorField.int64(f, 'epoch_id'));
  invalid(encodeCursor('{"epoch_id":"1"}'), (f) => cursorField.int64(f, 'epoch_id'));
  // Go decodes neither spelling into an int64, though each names a whole number.
  invalid(encodeCursor('{"epoch_id":1.0}'), (f) => cursorField.int64(f, 'epoch_id'));
  invalid(encodeCursor('{"epoch_id":1e2}'), (f) => cursorField.int64(f, 'epoch_id'));
  // Elsewhere such literals are fine, inside strings untouched; a malformed one is still no JSON.
  assert.equal(cursorField.int64(decodeCursorObject(encodeCursor('{"other":1.0e2,"s":"1.5","epoch_id":7}')), 'epoch_id'), 7n);
  assert.equal(cursorField.string(decodeCursorObject(encodeCursor('{"s":"a 1.0 \\" 2e3"}')), 's'), 'a 1.0 " 2e3');
  invalid(encodeCursor('{"other":1.2.3,"epoch_id":7}'), () => 0);
  invalid(encodeCursor('{"ID":"zz"}'), (f) => cursorField.id(f, 'ID'));
  invalid(encodeCursor('[1,2]'), () => 0);
  invalid(encodeCursor('not json'), () => 0);
  // Integers past a double's 53 bits are read exactly (the reference decodes into a uint64),
  // strings of digits still refused; past 64 bits is no integer Go decodes.
  const int = (json: string) => cursorField.int64(decodeCursorObject(encodeCursor(json)), 'AtEpoch');
  assert.equal(int('{"AtEpoch":9007199254740993}'), 9007199254740993n);
  assert.equal(int('{"AtEpoch":9223372036854775806,"s":"x.y"}'), 9223372036854775806n);
  assert.equal(int('{"AtEpoch":18446744073709551615}'), 18446744073709551615n);
  assert.equal(int('{"AtEpoch":-9223372036854775808}'), -9223372036854775808n);
  invalid(encodeCursor('{"AtEpoch":18446744073709551616}'), (f) => cursorField.int64(f, 'AtEpoch'));
  invalid(encodeCursor('{"AtEpoch":"9007199254740993"}'), (f) => cursorField.int64(f, 'AtEpoch'));
  invalid(encodeCursor('{"AtEpoch":"\\u00009007199254740993"}'), (f) => cursorField.int64(f, 'AtEpoch'));
  invalid(encodeCursor('{"ID":12345678901234567}'), (f) => cursorField.string(f, 'ID'));
  assert.throws(() => decodeCursorObject(''), /cursor is empty/);
  assert.throws(() => decodeCursorObject('eyJ'), /failed to decode cursor: illegal base64 data at input byte 0/);
});
