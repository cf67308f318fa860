/** `epochview serve --follow FILE`: ingesting a growing file while answering, on both stores. */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { blockId, blockLines, referralBlock as block, hex, refereeJoined, setCreated } from '../helpers/events.js';
import { eventually, sample, startServe } from '../helpers/serve.js';
import type { ReferralSetsBody } from '../helpers/bodies.js';
import { get } from '../helpers/server.js';
import { createTestStore, STORE_KINDS } from '../helpers/stores.js';

const tmp = mkdtempSync(join(tmpdir(), 'epochview-follow-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const BASE = 100;

const LINES_PER_BLOCK = block(BASE).split('\n').length - 1;

interface View {
  height: number | null;
  sets: { id: string; totalMembers: string }[];
}

async function view(url: string): Promise<View> {
  const res = await get(`${url}/api/v2/referral-sets?pagination.first=1000`);
  assert.equal(res.status, 200, res.text);
  const h = res.headers.get('x-block-height');
  return { height: h === null ? null : Number(h), sets: (res.body as ReferralSetsBody).referralSets.edges.map((e) => e.node) };
}

/** What the API shows must always be whole blocks: 2 sets per block since BASE, each with 2 members. */
function assertWholeBlocks(v: View): void {
  const blocks = v.height === null ? 0 : v.height - BASE + 1;
  assert.equal(v.sets.length, 2 * blocks, `height ${v.height}: ${v.sets.length} sets`);
  for (const s of v.sets) assert.equal(s.totalMembers, '2', `set ${s.id} at height ${v.height}`);
}

for (const kind of STORE_KINDS) {
  describe(`serve --follow on ${kind}`, () => {
    test('a growing file is ingested while serving: whole blocks only, headers advance, metrics count', { timeout: 180_000 }, async () => {
      const ts = await createTestStore(kind);
      const file = join(tmp, `chain-${kind}.ndjson`);
      // The file does not exist yet when serving starts; PGlite is not seeded with the demo when following.
      const serve = await startServe([...ts.args, '--follow', file, '--log-level', 'warn'], { EPOCHVIEW_FOLLOW_POLL_MS: '50' });
      try {
        assert.match(serve.stdout(), new RegExp(`following ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
        assert.deepEqual(await view(serve.url), { height: null, sets: [] });
        const source = async () => {
          const res = await get(`${serve.url}/readyz`);
          assert.equal(res.status, 200);
          return (res.body as { source: unknown }).source;
        };
        assert.deepEqual(await source(), { kind: 'file', path: file, state: 'waiting' });

        writeFileSync(file, block(BASE) + block(BASE + 1));
        await eventually('blocks 100-101', async () => (await view(serve.url)).height === BASE + 1);
        assertWholeBlocks(await view(serve.url));
        await eventually('caught up in /readyz', async () => ((await source()) as { state: string }).state === 'caught-up');
        assert.deepEqual(await source(), { kind: 'file', path: file, state: 'caught-up' });

        // A block written in pieces, its last line without its newline: not applied until complete.
        const next = block(BASE + 2);
        const cut = next.length - 20;
        appendFileSync(file, next.slice(0, cut));
        await sleep(500);
        const v = await view(serve.url);
        assert.equal(v.height, BASE + 1, 'an incomplete block is not applied');
        assertWholeBlocks(v);
        appendFileSync(file, next.slice(cut));
        await eventually('block 102', async () => (await view(serve.url)).height === BASE + 2);
        const ready = (await get(`${serve.url}/readyz`)).body as Record<string, unknown>;
        assert.equal(ready.blockHeight, String(BASE + 2));
        assert.match(String(ready.blockTime), /^\d{19}$/);

        // Many blocks appended in odd-sized pieces while requests run: every answer shows whole blocks.
        const more = Array.from({ length: 40 }, (_, i) => block(BASE + 3 + i)).join('');
        let seen = 0;
        const heights = new Set<number>();
        const reader = (async () => {
          for (;;) {
            const w = await view(serve.url);
            assertWholeBlocks(w);
            heights.add(w.height!);
            seen++;
            if (w.height === BASE + 42) return;
          }
        })();
        for (let at = 0; at < more.length; at += 997) {
          appendFileSync(file, more.slice(at, at + 997));
          await sleep(10);
        }
        await reader;
        assert.ok(seen > 1 && heights.size > 1, `reads during ingestion: ${seen}, heights seen: ${heights.size}`);

        const metrics = (await get(`${serve.url}/metrics`)).text;
        assert.equal(sample(metrics, 'epochview_ingest_events_total{kind="referralSetCreated"}'), 2 * 43);
        assert.equal(sample(metrics, 'epochview_ingest_events_total{kind="refereeJoinedReferralSet"}'), 2 * 43);
        assert.equal(sample(metrics, 'epochview_ingest_blocks_total'), 43);
        assert.equal(sample(metrics, 'epochview_ingest_last_height'), BASE + 42);
        assert.ok(sample(metrics, 'epochview_store_query_duration_seconds_count{kind="transaction",outcome="ok"}')! >= 3);

        // The file truncated and written again: read again from the start, applied blocks skipped.
        writeFileSync(file, block(BASE) + block(BASE + 1));
        await eventually('the truncation log line', () =>
          serve.logs().some((l) => l.msg === 'follow: the file was replaced or truncated; reading it again from the start'),
        );
        appendFileSync(file, Array.from({ length: 42 }, (_, i) => block(BASE + 2 + i)).join(''));
        await eventually('block 143 after the file was replaced', async () => (await view(serve.url)).height === BASE + 43);
        assertWholeBlocks(await view(serve.url));

        // Bad input stops following, with a log line naming the line; the API goes on answering.
        appendFileSync(
          file,
          `{"id":"200-0","type":"BUS_EVENT_TYPE_REFERRAL_SET_CREATED","referralSetCreated":{"setId":"zz"}}\n${block(BASE + 44)}`,
        );
        await eventually('the bad-input log line', () => serve.logs().some((l) => l.msg === 'bad input: stopped following'));
        const bad = serve.logs().find((l) => l.msg === 'bad input: stopped following')!;
        assert.match(String(bad.err), /line 265\b/);
        assert.equal(bad.level, 50);
        assert.equal((await view(serve.url)).height, BASE + 43);
        assert.deepEqual(await source(), { kind: 'file', path: file, state: 'stopped', error: `bad input: ${String(bad.err)}` });
        assert.equal(await serve.stop(), 0);
      } finally {
        await serve.stop();
        await ts.drop();
      }
    });

    test('a backlog written before serve starts is applied many blocks per transaction; once caught up, a new block goes alone', {
      timeout: 180_000,
    }, async () => {
      const ts = await createTestStore(kind);
      const file = join(tmp, `backlog-${kind}.ndjson`);
      // 1,000 blocks, more than one read of the file (1 MiB). A block counts its 4 events and 1:
      // batches of 1,000 events are 200 blocks.
      writeFileSync(file, Array.from({ length: 1000 }, (_, i) => block(BASE + i)).join(''));
      assert.ok(statSync(file).size > 2 ** 20);
      const serve = await startServe([...ts.args, '--follow', file, '--batch-events', '1000', '--log-level', 'warn'], {
        EPOCHVIEW_FOLLOW_POLL_MS: '50',
      });
      try {
        const applied = async () => {
          const m = (await get(`${serve.url}/metrics`)).text;
          return { blocks: sample(m, 'epochview_ingest_blocks_total'), transactions: sample(m, 'epochview_ingest_transactions_total') };
        };
        await eventually('the backlog applied', async () => (await applied()).blocks === 1000);
        assert.deepEqual(await applied(), { blocks: 1000, transactions: 5 });
        for (const height of [BASE + 1000, BASE + 1001]) {
          appendFileSync(file, block(height));
          await eventually(`block ${height}`, async () => (await applied()).blocks === height - BASE + 1);
        }
        assert.deepEqual(await applied(), { blocks: 1002, transactions: 7 });
        assert.equal(((await get(`${serve.url}/readyz`)).body as { blockHeight: string }).blockHeight, String(BASE + 1001));
        assert.equal(await serve.stop(), 0);
      } finally {
        await serve.stop();
        await ts.drop();
      }
    });

    test('\\r\\n endings and blank lines are lines; a complete last line waits for its newline; line numbers count every line', {
      timeout: 120_000,
    }, async () => {
      const ts = await createTestStore(kind);
      const file = join(tmp, `edges-${kind}.ndjson`);
      const crlf = (text: string) => text.replace(/\n/g, '\r\n');
      writeFileSync(file, `${crlf(block(BASE))}\n`);
      const serve = await startServe([...ts.args, '--follow', file, '--log-level', 'warn'], { EPOCHVIEW_FOLLOW_POLL_MS: '50' });
      try {
        await eventually('block 100', async () => (await view(serve.url)).height === BASE);
        assertWholeBlocks(await view(serve.url));

        // Block 101 whole but for the "\n" of its endBlock line: the file is still being
        // written, so that line is not read (a finished input would read it).
        const next = crlf(block(BASE + 1));
        appendFileSync(file, next.slice(0, -1));
        await sleep(500);
        assert.equal((await view(serve.url)).height, BASE, 'a last line without its newline waits');
        appendFileSync(file, '\n');
        await eventually('block 101', async () => (await view(serve.url)).height === BASE + 1);
        assertWholeBlocks(await view(serve.url));

        appendFileSync(file, 'not json\r\n');
        await eventually('the bad-input log line', () => serve.logs().some((l) => l.msg === 'bad input: stopped following'));
        const bad = serve.logs().find((l) => l.msg === 'bad input: stopped following')!;
        // Two blocks of lines and the blank line come before it.
        assert.match(
          String(bad.err),
          new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: line ${2 * LINES_PER_BLOCK + 2}: not JSON \\(`),
        );
        assert.equal(bad.checkpoint, String(BASE + 1));
        assert.equal(await serve.stop(), 0);
      } finally {
        await serve.stop();
        await ts.drop();
      }
    });

    test('a line without a newline within 128 MiB stops following with a clear message; the blocks before it are applied', {
      timeout: 120_000,
    }, async () => {
      const ts = await createTestStore(kind);
      const file = join(tmp, `no-newline-${kind}.ndjson`);
      writeFileSync(file, block(BASE) + block(BASE + 1));
      appendFileSync(file, Buffer.alloc(128 * 2 ** 20 + 1, 'x'));
      const serve = await startServe([...ts.args, '--follow', file, '--log-level', 'warn'], { EPOCHVIEW_FOLLOW_POLL_MS: '50' });
      try {
        await eventually('the bad-input log line', () => serve.logs().some((l) => l.msg === 'bad input: stopped following'));
        const bad = serve.logs().find((l) => l.msg === 'bad input: stopped following')!;
        assert.equal(bad.err, `line ${2 * LINES_PER_BLOCK + 1}: no newline within 128 MiB: not an event line`);
        assert.equal(bad.checkpoint, String(BASE + 1));
        assert.equal((await view(serve.url)).height, BASE + 1);
        assertWholeBlocks(await view(serve.url));
        assert.equal(await serve.stop(), 0);
      } finally {
        await serve.stop();
        await ts.drop();
        rmSync(file, { force: true });
      }
    });

    // The bound is the block assembler's, the same on both stores: followed on one of them.
    if (kind === STORE_KINDS.at(-1))
      test('a block over --max-block-events stops following with a clear message; the blocks before it are applied', {
        timeout: 120_000,
      }, async () => {
        const ts = await createTestStore(kind);
        const file = join(tmp, `big-block-${kind}.ndjson`);
        // Block BASE holds 4 events of ours, the next 6.
        const sets = [1, 2, 3].flatMap((n) => [
          setCreated(blockId(BASE + 1, n), hex('ab')),
          refereeJoined(blockId(BASE + 1, n), blockId(BASE + 1, n + 100), '1'),
        ]);
        writeFileSync(file, `${block(BASE)}${blockLines(BASE + 1, sets).join('\n')}\n`);
        const serve = await startServe([...ts.args, '--follow', file, '--max-block-events', '4', '--log-level', 'warn'], {
          EPOCHVIEW_FOLLOW_POLL_MS: '50',
        });
        try {
          await eventually('the bad-input log line', () => serve.logs().some((l) => l.msg === 'bad input: stopped following'));
          const bad = serve.logs().find((l) => l.msg === 'bad input: stopped following')!;
          assert.equal(
            bad.err,
            `${file}: line ${LINES_PER_BLOCK + 6}, event ${BASE + 1}-5: block ${BASE + 1} holds more than 4 events of ours (--max-block-events): it is not applied`,
          );
          assert.equal(bad.checkpoint, String(BASE));
          assertWholeBlocks(await view(serve.url));
          assert.equal((await view(serve.url)).height, BASE);
        } finally {
          await serve.stop();
          await ts.drop();
          rmSync(file, { force: true });
        }
      });
  });
}
