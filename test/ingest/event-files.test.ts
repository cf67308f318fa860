/**
 * `epochview ingest` of event files (the core's binary `[Broker.File]` format, gzipped archives,
 * directories of them, stdin) and `serve --follow` of a growing event file, on both stores.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { encodeBusEvent, eventRecord } from '../../src/sources/binary/encode-event.js';
import { WireWriter } from '../../src/lib/wire.js';
import { runCli } from '../helpers/cli.js';
import { allPages, dumpStore, freshStore, ingestSummary } from '../helpers/compare-stores.js';
import { blockLines, hex, refereeJoined, setCreated } from '../helpers/events.js';
import { eventually, startServe } from '../helpers/serve.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS, type TestStore } from '../helpers/stores.js';

const tmp = mkdtempSync(join(tmpdir(), 'epochview-evts-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** NDJSON lines → event-file bytes, one record per event. */
function evts(lines: string[]): Buffer {
  return Buffer.concat(lines.map((l, i) => eventRecord(BigInt(i + 1), encodeBusEvent(JSON.parse(l) as Record<string, unknown>))));
}

/** The small demo chain (seed 3) in the three formats `demo` writes, made once for both stores. */
let demo: Promise<{ ndjsonFile: string; evtsFile: string; gzFile: string }> | undefined;
function demoFiles() {
  demo ??= (async () => {
    const files = { ndjsonFile: join(tmp, 'demo.ndjson'), evtsFile: join(tmp, 'demo.evts'), gzFile: join(tmp, 'demo.evts.gz') };
    for (const [format, file] of [
      ['ndjson', files.ndjsonFile],
      ['evts', files.evtsFile],
      ['evts.gz', files.gzFile],
    ] as const) {
      const res = await runCli(['demo', '--scale', 'small', '--seed', '3', '--format', format, '--out', file]);
      assert.equal(res.code, 0, res.stderr);
    }
    return files;
  })();
  return demo;
}

for (const kind of STORE_KINDS) {
  describe(`event files on ${kind}`, () => {
    const stores: TestStore[] = [];
    after(async () => {
      for (const s of stores) await s.drop();
    });

    test('a generated chain as an event file, in a directory (a part gzipped) and gzipped on stdin: every page as from its NDJSON', {
      timeout: 600_000,
    }, async () => {
      const { ndjsonFile, evtsFile, gzFile } = await demoFiles();
      const json = await freshStore(stores, kind);
      assert.equal((await runCli(['ingest', ndjsonFile, ...json.args])).code, 0);
      const expected = await allPages(json, 25);
      const expectedDump = await dumpStore(json);

      const binary = await freshStore(stores, kind);
      const res = await runCli(['ingest', evtsFile, ...binary.args]);
      assert.equal(res.code, 0, res.stderr);
      assert.deepEqual(await allPages(binary, 25), expected);

      // The same records in three files of a directory, cut between records inside blocks, read
      // in name order (written out of order); the format is told by the bytes, not the names.
      const bytes = readFileSync(evtsFile);
      const cuts = recordBoundaries(bytes, [0.3, 0.7]);
      const dir = join(tmp, `archive-${kind}`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'c.ndjson'), bytes.subarray(cuts[1]!));
      writeFileSync(join(dir, 'a.txt'), gzipSync(bytes.subarray(0, cuts[0]!)));
      writeFileSync(join(dir, 'b'), bytes.subarray(cuts[0]!, cuts[1]!));
      // A gzipped file by its path is a.txt's case; the demo's gzipped file goes on stdin.
      for (const input of [{ path: dir }, { path: '-', stdin: readFileSync(gzFile) }]) {
        const ts = await freshStore(stores, kind);
        const r = await runCli(['ingest', input.path, ...ts.args], { stdin: input.stdin });
        assert.equal(r.code, 0, r.stderr);
        assert.equal(ingestSummary(r.stderr), ingestSummary(res.stderr), input.path);
        assert.deepEqual(await dumpStore(ts), expectedDump, input.path);
      }
    });

    describe('bad input: a clear error, nothing half-applied, a rerun after the fix continues', () => {
      const blocks = [1, 2, 3, 4].map((h) =>
        blockLines(h, [setCreated(hex(`0${h}`), hex('aa')), refereeJoined(hex(`0${h}`), hex(`b${h}`), '1')]),
      );
      const good = evts(blocks.flat());
      /** Where block 3's records start. */
      const block3 = recordStarts(good)[2 * 4]!;

      const check = async (name: string, bad: Buffer, message: RegExp, fixed = good) => {
        const ts = await freshStore(stores, kind);
        const file = join(tmp, `${name}-${kind}`);
        writeFileSync(file, bad);
        const res = await runCli(['ingest', file, ...ts.args, '--batch-events', '1']);
        assert.equal(res.code, 1, res.stderr);
        assert.match(res.stderr, message);
        assert.doesNotMatch(res.stderr, /at .*\.js:\d+/, 'no stack trace');
        assert.match(res.stderr, /blocks before the bad one are applied \(checkpoint 2\)/);
        const d = await dumpStore(ts);
        assert.deepEqual(
          d.referral_sets!.map((r) => r.slice(0, 2)),
          ['01', '02'],
        );
        assert.equal(d.referral_set_referees!.length, 2);
        writeFileSync(file, fixed);
        const again = await runCli(['ingest', file, ...ts.args]);
        assert.equal(again.code, 0, again.stderr);
        assert.match(again.stderr, /ingested 2 blocks \(2 already applied, skipped\)/);
        assert.deepEqual(
          (await dumpStore(ts)).referral_sets!.map((r) => r.slice(0, 2)),
          ['01', '02', '03', '04'],
        );
      };

      test('a corrupt record', async () => {
        // Event 3-2's payload claims more bytes than it holds.
        const event = new WireWriter();
        event.stringField(1, '3-2');
        event.varintField(3, 71);
        event.varintField(4, 1);
        event.bytesField(169, Buffer.from([0x0a, 0x40, 0x61]));
        const records = recordStarts(good);
        const at = records[2 * 4 + 2]!;
        const bad = Buffer.concat([good.subarray(0, at), eventRecord(9n, event.finish()), good.subarray(records[2 * 4 + 3]!)]);
        await check(
          'corrupt.evts',
          bad,
          new RegExp(
            `^error: \\S+/corrupt\\.evts-${kind}: byte ${at}, event 3-2, field refereeJoinedReferralSet: not a protobuf refereeJoinedReferralSet \\(length 64 at byte \\d+ runs past the end of the message\\)$`,
            'm',
          ),
        );
      });

      test('a truncated gzip', async () => {
        // Stored, not compressed: block 3's bytes are at a known place (after 10 bytes of gzip
        // header and 5 of the stored block's), so the cut falls inside its first record.
        const gz = gzipSync(good, { level: 0 });
        const cut = 10 + 5 + block3 + 40;
        await check(
          'truncated.evts.gz',
          gz.subarray(0, cut),
          new RegExp(`^error: \\S+/truncated\\.evts\\.gz-${kind}: byte \\d+: the gzip stream is truncated$`, 'm'),
          gz,
        );
      });

      test('a record whose length runs past the end of a finished file', async () => {
        const bad = good.subarray(0, block3 + 30);
        await check(
          'short.evts',
          bad,
          new RegExp(
            `^error: \\S+/short\\.evts-${kind}: byte ${block3}: the record of \\d+ bytes runs past the end of the input \\(26 bytes left\\)$`,
            'm',
          ),
        );
      });
    });

    test('serve --follow of a growing event file: records in pieces, only whole blocks, then a truncation and a rewrite', {
      timeout: 180_000,
    }, async () => {
      const ts = await freshStore(stores, kind);
      const file = join(tmp, `follow-${kind}.evts`);
      const block = (h: number) =>
        evts(
          blockLines(
            h,
            [1, 2].flatMap((n) => [setCreated(id(h, n), hex('ab')), refereeJoined(id(h, n), id(h, n + 100), '1')]),
          ),
        );
      const serve = await startServe([...ts.args, '--follow', file, '--log-level', 'warn'], { EPOCHVIEW_FOLLOW_POLL_MS: '50' });
      try {
        const view = async () => {
          const res = await get(`${serve.url}/api/v2/referral-sets?pagination.first=1000`);
          assert.equal(res.status, 200, res.text);
          const sets = (res.body as { referralSets: { edges: { node: { totalMembers: string } }[] } }).referralSets.edges.map(
            (e) => e.node,
          );
          const h = res.headers.get('x-block-height');
          // Whole blocks only: two sets per block since 100, each with its two members.
          const height = h === null ? null : Number(h);
          assert.equal(sets.length, height === null ? 0 : 2 * (height - 99), `height ${height}`);
          for (const s of sets) assert.equal(s.totalMembers, '2');
          return height;
        };
        writeFileSync(file, Buffer.concat([block(100), block(101)]));
        await eventually('blocks 100-101', async () => (await view()) === 101);

        // Block 102 in pieces: cut inside a length prefix, then inside a body; nothing until its end.
        const next = block(102);
        const starts = recordStarts(next);
        const pieces = [starts[2]! + 2, starts[3]! + 9, next.length - 1, next.length];
        let from = 0;
        for (const to of pieces) {
          appendFileSync(file, next.subarray(from, to));
          from = to;
          if (to < next.length) {
            await sleep(300);
            assert.equal(await view(), 101, `after ${to} of ${next.length} bytes`);
          }
        }
        await eventually('block 102', async () => (await view()) === 102);

        // The core restarts: the file is truncated, then written again from its snapshot's block.
        truncateSync(file, 0);
        await sleep(300);
        assert.equal(await view(), 102);
        writeFileSync(file, Buffer.concat([block(101), block(102), block(103)]));
        await eventually('block 103 after the rewrite', async () => (await view()) === 103);
        assert.ok(serve.logs().some((l) => /replaced or truncated/.test(String(l.msg))));

        // Truncated and written again past the old size between two reads: the same inode, a
        // bigger size; its first record tells it is another file.
        const rewrites = () => serve.logs().filter((l) => /replaced or truncated/.test(String(l.msg))).length;
        const before = rewrites();
        writeFileSync(file, Buffer.concat([block(102), block(103), block(104), block(105)]));
        await eventually('block 105 after the rewrite past the old size', async () => (await view()) === 105);
        assert.equal(rewrites(), before + 1);
        assert.equal(await serve.stop(), 0);
      } finally {
        await serve.stop();
      }
      assert.deepEqual((await dumpStore(ts)).referral_sets!.length, 12);
    });
  });
}

const id = (height: number, n: number) => height.toString(16).padStart(60, '0') + n.toString(16).padStart(4, '0');

/** The offsets where the records of event-file bytes start. */
function recordStarts(bytes: Buffer): number[] {
  const starts: number[] = [];
  for (let pos = 0; pos < bytes.length; pos += 4 + bytes.readUInt32BE(pos)) starts.push(pos);
  return starts;
}

/** Record starts nearest to the given fractions of the bytes. */
function recordBoundaries(bytes: Buffer, fractions: number[]): number[] {
  const starts = recordStarts(bytes);
  return fractions.map((f) => starts.find((s) => s >= bytes.length * f)!);
}
