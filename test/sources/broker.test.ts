/** The broker socket's pieces: the SP header, frames cut anywhere, the buffer files. */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import pino from 'pino';
import { BrokerSource } from '../../src/ingest/broker.js';
import { BinaryDecoder } from '../../src/sources/binary/decoder.js';
import { encodeBusEvent, eventRecord } from '../../src/sources/binary/encode-event.js';
import { EventRecordReader } from '../../src/sources/binary/records.js';
import { beginBlockHeight, BufferFiles } from '../../src/sources/broker/buffer-files.js';
import { checkHeader, FrameLengthError, FrameSplitter, MAX_FRAME_BYTES, PAIR_V0_HEADER } from '../../src/sources/broker/pair-listener.js';

const tmp = mkdtempSync(join(tmpdir(), 'epochview-broker-unit-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const begin = (height: number) =>
  encodeBusEvent({
    id: `${height}-0`,
    block: 'AB',
    type: 'BUS_EVENT_TYPE_BEGIN_BLOCK',
    version: 1,
    chainId: 'c',
    beginBlock: { height: String(height), timestamp: '1', hash: 'ab' },
  });
const end = (height: number) =>
  encodeBusEvent({
    id: `${height}-1`,
    block: 'AB',
    type: 'BUS_EVENT_TYPE_END_BLOCK',
    version: 1,
    chainId: 'c',
    endBlock: { height: String(height) },
  });

/** An event of a kind we skip (an account update), in block `height`. */
const account = (height: number, n: number, envelope: { chainId?: string; version?: number } = {}) =>
  encodeBusEvent(
    { id: `${height}-${n}`, block: 'AB', type: 'BUS_EVENT_TYPE_ACCOUNT', version: 1, chainId: 'c', ...envelope, account: { balance: '7' } },
    new Map([['account', { field: 105 }]]),
  );

const frame = (body: Buffer) => {
  const head = Buffer.alloc(8);
  head.writeBigUInt64BE(BigInt(body.length));
  return Buffer.concat([head, body]);
};

test('the PAIR v0 header is accepted, other versions and protocols are refused', () => {
  assert.equal(PAIR_V0_HEADER.toString('hex'), '0053500000100000');
  assert.equal(checkHeader(PAIR_V0_HEADER), undefined);
  assert.equal(checkHeader(Buffer.from('0053500000100101', 'hex')), undefined, 'the reserved bytes are not checked');
  assert.equal(checkHeader(Buffer.from('0053500000200000', 'hex')), 'protocol 0x0020, not PAIR v0 (0x0010)');
  assert.equal(checkHeader(Buffer.from('0053500100100000', 'hex')), 'SP version 1, not 0');
  assert.equal(checkHeader(Buffer.from('474554202f204854', 'hex')), 'not an SP protocol header (474554202f204854)');
});

test('frames are split however the stream is cut, and an oversized length is refused', () => {
  const bodies = [Buffer.from('a'), Buffer.alloc(0), Buffer.alloc(300, 7), Buffer.from('last')];
  const stream = Buffer.concat(bodies.map(frame));
  // Every cut: inside a length prefix, at its end, inside a body, at a frame's end.
  for (let size = 1; size <= stream.length; size++) {
    const splitter = new FrameSplitter();
    const out: Buffer[] = [];
    for (let at = 0; at < stream.length; at += size) out.push(...splitter.push(stream.subarray(at, at + size)));
    assert.deepEqual(out, bodies, `chunks of ${size}`);
    assert.equal(splitter.pendingBytes, 0);
  }
  const splitter = new FrameSplitter();
  splitter.push(stream.subarray(0, 5));
  assert.equal(splitter.pendingBytes, 5);
  assert.deepEqual(splitter.push(stream.subarray(5, 8)), []);
  assert.equal(splitter.pendingBytes, 8);
  assert.deepEqual(splitter.push(stream.subarray(8, 9 + 8 + 8 + 2)), [bodies[0], bodies[1]]);
  assert.equal(splitter.pendingBytes, 10);
  const huge = Buffer.alloc(8);
  huge.writeBigUInt64BE(BigInt(MAX_FRAME_BYTES) + 1n);
  assert.throws(() => new FrameSplitter().push(huge), {
    message: `a frame of ${MAX_FRAME_BYTES + 1} bytes, more than the ${MAX_FRAME_BYTES} allowed`,
  });
  // The whole frames before it, in the same chunk or completing an earlier one, are handed over with the error.
  const before = new FrameSplitter();
  before.push(stream.subarray(0, 3));
  assert.throws(
    () => before.push(Buffer.concat([stream.subarray(3, 9 + 8), huge])),
    (err: FrameLengthError) =>
      err instanceof FrameLengthError && err.frames.length === 2 && err.frames[0]!.equals(bodies[0]!) && err.frames[1]!.length === 0,
  );
});

test('the BeginBlock height is read from the envelope; other events and garbage give none', () => {
  assert.equal(beginBlockHeight(begin(4711)), 4711n);
  assert.equal(beginBlockHeight(end(4711)), undefined);
  assert.equal(beginBlockHeight(Buffer.from([0xff, 0xff])), undefined);
});

test('buffer files: one per connection, a new one at a BeginBlock once full, records readable as an event file', () => {
  const dir = join(tmp, 'rotate');
  const files = new BufferFiles(dir, { chainId: undefined, rotateBytes: 100 });
  files.connectionBegan();
  files.append([begin(1), end(1)]);
  files.append([begin(2), end(2), begin(3)]);
  files.append([end(3)]);
  files.connectionEnded();
  files.connectionBegan();
  files.append([end(3), begin(4)]);
  assert.equal(files.heightReceived, 4n);
  const names = readdirSync(dir);
  // 1: blocks 1-2 (past 100 bytes at BeginBlock 3); 2: block 3; 3: the second connection.
  assert.deepEqual(names, ['000000000001.bevt', '000000000002.bevt', '000000000003.bevt']);
  const read = (name: string) =>
    [...new EventRecordReader().push(readFileSync(join(dir, name)))].map((r) => r.buf.subarray(r.start, r.end));
  assert.deepEqual(read(names[0]!), [begin(1), end(1), begin(2), end(2)]);
  assert.deepEqual(read(names[1]!), [begin(3), end(3)]);
  assert.deepEqual(read(names[2]!), [end(3), begin(4)]);
  assert.deepEqual(files.oldest(), { number: 1, path: join(dir, names[0]!), finished: true });
  files.remove(1);
  files.remove(2);
  assert.deepEqual(files.oldest(), { number: 3, path: join(dir, names[2]!), finished: false });
  assert.equal(files.bufferedBytes, readFileSync(join(dir, names[2]!)).length);
  files.close();

  // A later process finds the files left: all finished, and it numbers after them.
  writeFileSync(join(dir, 'not-a-buffer-file.txt'), 'x');
  const again = new BufferFiles(dir, { chainId: undefined, rotateBytes: 100 });
  assert.deepEqual(again.oldest(), { number: 3, path: join(dir, names[2]!), finished: true });
  again.connectionBegan();
  again.append([begin(5)]);
  assert.deepEqual(
    readdirSync(dir).filter((n) => n.endsWith('.bevt')),
    ['000000000003.bevt', '000000000004.bevt'],
  );
  again.close();
});

test('buffer files shared by a hot spare: read again when it takes over, it finds what the writer before it left, and numbers after it', () => {
  const dir = join(tmp, 'spare');
  // The spare starts while the writer has file 1.
  const writer = new BufferFiles(dir, { chainId: undefined, rotateBytes: 100 });
  writer.connectionBegan();
  writer.append([begin(1), end(1)]);
  const spare = new BufferFiles(dir, { chainId: undefined, rotateBytes: 100 });
  assert.deepEqual(spare.oldest(), { number: 1, path: join(dir, '000000000001.bevt'), finished: true });
  // The writer applies and removes file 1, writes 2 and 3, and dies with 3 unapplied.
  writer.connectionEnded();
  writer.remove(1);
  writer.connectionBegan();
  writer.append([begin(2), end(2)]);
  writer.connectionEnded();
  writer.remove(2);
  writer.connectionBegan();
  writer.append([begin(3), end(3)]);
  writer.close();
  spare.reload();
  assert.deepEqual(spare.oldest(), { number: 3, path: join(dir, '000000000003.bevt'), finished: true });
  spare.connectionBegan();
  spare.append([begin(4)]);
  assert.deepEqual(
    readdirSync(dir).filter((n) => n.endsWith('.bevt')),
    ['000000000003.bevt', '000000000004.bevt'],
  );
  assert.throws(() => spare.reload(), /buffer files reloaded while a connection writes/);
  spare.close();
});

test('buffer files leave out the skipped kinds the applier would only count, and count them; anything it could refuse is kept', () => {
  const dir = join(tmp, 'skipped');
  const files = new BufferFiles(dir, { chainId: 'c' });
  files.connectionBegan();
  const kept = [
    // Before the connection's first BeginBlock: the rest of a block begun on a lost connection, which the applier drops and logs.
    account(1, 5),
    begin(2),
    account(2, 3, { chainId: 'other' }),
    account(2, 4, { version: 2 }),
    // Another block's event inside block 2: the applier refuses it.
    account(3, 5),
    Buffer.from([0xff, 0xff]),
    end(2),
    // After an EndBlock, before the next BeginBlock.
    account(2, 6),
    begin(3),
    end(3),
  ];
  files.append([kept[0]!, kept[1]!, account(2, 1), account(2, 2), ...kept.slice(2, 6)]);
  files.append([account(2, 5), kept[6]!]);
  files.append([...kept.slice(7, 9), account(3, 1), kept[9]!]);
  assert.deepEqual(files.takeSkipped(), new Map([['BUS_EVENT_TYPE_ACCOUNT', 4]]));
  assert.deepEqual(files.takeSkipped(), new Map());
  // A new connection has no block open until its BeginBlock.
  files.connectionEnded();
  files.connectionBegan();
  files.append([account(3, 2)]);
  files.close();
  const read = (name: string) =>
    [...new EventRecordReader().push(readFileSync(join(dir, name)))].map((r) => r.buf.subarray(r.start, r.end));
  assert.deepEqual(read('000000000001.bevt'), kept);
  assert.deepEqual(read('000000000002.bevt'), [account(3, 2)]);
  assert.equal(files.heightReceived, 3n);

  // Without a chain configured, any chain's events of skipped kinds in the open block are left out.
  const anyChain = new BufferFiles(join(tmp, 'skipped-any-chain'), { chainId: undefined });
  anyChain.connectionBegan();
  anyChain.append([begin(1), account(1, 1, { chainId: 'other' }), end(1)]);
  assert.deepEqual(anyChain.takeSkipped(), new Map([['BUS_EVENT_TYPE_ACCOUNT', 1]]));
  anyChain.close();
});

test("the socket's frames, looked at while the applier's decoder is paused inside a run of skipped events, do not change that run", () => {
  // The applier reads the buffer files across turns of the event loop, and frames arrive in
  // between: each side scans envelopes into its own place.
  const decoding = new BinaryDecoder().push(Buffer.concat([eventRecord(1n, account(5, 1)), eventRecord(2n, account(6, 1))]));
  assert.equal(decoding.next().value?.id, '5-1');
  const files = new BufferFiles(join(tmp, 'interleaved'), { chainId: 'c' });
  files.connectionBegan();
  files.append([begin(9), account(9, 1, { chainId: 'other' }), account(9, 2)]);
  files.close();
  const run = decoding.next().value;
  assert.deepEqual(run && { id: run.id, height: run.height, chainId: run.chainId, body: run.body }, {
    id: '6-1',
    height: 6n,
    chainId: 'c',
    body: { kind: 'skippedRun', counts: new Map([['BUS_EVENT_TYPE_ACCOUNT', 1]]), events: 1 },
  });
});

test('a core reconnecting in a loop: its connections are logged one by one up to 10 a minute, the rest counted in one line', async (t) => {
  // The clock stands still: every connection falls in the same minute however long the test takes.
  t.mock.timers.enable({ apis: ['Date'] });
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  const source = new BrokerSource({ host: '127.0.0.1', port: 0, bufferDir: join(tmp, 'reconnects'), chainId: undefined, logger });
  await source.listen();
  const port = Number(source.listenAddress.split(':')[1]);
  const state = async (wanted: string) => {
    while (source.status().state !== wanted) await new Promise((resolve) => setImmediate(resolve));
  };
  try {
    for (let i = 0; i < 25; i++) {
      const socket = connect(port, '127.0.0.1', () => socket.write(PAIR_V0_HEADER));
      await state('connected');
      socket.end();
      await state('waiting');
    }
    await source.close();
    const msgs = (msg: string) => lines.filter((l) => l.msg === msg);
    assert.equal(msgs('broker: core connected').length, 10);
    assert.equal(msgs('broker: core disconnected').length, 10);
    assert.deepEqual(
      msgs('broker: more connections of a core in the last minute, not logged one by one').map((l) => [l.level, l.connections]),
      [[40, 15]],
    );
    assert.equal(lines.length, 1 + 10 + 10 + 1, 'listening, 10 connections and their ends, the summary');
  } finally {
    await source.close();
  }
});
