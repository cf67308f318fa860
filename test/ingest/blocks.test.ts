/**
 * How decoded events become blocks (src/ingest/blocks.ts), and the bounds on values from the
 * chain, in process: what the CLI's bad-input cases (ingest.test.ts) show end to end.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Block, BlockAssembler } from '../../src/ingest/blocks.js';
import { decodeLine } from '../../src/sources/ndjson/decode-line.js';
import { blockLines, hex, payout, setCreated } from '../helpers/events.js';

/** The blocks the lines make, as height: set ids; or the first error's message. */
function assemble(lines: string[], maxBlockEvents?: number): string[] {
  const assembler = new BlockAssembler(maxBlockEvents);
  const blocks: Block[] = [];
  for (const [i, line] of lines.entries()) for (const e of decodeLine(line, i + 1)) blocks.push(...assembler.push(e));
  const last = assembler.end().block;
  if (last) blocks.push(last);
  return blocks.map(
    (b) => `${b.height}: ${b.events.map((e) => (e.kind === 'referralSetCreated' ? e.setId.slice(0, 2) : e.kind)).join(' ')}`,
  );
}

const block = (height: number, ...sets: string[]) =>
  blockLines(
    height,
    sets.map((s) => setCreated(hex(s), hex('aa'))),
  );
const begin = (height: number) =>
  JSON.stringify({
    id: `${height}-0`,
    type: 'BUS_EVENT_TYPE_BEGIN_BLOCK',
    beginBlock: { height: String(height), timestamp: '1', hash: 'h' },
  });
const event = (id: string, set: string) => JSON.stringify({ id, ...setCreated(hex(set), hex('aa')) });

test('a block cut short by a beginBlock of its own or an earlier height is dropped; the replay is the block', () => {
  const b2 = block(2, '02', '03');
  assert.deepEqual(assemble([...block(1, '01'), ...b2.slice(0, 2), ...b2]), ['1: 01', '2: 02 03']);
  assert.deepEqual(assemble([...block(1, '01'), ...b2.slice(0, 2), ...block(1, '01'), ...b2]), ['1: 01', '1: 01', '2: 02 03']);
});

test('a block never taken in part: a later beginBlock while one is open, events outside the markers', () => {
  assert.throws(() => assemble([...block(1, '01').slice(0, 2), begin(2)]), {
    message: 'line 3, event 2-0, field beginBlock.height: beginBlock 2 while block 1 is open (no endBlock 1)',
  });
  // Once the input has markers, an event outside them; before any, the beginBlock of its height.
  assert.throws(() => assemble([...block(1, '01'), event('2-99', '09'), ...block(2, '02')]), {
    message: 'line 4, event 2-99, field id: event of height 2 outside a block: the input has block markers',
  });
  assert.throws(() => assemble([event('2-99', '09'), ...block(2, '02')]), {
    message: 'line 2, event 2-0, field beginBlock.height: beginBlock 2 after events of block 2 outside its markers',
  });
  assert.throws(
    () => assemble([event('2-1', '09'), JSON.stringify({ id: '2-2', type: 'BUS_EVENT_TYPE_END_BLOCK', endBlock: { height: '2' } })]),
    {
      message: 'line 2, event 2-2, field endBlock.height: endBlock 2 does not close the open block: no beginBlock opened it',
    },
  );
  // Without markers at all, a height's events are its block.
  assert.deepEqual(assemble([event('1-1', '01'), event('1-2', '02'), event('2-1', '03')]), ['1: 01 02', '2: 03']);
});

test('values from the chain: an empty id is missing, numbers have at most 100 digits, long values shown cut', () => {
  const bad: [Record<string, unknown>, string][] = [
    [setCreated('', hex('02')), 'field referralSetCreated.setId: missing'],
    [
      payout('1', hex('ad'), '9'.repeat(200_000)),
      `field rewardPayout.amount: expected an integer of at most 100 digits, got "${'9'.repeat(79)}… (200002 characters)`,
    ],
    [
      payout('1', hex('ad'), '1', undefined, { quantumAmount: `1.${'5'.repeat(100)}` }),
      `field rewardPayout.quantumAmount: expected a number of at most 100 digits, got "1.${'5'.repeat(77)}… (104 characters)`,
    ],
  ];
  for (const [payload, message] of bad)
    assert.throws(() => decodeLine(JSON.stringify({ id: '1-1', ...payload }), 2), { message: `line 2, event 1-1, ${message}` });
  const [ok] = decodeLine(JSON.stringify({ id: '1-1', ...payout('1', hex('ad'), '9'.repeat(100)) }), 2);
  assert.equal(ok!.body.kind === 'rewardPayout' && ok!.body.amount, BigInt('9'.repeat(100)));
});

test("a block's chain is the chain its events name; a block naming two is refused; one naming none is the previous block's", () => {
  const chains = (lines: string[]) => {
    const assembler = new BlockAssembler();
    const out: string[] = [];
    for (const [i, line] of lines.entries())
      for (const e of decodeLine(line, i + 1)) for (const b of assembler.push(e)) out.push(`${b.height} ${b.chainId}`);
    return out;
  };
  const on = (chainId: string | undefined, lines: string[]) =>
    lines.map((l) => JSON.stringify({ ...(JSON.parse(l) as object), ...(chainId === undefined ? {} : { chainId }) }));
  assert.deepEqual(chains([...on('a', block(1, '01')), ...on(undefined, block(2, '02')), ...on('a', block(3, '03'))]), [
    '1 a',
    '2 a',
    '3 a',
  ]);
  assert.deepEqual(chains(on(undefined, block(1, '01'))), ['1 ']);
  // Markers naming no chain take the chain of the events inside.
  const b = block(1, '01');
  assert.deepEqual(chains([b[0]!, ...on('a', [b[1]!]), b[2]!]), ['1 a']);
  // Two chains inside one block, the endBlock's included.
  assert.throws(() => chains([...on('a', b.slice(0, 2)), ...on('b', [b[2]!])]), {
    message: 'line 3, event 1-2, field chainId: chain "b" inside block 1 of chain "a"',
  });
  assert.throws(() => chains([...on('a', b.slice(0, 1)), ...on('b', [b[1]!])]), {
    message: 'line 2, event 1-1, field chainId: chain "b" inside block 1 of chain "a"',
  });
  assert.throws(() => chains(on(undefined, [JSON.stringify({ ...(JSON.parse(b[0]!) as object), chainId: 7 })])), {
    message: 'line 1, event 1-0, field chainId: expected a string, got number',
  });
});

test('a block holds at most maxEvents events of ours: one more is refused by name; skipped events do not count', () => {
  const skipped = (id: string) => JSON.stringify({ id, type: 'BUS_EVENT_TYPE_MARKET_DATA', marketData: {} });
  // Markers and skipped events around two events of ours: within a bound of 2.
  const b1 = block(1, '01', '02');
  assert.deepEqual(assemble([b1[0]!, skipped('1-7'), b1[1]!, skipped('1-8'), ...b1.slice(2)], 2), ['1: 01 02']);
  assert.throws(() => assemble([...b1, ...block(2, '03', '04', '05')], 2), {
    message: 'line 8, event 2-3: block 2 holds more than 2 events of ours (--max-block-events): it is not applied',
  });
  // Without markers, the same.
  assert.throws(() => assemble([event('3-1', '01'), event('3-2', '02'), event('3-3', '03')], 2), {
    message: 'line 3, event 3-3: block 3 holds more than 2 events of ours (--max-block-events): it is not applied',
  });
});
