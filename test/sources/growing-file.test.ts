/**
 * GrowingFile: a file read as `tail -f` reads it. A core restart truncates its event file and
 * writes it again, maybe past the old size before the next read: the same inode, no smaller
 * size, only the first bytes tell. Each case is two reads with the file written between them.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { encodeBusEvent, eventRecord } from '../../src/sources/binary/encode-event.js';
import { GrowingFile, type GrowingFileRead } from '../../src/sources/growing-file.js';
import { blockLines, hex, setCreated } from '../helpers/events.js';

const tmp = mkdtempSync(join(tmpdir(), 'epochview-growing-file-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** The lines of blocks from..to, one referral set each. */
const lines = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) =>
    blockLines(from + i, [setCreated(hex((from + i).toString(16).padStart(2, '0')), hex('ab'))]),
  ).flat();

const ndjson = (from: number, to: number) => `${lines(from, to).join('\n')}\n`;

/** Lines as an event file, its records numbered from `seq` (the core numbers them from 0 in each process). */
const records = (text: string[], seq = 0) =>
  Buffer.concat(text.map((l, i) => eventRecord(BigInt(seq + i), encodeBusEvent(JSON.parse(l) as Record<string, unknown>))));

const events = (from: number, to: number) => records(lines(from, to));

/** What a read gave: the ids of its events, or its kind. */
function seen(read: GrowingFileRead): string {
  if (read.kind !== 'appended') return read.kind;
  const ids: string[] = [];
  for (let next = read.events.next(); !next.done; next = read.events.next()) ids.push(next.value.id);
  return ids.length === 0 ? 'no events' : `${ids[0]} to ${ids.at(-1)}`;
}

for (const [format, write] of [
  ['NDJSON', ndjson],
  ['an event file', events],
] as const) {
  test(`${format}: appended bytes are read on; rewritten from its start past the old size, it is read again from its first byte`, async () => {
    const path = join(tmp, `chain-${format.replace(/ /g, '-')}`);
    writeFileSync(path, write(1, 2));
    const file = new GrowingFile(path);
    assert.equal(seen(file.read()), '1-0 to 2-2');
    assert.equal(seen(file.read()), 'unchanged');
    appendFileSync(path, write(3, 3));
    assert.equal(seen(file.read()), '3-0 to 3-2');

    // A restart: the file truncated and written again from another height, longer than it was.
    writeFileSync(path, write(2, 6));
    assert.equal(seen(file.read()), 'replaced');
    assert.equal(seen(file.read()), '2-0 to 6-2');

    // Written again to exactly its size, its first block another one.
    writeFileSync(path, write(3, 7));
    assert.equal(seen(file.read()), 'replaced');
    assert.equal(seen(file.read()), '3-0 to 7-2');

    // Shrunk, and replaced by another file (another inode).
    writeFileSync(path, write(1, 1));
    assert.equal(seen(file.read()), 'replaced');
    assert.equal(seen(file.read()), '1-0 to 1-2');
    rmSync(path);
    assert.equal(seen(file.read()), 'absent');
    writeFileSync(path, write(1, 1));
    assert.equal(seen(file.read()), 'replaced');
    assert.equal(seen(file.read()), '1-0 to 1-2');
  });
}

test('an event file whose first record comes again with an earlier sequence number (a restarted core) is read again from the start', async () => {
  const path = join(tmp, 'sequence.evts');
  // A file whose first record was numbered 5 (a data-node buffer file, say), then the same
  // events numbered from 0 by a new process, past the old size: only the sequence differs.
  const chain = lines(1, 3);
  writeFileSync(path, records(chain.slice(0, 3), 5));
  const file = new GrowingFile(path);
  assert.equal(seen(file.read()), '1-0 to 1-2');
  writeFileSync(path, records(chain, 0));
  assert.equal(seen(file.read()), 'replaced');
  assert.equal(seen(file.read()), '1-0 to 3-2');
});

test('a first read shorter than the compared head: the bytes read so far are compared, and the head grows with the reads', async () => {
  const path = join(tmp, 'short.evts');
  const whole = events(1, 2);
  writeFileSync(path, whole.subarray(0, 20)); // not even one record
  const file = new GrowingFile(path);
  assert.equal(seen(file.read()), 'no events');
  appendFileSync(path, whole.subarray(20));
  assert.equal(seen(file.read()), '1-0 to 2-2');
  writeFileSync(path, events(3, 5));
  assert.equal(seen(file.read()), 'replaced');
  assert.equal(seen(file.read()), '3-0 to 5-2');
});
