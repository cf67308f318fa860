import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InputError } from '../../src/sources/input-error.js';
import { NdjsonDecoder } from '../../src/sources/ndjson/decoder.js';
import { LineSplitter } from '../../src/sources/ndjson/lines.js';

const MiB = 2 ** 20;

/** Every line of `chunks` with its number, then the line end() gives, if any. */
function split(chunks: (string | Buffer)[], finished = true): string[] {
  const s = new LineSplitter();
  const out: string[] = [];
  for (const c of chunks) for (const line of s.push(typeof c === 'string' ? Buffer.from(c) : c)) out.push(`${s.line}:${line}`);
  const last = finished ? s.end() : undefined;
  if (last !== undefined) out.push(`${s.line}:${last}`);
  return out;
}

test('lines end at \\n, a \\r before it is dropped, blank lines are numbered too', () => {
  assert.deepEqual(split(['a\nb\r\n\n\r\nc\n']), ['1:a', '2:b', '3:', '4:', '5:c']);
  // A lone \r inside a line stays.
  assert.deepEqual(split(['a\rb\n']), ['1:a\rb']);
});

test('lines cut anywhere by the chunks come out whole: in a \\r\\n, in a UTF-8 character, over several chunks', () => {
  assert.deepEqual(split(['ab\r', '\ncd\n']), ['1:ab', '2:cd']);
  const euro = Buffer.from('x€y\n'); // € is 3 bytes
  assert.deepEqual(split([euro.subarray(0, 2), euro.subarray(2, 3), euro.subarray(3)]), ['1:x€y']);
  assert.deepEqual(split(['{"a', '', ':', '1}', '\n{"b":2}\n{"c']), ['1:{"a:1}', '2:{"b":2}', '3:{"c']);
});

test('the last line without its newline: a line at the end of a finished input, held back otherwise', () => {
  assert.deepEqual(split(['a\nb']), ['1:a', '2:b']);
  assert.deepEqual(split(['a\nb\r']), ['1:a', '2:b']);
  assert.deepEqual(split(['a\n']), ['1:a']);
  assert.deepEqual(split(['a\nb'], false), ['1:a']);
  assert.deepEqual(split([]), []);
});

test('a line over 128 MiB is an InputError naming it, thrown after the lines before it', () => {
  for (const [name, chunks] of [
    ['cut, no newline yet', [Buffer.from('a\nb\n'), Buffer.alloc(128 * MiB + 1, 'x')]],
    [
      'cut, its newline beyond the limit',
      [Buffer.from('a\nb\n'), Buffer.alloc(100 * MiB, 'x'), Buffer.concat([Buffer.alloc(28 * MiB + 1, 'x'), Buffer.from('\n')])],
    ],
  ] as [string, Buffer[]][]) {
    const s = new LineSplitter();
    const seen: string[] = [];
    assert.throws(
      () => {
        for (const c of chunks) for (const line of s.push(c)) seen.push(line);
      },
      (err: unknown) => err instanceof InputError && err.message === 'line 3: no newline within 128 MiB: not an event line',
      name,
    );
    assert.deepEqual(seen, ['a', 'b'], name);
  }
  // Exactly at the limit is still a line.
  const s = new LineSplitter();
  const lines = [...s.push(Buffer.alloc(128 * MiB, 'x')), ...s.push(Buffer.from('\n'))];
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.length, 128 * MiB);
});

test('input errors say where: a line of a text input, a byte offset of a binary one', () => {
  assert.equal(
    new InputError({ line: 7 }, '12-3', 'transfer.gameId', 'not a hex id: "zz"').message,
    'line 7, event 12-3, field transfer.gameId: not a hex id: "zz"',
  );
  assert.equal(new InputError({ offset: 4096 }, '12-3', undefined, 'truncated event').message, 'byte 4096, event 12-3: truncated event');
  assert.equal(new InputError({ line: 2 }, undefined, undefined, 'expected a JSON object').message, 'line 2: expected a JSON object');
});

test('the decoder numbers events by line (batch lines share one) and hands out the events before a bad line first', () => {
  const ev = (id: string) => JSON.stringify({ id, type: 'BUS_EVENT_TYPE_END_BLOCK', endBlock: { height: id.split('-')[0] } });
  const d = new NdjsonDecoder();
  const got: string[] = [];
  const take = (events: Iterable<{ id: string; at: unknown }>) => {
    for (const e of events) got.push(`${e.id}@${JSON.stringify(e.at)}`);
  };
  take(
    d.push(Buffer.from(`${ev('1-0')}\r\n\n${JSON.stringify({ events: [JSON.parse(ev('2-0')), JSON.parse(ev('2-1'))] })}\n${ev('3-0')}`)),
  );
  assert.deepEqual(got, ['1-0@{"line":1}', '2-0@{"line":3}', '2-1@{"line":3}']);
  assert.throws(() => take(d.push(Buffer.from(`\n${ev('4-0')}\nnot json\n${ev('5-0')}\n`))), /^InputError: line 6: not JSON \(/);
  assert.deepEqual(got.slice(3), ['3-0@{"line":4}', '4-0@{"line":5}']);

  const finished = new NdjsonDecoder();
  got.length = 0;
  take(finished.push(Buffer.from(`${ev('1-0')}\n${ev('1-1')}`)));
  take(finished.end());
  assert.deepEqual(got, ['1-0@{"line":1}', '1-1@{"line":2}']);
});

test('asset events: id (well-known names too), details, status by name or number; bad values named', () => {
  const decode = (asset: unknown) =>
    [...new NdjsonDecoder().push(Buffer.from(`${JSON.stringify({ id: '1-4', type: 'BUS_EVENT_TYPE_ASSET', asset })}\n`))][0]!.body;
  // As the real chain writes them (smoketest fixture, block 1).
  assert.deepEqual(
    decode({
      id: 'VOTE',
      details: { name: 'VOTE', symbol: 'VOTE', decimals: '5', quantum: '1', builtinAsset: { maxFaucetAmountMint: '10000' } },
      status: 'STATUS_ENABLED',
    }),
    {
      kind: 'asset',
      id: '00',
      name: 'VOTE',
      symbol: 'VOTE',
      decimals: 5n,
      quantum: '1',
      status: 'STATUS_ENABLED',
    },
  );
  assert.deepEqual(decode({ id: 'AB12', details: { name: 'Vega', symbol: 'VEGA', decimals: 18, quantum: '0.5' }, status: 1 }), {
    kind: 'asset',
    id: 'ab12',
    name: 'Vega',
    symbol: 'VEGA',
    decimals: 18n,
    quantum: '0.5',
    status: 'STATUS_PROPOSED',
  });
  // proto3 zero values are absent.
  assert.deepEqual(decode({ id: 'ab' }), {
    kind: 'asset',
    id: 'ab',
    name: '',
    symbol: '',
    decimals: 0n,
    quantum: '0',
    status: 'STATUS_UNSPECIFIED',
  });
  const bad = (asset: unknown, message: string) =>
    assert.throws(
      () => decode(asset),
      (err: unknown) => err instanceof InputError && err.message === message,
    );
  bad({ id: 'ab', details: { quantum: '1e18' } }, 'line 1, event 1-4, field asset.details.quantum: not a decimal number: "1e18"');
  bad({ id: 'ab', details: { decimals: '-1' } }, 'line 1, event 1-4, field asset.details.decimals: expected a uint64, got -1');
  bad({ id: 'zz' }, 'line 1, event 1-4, field asset.id: not a hex id: "zz"');
  bad({ id: 'ab', status: 'ENABLED' }, 'line 1, event 1-4, field asset.status: unknown enum value "ENABLED"');
});
