/**
 * `serve --broker-listen` fed the real network's event file by libnanomsg, on both stores: the
 * read models and pages `ingest` of the same file gives, with the events of kinds we skip (most
 * of a real chain) counted as they arrive and left out of the buffer files.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { EventRecordReader } from '../../src/sources/binary/records.js';
import { runCli } from '../helpers/cli.js';
import { allPages, dumpStore, freshStore } from '../helpers/compare-stores.js';
import { brokerPort, Core, killCores } from '../helpers/nanomsg-core.js';
import { eventually, startServe } from '../helpers/serve.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS, type TestStore } from '../helpers/stores.js';
import { vegaFixtures } from '../helpers/vega-fixtures.js';

const VEGA = vegaFixtures();
const tmp = mkdtempSync(join(tmpdir(), 'epochview-vega-broker-'));
after(() => {
  killCores();
  rmSync(tmp, { recursive: true, force: true });
});

// The peer sends a plain event file: the real one up to its last whole block, 5001 (the network
// was stopped inside block 5002), without the block 1 it replays after its first, so that the
// socket and `ingest` apply and count the same blocks (a block sent again is the socket tests'
// part). Its events are record for record its JSON twin's lines, which give the chain and the cuts.
const lines = readFileSync(`${VEGA}.ndjson`, 'utf8').split('\n');
const CHAIN = (JSON.parse(lines[0]!) as { chainId: string }).chainId;
const begins = (height: number) => lines.flatMap((l, i) => (l.includes(`"beginBlock":{"height":"${height}"`) ? [i] : []));
const [, replayFrom] = begins(1);
const replayTo = begins(2).find((i) => i > replayFrom!)!;
const end = lines.findIndex((l) => l.startsWith('{"id":"5002-'));
const whole = gunzipSync(readFileSync(`${VEGA}.evts.gz`));
const at = [...new EventRecordReader().push(whole)].map((r) => r.offset);
const EVENTS = join(tmp, 'smoketest-to-5001.evts');
writeFileSync(EVENTS, Buffer.concat([whole.subarray(0, at[replayFrom!]), whole.subarray(at[replayTo], at[end])]));
const RECORDS = end - (replayTo - replayFrom!);

/** Every sample of a metric, by its labels. */
const samples = (metrics: string, name: string) =>
  [...metrics.matchAll(new RegExp(`^${name}(\\{[^}]*\\})? (\\d+)$`, 'gm'))].map((m) => [m[1] ?? '', Number(m[2])] as const);

for (const kind of STORE_KINDS) {
  describe(`the real network's events over the broker socket on ${kind}`, () => {
    const stores: TestStore[] = [];
    after(async () => {
      for (const s of stores) await s.drop();
    });

    test('the read models and pages of `ingest`; the kinds we skip counted, not buffered', { timeout: 600_000 }, async () => {
      const ingested = await freshStore(stores, kind);
      const res = await runCli(['ingest', EVENTS, ...ingested.args]);
      assert.equal(res.code, 0, res.stderr);

      const fed = await freshStore(stores, kind);
      const bufferDir = join(tmp, `buffer-${kind}`);
      const serve = await startServe([
        ...fed.args,
        ...['--broker-listen', '127.0.0.1:0', '--broker-buffer-dir', bufferDir, '--chain-id', CHAIN, '--log-level', 'warn'],
      ]);
      try {
        const readyz = async () => (await get(`${serve.url}/readyz`)).body as { blockHeight: string | null };
        const core = new Core(await brokerPort(serve.url));
        await core.send(EVENTS);
        // The file ends inside block 5002 (the network was stopped there): 5001 is the last whole block.
        await eventually('block 5001 applied', async () => (await readyz()).blockHeight === '5001', 300_000);

        const metrics = (await get(`${serve.url}/metrics`)).text;
        assert.deepEqual(samples(metrics, 'epochview_broker_frames_received_total'), [['', RECORDS]]);
        // Skipped events by type, counted as they arrived, or as applied for the few the buffer
        // keeps (time updates): what `ingest` reports for the same blocks.
        const reported = new Map([...res.stderr.matchAll(/^ {2}(BUS_EVENT_TYPE_\w+) +(\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
        assert.ok(reported.size > 10, res.stderr);
        const counted = new Map<string, number>();
        for (const name of ['epochview_broker_skipped_events_total', 'epochview_ingest_skipped_events_total'])
          for (const [labels, n] of samples(metrics, name)) counted.set(labels.slice(7, -2), (counted.get(labels.slice(7, -2)) ?? 0) + n);
        assert.deepEqual(counted, reported);
        assert.deepEqual(samples(metrics, 'epochview_ingest_skipped_events_total'), [
          ['{type="BUS_EVENT_TYPE_TIME_UPDATE"}', reported.get('BUS_EVENT_TYPE_TIME_UPDATE')],
        ]);
        // The one buffer file while the connection lasts: the frames received less those left out.
        const [file, ...more] = readdirSync(bufferDir);
        assert.deepEqual(more, []);
        const buffered = [...new EventRecordReader().push(readFileSync(join(bufferDir, file!)))];
        assert.ok(buffered.length < RECORDS / 2, `${buffered.length} of ${RECORDS} events buffered`);
        assert.ok(
          statSync(join(bufferDir, file!)).size < statSync(EVENTS).size / 2,
          `${statSync(join(bufferDir, file!)).size} bytes buffered of ${statSync(EVENTS).size}`,
        );
        await core.close();
        assert.equal(await serve.stop(), 0);
      } finally {
        await serve.stop();
      }
      assert.deepEqual(await dumpStore(fed), await dumpStore(ingested));
      assert.deepEqual(await allPages(fed, 3), await allPages(ingested, 3));
    });
  });
}
