import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseInteger, roundHalfAwayFromZero, withoutTrailingZeros } from '../../src/contract/decimal.js';
import { parseId } from '../../src/contract/ids.js';
import { goJson } from '../../src/contract/json.js';
import { parseJsonLine } from '../../src/sources/ndjson/json-line.js';
import { normalisedDecimal } from '../../src/graphql/roots.js';

test('quantum amounts round half away from zero, exactly', () => {
  const cases: [string, bigint | undefined][] = [
    ['2.5', 3n],
    ['1.4999999', 1n],
    ['0.5', 1n],
    ['10.5', 11n],
    ['-2.5', -3n],
    ['-0.4', 0n],
    ['7', 7n],
    ['.5', 1n],
    ['123456789012345678901234567890.5', 123456789012345678901234567891n],
    ['1.5e2', 150n],
    ['25e-1', 3n],
    ['4.9E-1', 0n],
    ['', undefined],
    ['abc', undefined],
    ['1.2.3', undefined],
    ['1e', undefined],
  ];
  for (const [text, expected] of cases) assert.equal(roundHalfAwayFromZero(text), expected, text);
});

// A factor is chain data: a run of zeros that does not end the text took /0+$/ time quadratic in
// its length (40,000 zeros: 5 s of the event loop). 200,000 of them would take minutes so.
test('trailing zeros cut in one pass, whatever runs of zeros a decimal from the chain holds', { timeout: 60_000 }, () => {
  assert.equal(withoutTrailingZeros('0100'), '01');
  assert.equal(withoutTrailingZeros('000'), '');
  assert.equal(withoutTrailingZeros(''), '');
  assert.equal(withoutTrailingZeros('105'), '105');
  assert.equal(normalisedDecimal('0.0100'), '0.01');
  assert.equal(normalisedDecimal('007.000'), '7');
  assert.equal(normalisedDecimal('-0.000'), '0');
  const zeros = '0'.repeat(200_000);
  assert.ok(normalisedDecimal(`0.${zeros}1`) === `0.${zeros}1`);
  assert.ok(normalisedDecimal(`1.${zeros}1${zeros}`) === `1.${zeros}1`);
});

test('64-bit integers as strings or numbers', () => {
  assert.equal(parseInteger('18446744073709551616'), 18446744073709551616n);
  assert.equal(parseInteger(42), 42n);
  assert.equal(parseInteger(1.5), undefined);
  assert.equal(parseInteger('1e3'), undefined);
  assert.equal(parseInteger(true), undefined);
});

test('long JSON integers keep every digit; strings are left alone', () => {
  assert.deepEqual(
    parseJsonLine('{"a":1709250000250000789,"b":[12345678901234567890,-12345678901234567],"c":"x:12345678901234567890","d":1.5}'),
    {
      a: '1709250000250000789',
      b: ['12345678901234567890', '-12345678901234567'],
      c: 'x:12345678901234567890',
      d: 1.5,
    },
  );
});

test('ids: hex either case, well-known names, lowercase and names on output', () => {
  assert.equal(parseId('ABcd'), 'abcd');
  assert.equal(parseId(''), '');
  assert.equal(parseId('fBTC'), '09');
  assert.equal(parseId('VOTE'), '00');
  assert.equal(parseId('vote'), undefined);
  assert.equal(parseId('abc'), undefined);
  assert.equal(parseId('0xab'), undefined);
});

test('Go-style JSON escaping', () => {
  assert.equal(goJson({ m: "<b>&'\u2028\u2029" }), '{"m":"\\u003cb\\u003e\\u0026\'\\u2028\\u2029"}');
  assert.equal(goJson({ a: [1, 'x'] }), '{"a":[1,"x"]}');
});
