/** The explorer's asset read model over the real network's 23 asset events, on both stores. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { useServedStore } from '../helpers/served-store.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { vegaFixtures } from '../helpers/vega-fixtures.js';

const VEGA = vegaFixtures();

/** The blocks of the real chain fixture that hold asset events: their beginBlock, asset events and endBlock lines. */
function fixtureAssetBlocks(): string {
  const lines = readFileSync(`${VEGA}.ndjson`, 'utf8').split('\n');
  const height = (line: string) => /"id":"(\d+)-/.exec(line)?.[1];
  const heights = new Set(lines.filter((l) => l.includes('"BUS_EVENT_TYPE_ASSET"')).map(height));
  const kept = lines.filter((l) => heights.has(height(l)) && /"BUS_EVENT_TYPE_(BEGIN_BLOCK|END_BLOCK|ASSET)"/.test(l));
  assert.equal(kept.filter((l) => l.includes('"BUS_EVENT_TYPE_ASSET"')).length, 23);
  return `${kept.join('\n')}\n`;
}

for (const kind of STORE_KINDS) {
  describe(`explorer assets on ${kind}: the real chain fixture's 23 asset events`, () => {
    const served = useServedStore(kind, { ingest: { stdin: fixtureAssetBlocks() } });

    test('nine assets by id, each as its latest event left it, VOTE by its name', async () => {
      const a = (id: string, symbol: string, name: string, decimals: string, quantum: string, status: string) =>
        `{"id":"${id}","symbol":"${symbol}","name":"${name}","decimals":"${decimals}","quantum":"${quantum}","status":"STATUS_${status}"}`;
      const res = await get(`${served.url}/explorer/api/assets`);
      assert.equal(
        res.text,
        `{"assets":[${[
          a('VOTE', 'VOTE', 'VOTE', '5', '1', 'ENABLED'),
          a('0aa2e2a4024598b5f04cb6091dfdc36f1740217ae8b321691ac5ad7272dc9769', 'TAS', 'test_asset', '18', '1', 'REJECTED'),
          a('15b2022d7f0c46df0798e3e6364c167b14af8538e1dd4f5e76fa6d28cbdd8d1f', 'TAS', 'test_asset', '6', '1', 'ENABLED'),
          a('5066d7dff7b84f7d5945e25342c63b79d463bdf954b2df6392a35fb23e7c99e2', 'TAS', 'test_asset', '18', '1', 'ENABLED'),
          a('6995280497915bec50ae26e8962413cd9935739bd6409cc4f9c04072961809fa', 'TEST', 'Test Asset', '18', '1', 'PENDING_LISTING'),
          a('6c5c8ee3561683c9d745a7c97a9a2361d6f6169a19cd8606daba391eafec3adb', 'TEST', 'Test Asset', '18', '1', 'ENABLED'),
          a('9a8caa0a7a63af80f575fa478cdba6e02ce30be7ea1a597f5b9739a5be8d2473', 'TEST', 'Test Asset', '18', '1', 'ENABLED'),
          a('b4f2726571fbe8e33b442dc92ed2d7f0d810e21835b7371a7915a365f07ccd9b', 'VEGA', 'Vega', '18', '0', 'ENABLED'),
          a('e81e9b78fb1d7d58db7c9612d1d8cc63d9cc9508a047cefe372788a509df4f74', 'TAS', 'test_asset', '18', '1', 'ENABLED'),
        ].join(',')}]}`,
      );
      assert.equal(JSON.parse((await get(`${served.url}/explorer/api/overview`)).text).counts.assets, '9');
    });
  });
}
