/**
 * Array parameters as text (src/db/param-text.ts), the one serializer of both stores: the
 * literal's exact text, and every element arriving as sent through each store, in a statement
 * and in a transaction, whether the array takes the joined path or the escaping one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { paramText, withArraysAsText } from '../../src/db/param-text.js';
import type { Store } from '../../src/db/store.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';

test('parameters in PostgreSQL text form, arrays quoted element by element', () => {
  assert.equal(paramText(null), null);
  assert.equal(paramText(undefined), null);
  assert.equal(paramText(true), 't');
  assert.equal(paramText(false), 'f');
  assert.equal(paramText(-12), '-12');
  assert.equal(paramText([]), '{}');
  // Strings without quotes or backslashes: joined whole.
  assert.equal(paramText(['ab01', '', '1.5', 'b,c', '{x}', ' NULL ']), '{"ab01","","1.5","b,c","{x}"," NULL "}');
  // Any other array: element by element.
  assert.equal(
    paramText(['a', 'b,c', 'say "hi"', 'back\\slash', null, '', 'NULL']),
    '{"a","b,c","say \\"hi\\"","back\\\\slash",NULL,"","NULL"}',
  );
  assert.equal(paramText(['a","b']), '{"a\\",\\"b"}');
  assert.equal(paramText([1, 2, true]), '{"1","2","t"}');
});

test('withArraysAsText replaces the arrays only, and returns the same list when it holds none', () => {
  const plain = ['x', 1, null];
  assert.equal(withArraysAsText(plain), plain);
  assert.deepEqual(withArraysAsText(['x', ['a', 'b'], 2, []]), ['x', '{"a","b"}', 2, '{}']);
});

/** Elements that a literal must carry exactly: quotes, backslashes, separators, braces, blanks, control characters, NULL's spelling, other scripts. */
const HOSTILE = [
  '',
  'NULL',
  'null',
  ' ',
  'a,b',
  '{',
  '}',
  '"',
  '\\',
  '\\"',
  'say "hi"',
  'tab\there',
  'line\nbreak',
  '\r',
  'é ✓ 🚀',
  '\u0001',
];
const PLAIN = ['00ff', '', '123.456', '-1', 'a b', 'x,y', '{z}'];

for (const kind of STORE_KINDS) {
  describe(`array parameters on ${kind}`, () => {
    let ts: TestStore;
    let store: Store;
    before(async () => {
      ts = await createTestStore(kind);
      store = await ts.open();
    });
    after(async () => {
      await store.close();
      await ts.drop();
    });

    const roundTrip = async (q: Store['query'], values: (string | null)[]) =>
      (await q<{ v: string | null }>('SELECT v FROM unnest($1::text[]) WITH ORDINALITY AS u(v, i) ORDER BY i', [values])).map((r) => r.v);

    test('every element arrives as sent, in a statement and in a transaction', async () => {
      for (const values of [HOSTILE, PLAIN, [...HOSTILE, null], []]) {
        assert.deepEqual(await roundTrip(store.query.bind(store), values), values);
        assert.deepEqual(await store.transaction((tx) => roundTrip(tx.query.bind(tx), values)), values);
      }
    });

    test('numeric, bigint and boolean arrays from strings, numbers and booleans', async () => {
      const [row] = await store.query<{ n: string; b: string; t: string }>(
        'SELECT $1::numeric[]::text AS n, $2::int8[]::text AS b, $3::bool[]::text AS t',
        [
          ['1.50', '-0.000001', '123456789012345678901234567890'],
          [9223372036854775807n.toString(), 0, -1],
          [true, false, null],
        ],
      );
      assert.deepEqual(row, { n: '{1.50,-0.000001,123456789012345678901234567890}', b: '{9223372036854775807,0,-1}', t: '{t,f,NULL}' });
    });
  });
}
