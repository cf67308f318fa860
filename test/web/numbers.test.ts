// The explorer's exact arithmetic on decimal strings (web/numbers.ts) and its time formats.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyDecimals, compareDecimals, groupDigits, sumDecimals } from '../../web/numbers.js';
import { ago, formatUtc } from '../../web/time.js';

test('applyDecimals moves the point exactly, past a double’s 53 bits', () => {
  assert.equal(applyDecimals('1234500', 6), '1.2345');
  assert.equal(applyDecimals('123456789012345678901234567890', 18), '123456789012.34567890123456789');
  assert.equal(applyDecimals('1', 18), '0.000000000000000001');
  assert.equal(applyDecimals('1000000', 6), '1');
  assert.equal(applyDecimals('0', 18), '0');
  assert.equal(applyDecimals('42', 0), '42');
  assert.equal(applyDecimals('-1500', 3), '-1.5');
});

test('sumDecimals adds integers and fractions exactly', () => {
  assert.equal(sumDecimals([]), '0');
  assert.equal(sumDecimals(['0.1', '0.2']), '0.3');
  assert.equal(sumDecimals(['9007199254740993', '1']), '9007199254740994');
  assert.equal(sumDecimals(['1.25', '2', '-0.25']), '3');
  assert.equal(sumDecimals(['123456789012345678901234567890.5', '0.5']), '123456789012345678901234567891');
});

test('compareDecimals orders by value, not by text', () => {
  assert.equal(compareDecimals('10', '9'), 1);
  assert.equal(compareDecimals('9.99', '10'), -1);
  assert.equal(compareDecimals('1.50', '1.5'), 0);
  assert.equal(compareDecimals('9007199254740993', '9007199254740992'), 1);
  assert.equal(compareDecimals('-2', '1'), -1);
  assert.throws(() => compareDecimals('1e5', '1'), /not a decimal number/);
});

test('groupDigits groups the integer part only', () => {
  assert.equal(groupDigits('1234567.891234'), '1,234,567.891234');
  assert.equal(groupDigits('999'), '999');
  assert.equal(groupDigits('-1000'), '-1,000');
  assert.equal(groupDigits('0'), '0');
  assert.equal(groupDigits('12.5'), '12.5');
  assert.equal(groupDigits('-123456'), '-123,456');
  assert.equal(groupDigits('1234567890'), '1,234,567,890');
});

// Amounts are chain data, and PostgreSQL's numeric holds 131,072 digits: the usual grouping regex
// and /0+$/ are quadratic in them (minutes of a browser tab at this length).
test('long amounts grouped and scaled in one pass', { timeout: 60_000 }, () => {
  const digits = '9'.repeat(200_000);
  const groups = groupDigits(digits).split(',');
  assert.equal(groups.length, 66_667);
  assert.equal(groups[0], '99');
  assert.ok(groups.slice(1).every((g) => g === '999'));
  const zeros = '0'.repeat(100_000);
  assert.ok(applyDecimals(`1${zeros}2${zeros}`, 200_002) === `0.1${zeros}2`);
  assert.ok(applyDecimals(`1${zeros}2${zeros}`, 200_001) === `1.${zeros}2`);
});

test('chain times in UTC and how long ago', () => {
  assert.equal(formatUtc('1735689600000000000'), '2025-01-01 00:00:00 UTC');
  assert.equal(formatUtc('1735689674749152245'), '2025-01-01 00:01:14 UTC');
  const now = Date.UTC(2025, 0, 3, 0, 0, 0);
  assert.equal(ago('1735689600000000000', now), '2 days ago');
  assert.equal(ago('1735689600000000000', Date.UTC(2025, 0, 1, 0, 0, 1)), '1 second ago');
  assert.equal(ago('1735689600000000000', Date.UTC(2025, 0, 1)), 'just now');
});
