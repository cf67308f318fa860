/**
 * A real chain's mix (`demo --our-share`): most blocks carry no event of ours and most events
 * are of kinds we skip. Ingested from an event file, it gives the read models that its events of
 * our kinds alone give, on both stores, also when a run stops in the middle and another resumes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { demoChain } from '../../src/demo/chain.js';
import { eventFileChunks } from '../../src/demo/evts.js';
import { PAYLOAD_TYPES } from '../../src/sources/events.js';
import { runCli } from '../helpers/cli.js';
import { dumpStore, freshStore } from '../helpers/compare-stores.js';
import { STORE_KINDS, type TestStore } from '../helpers/stores.js';

const tmp = mkdtempSync(join(tmpdir(), 'epochview-mix-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** Blocks of the small demo chain kept: its first epochs, every read model fed. */
const BLOCKS = 700;

const heightOf = (line: string) => Number(/^\{"id":"(\d+)-/.exec(line)![1]);

let made: { mix: string; ours: string; cut: string } | undefined;

/**
 * The chain's first BLOCKS blocks (a tenth of them with events of ours, 30 events of other kinds
 * a block) as an event file; the same cut short inside a record past its middle; and its events
 * of our kinds alone (block markers and time updates kept), made from the NDJSON text, not by
 * the decoder under test.
 */
function files(): { mix: string; ours: string; cut: string } {
  if (made) return made;
  const lines: string[] = [];
  chunks: for (const chunk of demoChain({ scale: 'small', seed: 4, ourShare: 0.1, otherEvents: 30 })) {
    for (const line of chunk.split('\n')) {
      if (line === '') continue;
      if (heightOf(line) > BLOCKS) break chunks;
      lines.push(line);
    }
  }
  const ourKeys = new Set(Object.keys(PAYLOAD_TYPES));
  const isOurs = (line: string) => ourKeys.has(Object.keys(JSON.parse(line) as object).at(-1)!);
  interleave(lines, isOurs);
  const evts = (ls: string[]) => Buffer.concat([...eventFileChunks([`${ls.join('\n')}\n`])]);
  const mix = evts(lines);
  const ours = evts(lines.filter(isOurs));
  assert.ok(ours.length * 4 < mix.length, `mostly other kinds: ${ours.length} of ${mix.length} bytes are ours`);
  made = { mix: join(tmp, 'mix.evts'), ours: join(tmp, 'ours.evts'), cut: join(tmp, 'cut.evts') };
  writeFileSync(made.mix, mix);
  writeFileSync(made.ours, ours);
  writeFileSync(made.cut, mix.subarray(0, Math.floor(mix.length * 0.55)));
  return made;
}

/**
 * The demo writes a block's other kinds after its events of ours; a real chain mixes them. Each
 * block's other kinds go between its events of ours instead (those keep their order), so that
 * runs of skipped events end at events of ours too.
 */
function interleave(lines: string[], isOurs: (line: string) => boolean): void {
  let i = 0;
  while (i < lines.length) {
    let end = i;
    while (end < lines.length && heightOf(lines[end]!) === heightOf(lines[i]!)) end++;
    // beginBlock and timeUpdate first, endBlock last.
    const middle = lines.slice(i + 2, end - 1);
    const ours = middle.filter(isOurs);
    const others = middle.filter((l) => !isOurs(l));
    const mixed: string[] = [];
    const step = Math.max(1, Math.ceil(others.length / (ours.length + 1)));
    for (let o = 0; o < others.length || ours.length > 0; o += step) {
      mixed.push(...others.slice(o, o + step));
      if (ours.length > 0) mixed.push(ours.shift()!);
    }
    lines.splice(i + 2, middle.length, ...mixed);
    i = end;
  }
}

for (const kind of STORE_KINDS) {
  describe(`a real chain's mix on ${kind}`, () => {
    const stores: TestStore[] = [];
    after(async () => {
      for (const s of stores) await s.drop();
    });

    test('mostly quiet blocks and other kinds give the read models of the events of our kinds alone; a run cut short resumes exactly', {
      timeout: 300_000,
    }, async () => {
      const f = files();
      const mix = await freshStore(stores, kind);
      // Small batches: several transactions, blocks with and without events of ours in each.
      const cut = await runCli(['ingest', f.cut, '--batch-events', '1000', ...mix.args]);
      assert.equal(cut.code, 1, cut.stderr);
      const checkpoint = Number(/checkpoint (\d+)\)/.exec(cut.stderr)?.[1]);
      assert.ok(checkpoint > 100 && checkpoint < BLOCKS, cut.stderr);
      const rest = await runCli(['ingest', f.mix, '--batch-events', '1000', ...mix.args]);
      assert.equal(rest.code, 0, rest.stderr);
      assert.match(rest.stderr, new RegExp(`^ingested ${BLOCKS - checkpoint} blocks \\(${checkpoint} already applied, skipped\\)`, 'm'));
      assert.match(rest.stderr, new RegExp(`^last height: ${BLOCKS}$`, 'm'));

      const ours = await freshStore(stores, kind);
      const alone = await runCli(['ingest', f.ours, ...ours.args]);
      assert.equal(alone.code, 0, alone.stderr);
      const expected = await dumpStore(ours);
      assert.ok(expected.team_member_stats!.length > 0 && expected.epoch_reward_summaries!.length > 0, 'every read model fed');
      assert.deepEqual(await dumpStore(mix), expected);
    });
  });
}
