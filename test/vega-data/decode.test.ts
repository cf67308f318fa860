/** The real network's event file decodes, record for record, to the events of its JSON twin. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { decodeLine } from '../../src/sources/ndjson/decode-line.js';
import { comparable, decodeAll } from '../helpers/binary-events.js';
import { vegaFixtures } from '../helpers/vega-fixtures.js';

const VEGA = vegaFixtures();

test('the real event file decodes to the same events as its JSON twin, record for record', () => {
  const binary = decodeAll(gunzipSync(readFileSync(`${VEGA}.evts.gz`)));
  const lines = readFileSync(`${VEGA}.ndjson`, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const json = lines.flatMap((l, i) => decodeLine(l, i + 1));
  assert.equal(binary.length, 31_837);
  assert.equal(json.length, binary.length);
  for (let i = 0; i < json.length; i++) assert.equal(comparable(binary[i]!), comparable(json[i]!), `event ${json[i]!.id}`);
  // What the fixture holds that the decoder must get right.
  const first = binary.find((e) => e.body.kind === 'epochEvent')!;
  assert.deepEqual(first.body, { kind: 'epochEvent', seq: 0n, action: 'EPOCH_ACTION_START' }); // seq 0: absent on the wire
  assert.deepEqual(binary[0]!.at, { offset: 0 });
  assert.equal(binary[0]!.chainId, 'testnet-001');
  assert.equal(binary[0]!.version, 1);
  assert.equal(binary.filter((e) => e.body.kind === 'skipped').length, 31_837 - 5_003 - 5_002 - 561 - 16 - 23);
});
