/**
 * The codec's response bytes, framed from each row's edge encoded once, against protobufjs
 * encoding the whole response from the page's JSON values: byte for byte, for every method, for
 * pages given as one text (from the store) and as kept row texts (from the RowCache), empty, and
 * big enough for lengths of several bytes. Request bytes read as Go's proto.Unmarshal reads them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import protobuf from 'protobufjs';
import type { MessageDef, Scalar } from '../../src/contract/message.js';
import { MalformedRequestError, MethodCodec } from '../../src/grpc/codec.js';
import { ApiError } from '../../src/contract/errors.js';
import { METHODS } from '../../src/grpc/methods.js';
import type { PageResponse } from '../../src/operations/operation.js';
import { keptEdges, PageResult } from '../../src/pagination/result.js';
import { PROTO_DIR } from '../helpers/grpc.js';

const root = new protobuf.Root();
root.resolvePath = (_origin, target) => `${PROTO_DIR}${target}`;
root.loadSync('data-node/api/v2/trading_data.proto');

const SCALARS: Record<Scalar, (i: number) => unknown> = {
  id: (i) => i.toString(16).padStart(64, '0'),
  hex: (i) => i.toString(16).padStart(8, '0'),
  string: (i) => `name ${i} ✓`,
  enum: () => 'ENTITY_SCOPE_TEAMS',
  decimal: (i) => `${i}000000000000000000000`,
  int64: (i) => String(1_700_000_000_000_000_000 + i * 1000),
  timestamp: (i) => String(1_700_000_000_000_000_000 + i),
  uint64: (i) => String(2n ** 64n - 1n - BigInt(i)),
  bool: (i) => i % 2 === 0,
};

/** A node of the message with every field set (lists of two), as the store renders its JSON. */
function node(def: MessageDef, i: number): Record<string, unknown> {
  const value = (type: Scalar | MessageDef, j: number) => (typeof type === 'string' ? SCALARS[type](j) : node(type, j));
  return Object.fromEntries(def.fields.map((f) => [f.name, f.list ? [value(f.type, i), value(f.type, i + 1)] : value(f.type, i)]));
}

// A page's bytes are framed by hand from its rows' edges; an item (GetCurrentReferralProgram) is
// protobufjs' own encoding of its JSON, so only pages have anything to compare.
for (const method of METHODS.filter((m) => m.operation.response.kind === 'page')) {
  const response = method.operation.response as PageResponse;
  test(`${method.operation.name}: the response bytes are protobufjs' of the same page`, () => {
    const codec = new MethodCodec(method);
    const responseType = root.lookupType(response.message);
    for (const count of [0, 1, 3, 1000]) {
      const edges = Array.from({ length: count }, (_, i) => JSON.stringify({ node: node(response.node, i), cursor: `c${i}=` }));
      const pages = [
        new PageResult(response.key, edges.join(','), count > 1, false, null),
        new PageResult(response.key, keptEdges(edges.map((e) => Buffer.from(e))), false, true, null),
      ];
      for (const page of pages) {
        const expected = responseType.encode({ [response.key]: { edges: page.edges(), pageInfo: page.pageInfo } }).finish();
        assert.deepEqual(codec.response(page), Buffer.from(expected));
        // Once more: the kept rows' edges as encoded the first time.
        assert.deepEqual(codec.response(page), Buffer.from(expected));
      }
    }
  });
}

/** A method's codec by operation name. */
const codecOf = (name: string) => new MethodCodec(METHODS.find((m) => m.operation.name === name)!);

/** Bytes from numbers and strings (a string as its UTF-8 bytes). */
const bytes = (...parts: (number | string | Buffer)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'number' ? Buffer.from([p]) : Buffer.from(p))));
/** A length-delimited field: its tag, its length, its bytes. */
const len = (field: number, body: Buffer) => bytes((field << 3) | 2, body.length, body);

test("request bytes are read as Go's proto.Unmarshal reads them", () => {
  const sets = codecOf('ListReferralSets');
  const read = (b: Buffer) => {
    const r = sets.request(b) as Record<string, unknown>;
    return { first: r.first, after: r.after, newestFirst: r.newestFirst, referrer: r.referrer };
  };
  const after = len(2, bytes('!!'));
  // first = 3 + 2^35 in a 6-byte varint: its low 32 bits, and the field after it is read (protobufjs lost it).
  assert.deepEqual(read(len(2, bytes(0x08, 0x83, 0x80, 0x80, 0x80, 0x80, 0x01, after))), {
    first: 3,
    after: '!!',
    newestFirst: undefined,
    referrer: undefined,
  });
  // A bool as a 6-byte varint (2^35): true, and what follows is read.
  assert.deepEqual(read(len(2, bytes(0x28, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, after))), {
    first: undefined,
    after: '!!',
    newestFirst: true,
    referrer: undefined,
  });
  // The most a 10-byte varint holds: int32's low 32 bits of 2^64-1 are -1 (the invalid pagination error, later).
  assert.equal(read(len(2, bytes(0x08, ...Array(9).fill(0xff), 0x01))).first, -1);
  // A message given twice is merged; a singular field given twice keeps the last.
  assert.deepEqual(read(bytes(len(2, bytes(0x08, 5)), len(3, bytes('aa')), len(2, after), len(3, bytes('bb')))), {
    first: 5,
    after: '!!',
    newestFirst: undefined,
    referrer: 'bb',
  });
  // Unknown fields of every wire type are skipped, a group to its own end (nested groups too).
  const unknown = bytes(
    0x98,
    0x06,
    0x01,
    0x99,
    0x06,
    ...Array(8).fill(0),
    0x9d,
    0x06,
    0,
    0,
    0,
    0,
    0x9b,
    0x06,
    0x0b,
    0x08,
    0x01,
    0x0c,
    0x9c,
    0x06,
  );
  assert.deepEqual(read(bytes(unknown, len(3, bytes('cc')))), {
    first: undefined,
    after: undefined,
    newestFirst: undefined,
    referrer: 'cc',
  });

  // A known field of another wire type is unknown: skipped (GetReferralSetStats' at_epoch as fixed64, then field 1).
  const stats = codecOf('GetReferralSetStats').request(bytes(0x11, ...Array(8).fill(7), len(1, bytes('ab')))) as Record<string, unknown>;
  assert.deepEqual([stats.atEpoch, stats.referralSetId], [undefined, 'ab']);
  const summaries = codecOf('ListEpochRewardSummaries');
  // filter as a varint: unknown; then filter's asset ids add up over two filters.
  const filter = summaries.request(bytes(0x08, 0x01, len(1, len(1, bytes('aa'))), len(1, len(1, bytes('bb'))))) as Record<string, unknown>;
  assert.deepEqual(filter.assetIds, ['aa', 'bb']);
  // A uint64 past 2^63-1: the contract's parse error, as on REST.
  assert.throws(() => summaries.request(len(1, bytes(0x18, ...Array(9).fill(0xff), 0x01))), ApiError);

  // What Go refuses is malformed: INVALID_ARGUMENT (grpc: error unmarshalling request: …).
  const malformed = {
    'field number 0': bytes(0x00, 0x01),
    'a field number past 2^29-1': bytes(0x80, 0x80, 0x80, 0x80, 0x10, 0x01),
    'a varint past 64 bits': len(2, bytes(0x08, ...Array(9).fill(0xff), 0x02)),
    'a varint past 10 bytes': len(2, bytes(0x08, ...Array(10).fill(0x80), 0x00)),
    'a group closed by another field': bytes(0x9b, 0x06, 0xa4, 0x06),
    'an end of group with none open': bytes(0x9c, 0x06),
    'wire type 6': bytes(0x9e, 0x06),
    'a length past the end': bytes(0x1a, 0x05, 0x61),
    'a string that is not UTF-8': len(3, bytes(0xff, 0xfe)),
    'a message ending inside a varint': bytes(0x98, 0x06, 0x80),
  };
  for (const [what, b] of Object.entries(malformed)) assert.throws(() => sets.request(b), MalformedRequestError, what);
});
