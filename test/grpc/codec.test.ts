/**
 * The codec's response bytes, framed from each row's edge encoded once, against protobufjs
 * encoding the whole response from the page's JSON values: byte for byte, for every method, for
 * pages given as one text (from the store) and as kept row texts (from the RowCache), empty, and
 * big enough for lengths of several bytes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import protobuf from 'protobufjs';
import type { MessageDef, Scalar } from '../../src/contract/message.js';
import { MethodCodec } from '../../src/grpc/codec.js';
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
