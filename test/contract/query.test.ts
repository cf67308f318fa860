import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/contract/errors.js';
import { PAGINATION_FIELDS } from '../../src/contract/pagination.js';
import { parseQuery, queryPairs, type FieldSpec } from '../../src/contract/query.js';

const FIELDS = {
  ...PAGINATION_FIELDS,
  ids: { keys: ['filter.assetIds', 'filter.asset_ids'], protoName: 'asset_ids', kind: 'string', repeated: true, description: 'ids' },
  epochs: { keys: ['aggregationEpochs', 'aggregation_epochs'], protoName: 'aggregation_epochs', kind: 'uint64', description: 'epochs' },
  party: { keys: ['partyId', 'party_id'], protoName: 'party_id', kind: 'string', description: 'party' },
} as const satisfies Record<string, FieldSpec>;

const parse = (q: string) => parseQuery(queryPairs(q), FIELDS);
const failure = (q: string) => {
  try {
    parse(q);
  } catch (err) {
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 400);
    assert.equal(err.code, 3);
    assert.deepEqual(err.details, []);
    return err.message;
  }
  assert.fail(`no error for ${q}`);
};

test('values, aliases, repeated keys and unknown keys', () => {
  const v = parse('pagination.first=5&pagination.newest_first=F&filter.assetIds=ab&filter.asset_ids=cd&filter.assetIds=ef&x=1&partyId=');
  assert.equal(v.first, 5);
  assert.equal(v.newestFirst, false);
  assert.deepEqual(v.ids, ['ab', 'cd', 'ef']);
  assert.equal(v.party, '', 'an empty string value counts as given');
  assert.equal(v.last, undefined);
  assert.deepEqual(parse('filter.assetIds=a%2Cb').ids, ['a,b'], 'a comma is not a separator');
  assert.equal(parse('pagination.after=a+b').after, 'a b', '+ is a space');
  assert.equal(parse('aggregationEpochs=9223372036854775807').epochs, 9223372036854775807n);
  for (const t of ['true', '1', 't', 'T', 'TRUE', 'True']) assert.equal(parse(`pagination.newestFirst=${t}`).newestFirst, true, t);
});

test('parse errors name the proto field, in the gateway words', () => {
  assert.equal(failure('pagination.first=abc'), 'parsing field "first": strconv.ParseInt: parsing "abc": invalid syntax');
  assert.equal(failure('pagination.first='), 'parsing field "first": strconv.ParseInt: parsing "": invalid syntax');
  assert.equal(failure('pagination.last=2147483648'), 'parsing field "last": strconv.ParseInt: parsing "2147483648": value out of range');
  assert.equal(failure('pagination.first=1&pagination.first=2'), 'too many values for field "first": 1, 2');
  assert.equal(failure('partyId=ab&party_id=cd'), 'field already set for oneof "_party_id"');
  assert.equal(failure('pagination.newestFirst=yes'), 'parsing field "newest_first": strconv.ParseBool: parsing "yes": invalid syntax');
  assert.equal(failure('aggregationEpochs=-1'), 'parsing field "aggregation_epochs": strconv.ParseUint: parsing "-1": invalid syntax');
  assert.equal(
    failure('aggregationEpochs=18446744073709551616'),
    'parsing field "aggregation_epochs": strconv.ParseUint: parsing "18446744073709551616": value out of range',
  );
  assert.equal(
    failure('aggregationEpochs=9223372036854775808'),
    'parsing field "aggregation_epochs": strconv.ParseInt: parsing "9223372036854775808": value out of range',
  );
  assert.equal(failure('partyId=%zz'), 'invalid URL escape "%zz"');
});

test('query pairs read as URLSearchParams reads them, decoded natively (bad escapes aside, which are errors)', () => {
  const cases = [
    '',
    'a=1&b=2&a=3',
    'x=a%2Bb+c&&y&%71=%7B%22k%22%3A1%7D',
    'n==x=&=v',
    // Bytes that are not UTF-8, and a lone surrogate: URLSearchParams' own reading.
    'a=%FF%FEx&b=%C3%A9',
    'a=%ED%A0%80',
    'a=é%C3%A9',
  ];
  for (const text of cases) assert.deepEqual(queryPairs(text), [...new URLSearchParams(text)], text);
  assert.throws(() => queryPairs('a=100%'), /invalid URL escape "%"/);
});
