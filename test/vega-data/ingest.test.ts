/** `epochview ingest` of the real network's event file, on both stores: it gives what its NDJSON twin gives. */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { allPages, dumpStore, freshStore, ingestSummary } from '../helpers/compare-stores.js';
import { STORE_KINDS, type TestStore } from '../helpers/stores.js';
import { vegaFixtures } from '../helpers/vega-fixtures.js';

const VEGA = vegaFixtures();

for (const kind of STORE_KINDS) {
  describe(`the real network's event file on ${kind}`, () => {
    const stores: TestStore[] = [];
    after(async () => {
      for (const s of stores) await s.drop();
    });

    test('gzipped, it gives what its NDJSON twin gives', { timeout: 600_000 }, async () => {
      const binary = await freshStore(stores, kind);
      const json = await freshStore(stores, kind);
      const fromBinary = await runCli(['ingest', `${VEGA}.evts.gz`, ...binary.args]);
      assert.equal(fromBinary.code, 0, fromBinary.stderr);
      const fromJson = await runCli(['ingest', `${VEGA}.ndjson`, ...json.args]);
      assert.equal(fromJson.code, 0, fromJson.stderr);
      // Same blocks, checkpoint and per-kind counts, skipped kinds included.
      assert.equal(ingestSummary(fromBinary.stderr), ingestSummary(fromJson.stderr));
      assert.match(
        ingestSummary(fromBinary.stderr),
        /^ingested 5001 blocks \(1 already applied, skipped\), 600 events\nlast height: 5001\n/,
      );
      assert.match(fromBinary.stderr, /^skipped: 21229$/m);
      assert.match(fromBinary.stderr, /^ {2}BUS_EVENT_TYPE_MARKET_DATA +5110$/m);
      // The file ends inside block 5002 (the network was stopped there): its events wait.
      assert.ok(
        fromBinary.stderr.includes(`warning: block 5002 (${VEGA}.evts.gz: byte 9568434) has no endBlock; not applied`),
        fromBinary.stderr,
      );
      assert.deepEqual(await dumpStore(binary), await dumpStore(json));
      assert.deepEqual(await allPages(binary, 3), await allPages(json, 3));

      // A rerun applies nothing again.
      const again = await runCli(['ingest', `${VEGA}.evts.gz`, ...binary.args]);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, /^ingested 0 blocks \(5002 already applied, skipped\), 0 events/m);
      assert.deepEqual(await dumpStore(binary), await dumpStore(json));
    });
  });
}
