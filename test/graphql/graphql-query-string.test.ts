import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getParams } from '../../src/graphql/query-string.js';

test("a GET's query string reads as URLSearchParams reads it", () => {
  const cases = [
    '',
    'query=%7B%20a%20%7D&variables=%7B%22x%22%3A1%7D',
    'query={+a+}&operationName=A+B',
    // `+` is a space, an escaped one a plus.
    'query=a%2Bb+c',
    // The first of a repeated name; a name without `=`; empty pairs; an escaped name.
    'query=first&query=second&&variables&%71uery=third',
    'operationName=&query==x=',
    // Escapes that are not escapes, and bytes that are not UTF-8: URLSearchParams' own reading.
    'query=100%&variables=%7B%7D',
    'query=%zz%41',
    'query=%FF%FEx&variables=%C3%A9',
    'query=%ED%A0%80',
    'query=é%C3%A9',
  ];
  for (const text of cases) {
    const expected = new URLSearchParams(text);
    const got = getParams(text);
    for (const name of ['query', 'variables', 'operationName', 'other'])
      assert.equal(got.get(name), expected.get(name), `${text}: ${name}`);
  }
});
