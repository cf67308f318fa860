import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BinaryDecoder } from '../../src/sources/binary/decoder.js';
import { encodeBusEvent, eventRecord } from '../../src/sources/binary/encode-event.js';
import { CHUNK_BYTES, prescannedEvents } from '../../src/sources/binary/prescan.js';
import type { DecodedEvent } from '../../src/sources/events.js';
import { InputError, inFile } from '../../src/sources/input-error.js';

const dir = mkdtempSync(join(tmpdir(), 'epochview-prescan-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const hex = (n: number) => n.toString(16).padStart(64, '0');
const OTHERS = new Map([['marketData', { field: 111 }]]);

/**
 * A chain of `blocks` blocks, most of their events of other kinds (market data of every size, so
 * that records cross the chunks' edges anywhere), every fifth block with a referral set of ours,
 * every seventh with an event of another chain in the middle.
 */
function chainBytes(blocks: number): Buffer {
  const records: Buffer[] = [];
  let seq = 0n;
  const add = (event: Record<string, unknown>) =>
    records.push(eventRecord(seq++, encodeBusEvent({ version: 1, chainId: 'c', ...event }, OTHERS)));
  for (let h = 1; h <= blocks; h++) {
    let i = 0;
    add({
      id: `${h}-${i++}`,
      type: 'BUS_EVENT_TYPE_BEGIN_BLOCK',
      beginBlock: { height: String(h), timestamp: String(1e18 + h), hash: 'ab' },
    });
    for (let k = 0; k < 40; k++) {
      const other = { id: `${h}-${i++}`, type: k % 3 === 0 ? 'BUS_EVENT_TYPE_ORDER' : 'BUS_EVENT_TYPE_MARKET_DATA' };
      add({
        ...other,
        ...(h % 7 === 0 && k === 20 ? { chainId: 'd' } : {}),
        marketData: { market: hex(h * 100 + k).repeat(1 + ((h + k) % 9)) },
      });
      if (h % 5 === 0 && k === 30) {
        add({
          id: `${h}-${i++}`,
          type: 'BUS_EVENT_TYPE_REFERRAL_SET_CREATED',
          referralSetCreated: { setId: hex(h), referrer: hex(h + 1), createdAt: String(h), updatedAt: '0' },
        });
      }
    }
    add({ id: `${h}-${i++}`, type: 'BUS_EVENT_TYPE_END_BLOCK', endBlock: { height: String(h) } });
  }
  return Buffer.concat(records);
}

/** BinaryDecoder's batches over the bytes cut as a file stream cuts them (CHUNK_BYTES). */
function decodedInThread(bytes: Buffer, file: string): DecodedEvent[][] {
  const decoder = new BinaryDecoder(file);
  const batches: DecodedEvent[][] = [];
  for (let i = 0; i < bytes.length; i += CHUNK_BYTES) batches.push([...decoder.push(bytes.subarray(i, i + CHUNK_BYTES))]);
  [...decoder.end()];
  return batches.filter((b) => b.length > 0);
}

async function prescanned(file: string, aheadBytes?: number): Promise<{ batches: DecodedEvent[][]; bytes: number }> {
  const batches: DecodedEvent[][] = [];
  let bytes = 0;
  for await (const batch of prescannedEvents(file, (n) => (bytes += n), aheadBytes)) batches.push([...batch]);
  return { batches, bytes };
}

test('an event file scanned by the worker thread gives the events, batches and positions of the decoder in this thread', async () => {
  const bytes = chainBytes(3000);
  const file = join(dir, 'chain.evts');
  writeFileSync(file, bytes);
  const expected = decodedInThread(bytes, file);
  // Read ahead as far as it may (8 MiB: the whole file), and a chunk ahead at most (it then waits).
  for (const ahead of [undefined, 1]) {
    const got = await prescanned(file, ahead);
    assert.equal(got.bytes, bytes.length);
    assert.equal(got.batches.length, expected.length);
    assert.deepEqual(got.batches, expected);
  }
  const kinds = new Map<string, number>();
  for (const e of expected.flat())
    kinds.set(e.body.kind, (kinds.get(e.body.kind) ?? 0) + (e.body.kind === 'skippedRun' ? e.body.events : 1));
  assert.deepEqual(Object.fromEntries(kinds), { beginBlock: 3000, skippedRun: 120_000, referralSetCreated: 600, endBlock: 3000 });
});

/** Every event BinaryDecoder gives over the bytes (cut as above) before it throws, and what it throws. */
function inThreadUntilError(bytes: Buffer, file: string): { events: DecodedEvent[]; error: unknown } {
  const events: DecodedEvent[] = [];
  const decoder = new BinaryDecoder(file);
  try {
    for (let i = 0; i < bytes.length; i += CHUNK_BYTES) for (const e of decoder.push(bytes.subarray(i, i + CHUNK_BYTES))) events.push(e);
    [...decoder.end()];
  } catch (error) {
    return { events, error };
  }
  return { events, error: undefined };
}

test('bad records from the worker: the events before them, then the same InputError as in this thread', async () => {
  const good = chainBytes(1500);
  const order = (id: string, version = 1) =>
    eventRecord(0n, encodeBusEvent({ id, type: 'BUS_EVENT_TYPE_ORDER', version, chainId: 'c', marketData: { market: 'm' } }, OTHERS));
  const cases: [string, Buffer][] = [
    // A record whose envelope does not scan, past the first chunks: decoded here, which says what is wrong.
    ['a bad id', Buffer.concat([good, order('9-x'), good.subarray(0, 1000)])],
    // An event of another version, of a kind we skip: not counted in a run, but decoded and refused.
    ['another version', Buffer.concat([good, order('9-1', 2), good.subarray(0, 1000)])],
    // A size no record has: the worker's record reader stops there.
    ['an impossible size', Buffer.concat([good, Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0]), good.subarray(0, 1000)])],
    // A record cut short by the end of the file.
    ['a cut record', Buffer.concat([good, order('9-1').subarray(0, 9)])],
  ];
  for (const [name, bytes] of cases) {
    const file = join(dir, `${name}.evts`);
    writeFileSync(file, bytes);
    const expected = inThreadUntilError(bytes, file);
    assert.ok(expected.error instanceof InputError, name);
    assert.ok(expected.events.length > 100_000 / 40, name);
    const got: DecodedEvent[] = [];
    await assert.rejects(
      async () => {
        for await (const batch of prescannedEvents(file, () => {})) got.push(...batch);
      },
      // In the file (as readEvents says it): the record reader's errors do not name it.
      (err: unknown) => err instanceof InputError && err.message === inFile(expected.error as InputError, file).message,
      name,
    );
    assert.deepEqual(got, expected.events, name);
  }
});

test('a reader that stops taking events stops the worker: nothing is left running', async () => {
  const file = join(dir, 'stop.evts');
  writeFileSync(file, chainBytes(3000));
  let batches = 0;
  for await (const _ of prescannedEvents(file, () => {})) if (++batches === 2) break;
  assert.equal(batches, 2);
  // The test runner would wait for a worker still running; and a missing file is an error, not a hang.
  await assert.rejects(async () => {
    for await (const _ of prescannedEvents(join(dir, 'missing.evts'), () => {}));
  }, /ENOENT/);
});
