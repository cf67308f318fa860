/**
 * The real network's events for the tests of test/vega-data: smoketest_to_block_5000.evts.gz, an
 * event file a Vega network wrote (vegaprotocol/vega, datanode/networkhistory/testdata/), and
 * smoketest_to_block_5000.ndjson, the same events in their JSON form. They are vegaprotocol/vega's
 * test data, under the AGPL, so not in this repo: `npm run test:vega-data` reads them from the
 * folder EPOCHVIEW_VEGA_FIXTURES names.
 */
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const VEGA_FILES = ['smoketest_to_block_5000.evts.gz', 'smoketest_to_block_5000.ndjson'];

const WHAT =
  "the vega-data tests read a real network's events from the folder it names: smoketest_to_block_5000.evts.gz " +
  "(vegaprotocol/vega's datanode/networkhistory/testdata/) and smoketest_to_block_5000.ndjson (the same events as JSON), " +
  'AGPL test data kept out of this repo';

const isFile = (path: string) => statSync(path, { throwIfNoEntry: false })?.isFile() === true;

/** The files' common path without extension (add `.evts.gz` or `.ndjson`); an error saying what to set when they are not there. */
export function vegaFixtures(): string {
  const dir = process.env.EPOCHVIEW_VEGA_FIXTURES;
  if (!dir) throw new Error(`EPOCHVIEW_VEGA_FIXTURES is not set: ${WHAT}`);
  const missing = VEGA_FILES.filter((f) => !isFile(join(dir, f)));
  if (missing.length > 0) throw new Error(`EPOCHVIEW_VEGA_FIXTURES=${dir} (${resolve(dir)}) has no ${missing.join(' and ')}: ${WHAT}`);
  return join(resolve(dir), 'smoketest_to_block_5000');
}
