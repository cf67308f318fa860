/**
 * The loop of growing inputs (serve --follow, serve --broker-listen), in process on both stores,
 * with an input that hands out reads as the test scripts them and a store whose transactions the
 * test holds or fails: nothing here depends on timing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { StoreUnavailableError, type Store } from '../../src/db/store.js';
import {
  GrowingIngest,
  type GrowingIngestOptions,
  type GrowingInput,
  type GrowingRead,
  STREAMING_BLOCKS,
} from '../../src/ingest/growing.js';
import { readCheckpoint } from '../../src/ingest/ingest.js';
import { NdjsonDecoder } from '../../src/sources/ndjson/decoder.js';
import { referralBlock } from '../helpers/events.js';
import { createTestStore, STORE_KINDS } from '../helpers/stores.js';

/** Each block has 4 events: a batch of 25 is 5 blocks (a block counts its events and 1). */
const BATCH_EVENTS = 25;

/** The events of blocks from..to, as a read of a growing input. */
function blocks(from: number, to: number, atEnd: boolean): GrowingRead {
  let text = '';
  for (let h = from; h <= to; h++) text += referralBlock(h);
  return { kind: 'events', events: new NdjsonDecoder().push(Buffer.from(text)), atEnd };
}

/** A growing input whose reads the test adds; idle when it has none. */
class ScriptedInput implements GrowingInput {
  readonly log: string[] = [];
  private readonly reads: GrowingRead[] = [];
  private more: (() => void) | undefined;
  private taken = 0;
  /** Resolves when the n-th read is taken. */
  private readonly watchers: { n: number; resolve: () => void }[] = [];
  /** Told when the loop next waits for more. */
  private waiter: (() => void) | undefined;

  add(...reads: GrowingRead[]): void {
    this.reads.push(...reads);
    this.more?.();
  }

  /** Resolves when the loop waits for more input. */
  waiting(): Promise<void> {
    return new Promise((resolve) => (this.waiter = resolve));
  }

  taking(n: number): Promise<void> {
    return new Promise((resolve) => (this.taken >= n ? resolve() : this.watchers.push({ n, resolve })));
  }

  async read(): Promise<GrowingRead> {
    const read = this.reads.shift();
    if (!read) return { kind: 'idle' };
    this.log.push(`read ${++this.taken}`);
    for (const w of this.watchers) if (w.n <= this.taken) w.resolve();
    return read;
  }

  waitForMore(signal: AbortSignal): Promise<void> {
    this.waiter?.();
    this.waiter = undefined;
    return new Promise((resolve) => {
      this.more = resolve;
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }
}

/** The store, with `around` called for each transaction (numbered from 1) instead of it. */
function intercepted(store: Store, around: (n: number, run: () => Promise<unknown>) => Promise<unknown>): Store {
  let n = 0;
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'transaction') return (fn: Parameters<Store['transaction']>[0]) => around(++n, () => target.transaction(fn));
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The loop over `input`, in batches of BATCH_EVENTS (unless `opts` says), each noted as "<blocks> to <last height>". */
function growing(
  store: Store,
  input: GrowingInput,
  batches: string[],
  onStopped: (err: unknown) => void,
  opts: Partial<GrowingIngestOptions> = {},
): GrowingIngest {
  return new GrowingIngest(store, input, {
    label: 'test',
    logger: pino({ level: 'silent' }),
    retryMs: 1,
    batchEvents: BATCH_EVENTS,
    onApplied: (b) => batches.push(`${b.blocks} to ${b.lastHeight}`),
    onStopped,
    ...opts,
  });
}

/** Polls (each turn of the event loop) until `check` holds. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
}

for (const kind of STORE_KINDS) {
  test(`${kind}: a backlog is applied in batches, each written while the next is read; once caught up each block goes as it comes; an input that ends inside a block`, async () => {
    const ts = await createTestStore(kind);
    const store = await ts.open();
    const input = new ScriptedInput();
    const batches: string[] = [];
    // The first transaction commits only once the loop has taken the next read: without
    // decoding ahead, the loop would wait for it and this test would time out.
    const store1 = intercepted(store, async (n, run) => {
      if (n === 1) await input.taking(2);
      const result = await run();
      input.log.push(`commit ${n}`);
      return result;
    });
    const loop = growing(store1, input, batches, (err) => assert.fail(String(err)));
    try {
      // The backlog: two reads, the first of them not at the end of what is written.
      input.add(blocks(1, 7, false), blocks(8, 22, true));
      loop.start();
      await until(() => loop.state === 'caught-up');
      assert.deepEqual(batches, ['5 to 5', '5 to 10', '5 to 15', '5 to 20', '2 to 22']);
      assert.deepEqual(input.log.slice(0, 3), ['read 1', 'read 2', 'commit 1']);

      // Caught up: a block is applied as soon as it is read, on its own; blocks read together go together.
      input.add(blocks(23, 23, true));
      await until(() => batches.length === 6);
      input.add(blocks(24, 26, true));
      await until(() => batches.length === 7);
      assert.deepEqual(batches.slice(5), ['1 to 23', '3 to 26']);

      // The input ends inside block 28 (a restarted core rewrote the file, a connection ended):
      // block 27 is applied, 28 dropped and told once 27 is committed; the new input has it whole.
      const cut = `${referralBlock(28).split('\n').slice(0, 3).join('\n')}\n`;
      const ended: string[] = [];
      input.add(
        { kind: 'events', events: new NdjsonDecoder().push(Buffer.from(referralBlock(27) + cut)), atEnd: true },
        { kind: 'ended', committed: (dropped) => ended.push(`${dropped?.height} dropped after ${batches.at(-1)}`) },
        blocks(28, 29, true),
      );
      await until(() => batches.length === 9);
      assert.deepEqual(batches.slice(7), ['1 to 27', '2 to 29']);
      assert.deepEqual(ended, ['28 dropped after 1 to 27']);
      await until(() => loop.state === 'caught-up');
      assert.equal(await readCheckpoint(store), 29n);
      assert.equal((await store.query<{ n: number }>('SELECT count(*)::int AS n FROM referral_sets'))[0]!.n, 58);
    } finally {
      await loop.stop();
      await store.close();
      await ts.drop();
    }
  });

  test(`${kind}: failed transactions: one lost at its commit, one refused; every block applied once, in order, none lost`, async () => {
    const ts = await createTestStore(kind);
    const store = await ts.open();
    const input = new ScriptedInput();
    const batches: string[] = [];
    const unavailable = new StoreUnavailableError(new Error('connection lost'));
    const store1 = intercepted(store, async (n, run) => {
      // Transaction 2 commits, then its connection is lost (its outcome unknown to the loop);
      // transaction 3, the retry, finds the store down.
      if (n === 2) {
        await run();
        throw unavailable;
      }
      if (n === 3) throw unavailable;
      return run();
    });
    const stopped: unknown[] = [];
    const loop = growing(store1, input, batches, (err) => stopped.push(err));
    try {
      input.add(blocks(1, 12, false), blocks(13, 21, true));
      loop.start();
      await until(() => loop.state === 'caught-up');
      // Blocks 6-10 committed with the transaction whose answer was lost: the checkpoint read
      // again after the failure leaves them out of the retry, which applies 11-15.
      assert.deepEqual(batches, ['5 to 5', '5 to 15', '5 to 20', '1 to 21']);
      assert.deepEqual(stopped, []);
      assert.equal(await readCheckpoint(store), 21n);
      const sets = await store.query<{ n: number; referees: number }>(
        'SELECT count(*)::int AS n, sum(referee_count)::int AS referees FROM referral_sets',
      );
      assert.deepEqual(sets, [{ n: 42, referees: 42 }]);
    } finally {
      await loop.stop();
      await store.close();
      await ts.drop();
    }
  });

  test(`${kind}: a streaming backlog fills its batches: many blocks at the end of what is written wait for more while it comes, up to a pause or a bound; a live block still goes alone`, {
    timeout: 60_000,
  }, async () => {
    const ts = await createTestStore(kind);
    const store = await ts.open();
    // Batches of 50 blocks, so that STREAMING_BLOCKS (32) are queued before one is full.
    const batchEvents = 250;
    const forever = 600_000;
    const run = async (
      opts: Partial<GrowingIngestOptions>,
      script: (input: ScriptedInput, batches: string[], loop: GrowingIngest) => Promise<void>,
    ) => {
      const input = new ScriptedInput();
      const batches: string[] = [];
      const loop = growing(store, input, batches, (err) => assert.fail(String(err)), { batchEvents, ...opts });
      try {
        await script(input, batches, loop);
      } finally {
        await loop.stop();
      }
    };
    try {
      assert.equal(STREAMING_BLOCKS, 32);
      // No pause ends the wait: 40 blocks wait for more, which fills a batch of 50 and leaves 10,
      // fewer than a stream's, applied at once. A live block then goes alone.
      await run({ streamPauseMs: forever, streamWaitMs: forever }, async (input, batches, loop) => {
        const waiting = input.waiting();
        input.add(blocks(1, 40, true));
        loop.start();
        await waiting;
        assert.deepEqual(batches, []);
        input.add(blocks(41, 60, true));
        await until(() => batches.length === 2);
        input.add(blocks(61, 61, true));
        await until(() => batches.length === 3);
        assert.deepEqual(batches, ['50 to 50', '10 to 60', '1 to 61']);
        // 31 blocks are not a stream: applied at once.
        input.add(blocks(62, 92, true));
        await until(() => batches.length === 4);
        assert.equal(batches[3], '31 to 92');
      });
      // The input pauses: what is queued goes.
      await run({ streamPauseMs: 1, streamWaitMs: forever }, async (input, batches, loop) => {
        input.add(blocks(93, 132, true));
        loop.start();
        await until(() => loop.state === 'caught-up');
        assert.deepEqual(batches, ['40 to 132']);
      });
      // A queued block has waited its bound: what is queued goes, pause or not.
      await run({ streamPauseMs: forever, streamWaitMs: 0 }, async (input, batches, loop) => {
        input.add(blocks(133, 172, true));
        loop.start();
        await until(() => batches.length === 1);
        assert.deepEqual(batches, ['40 to 172']);
      });
      // Stopped while it waits: it ends at once; what is queued is read again after a restart.
      await run({ streamPauseMs: forever, streamWaitMs: forever }, async (input, batches, loop) => {
        const waiting = input.waiting();
        input.add(blocks(173, 212, true));
        loop.start();
        await waiting;
        await loop.stop();
        assert.deepEqual(batches, []);
      });
      assert.equal(await readCheckpoint(store), 172n);
    } finally {
      await store.close();
      await ts.drop();
    }
  });
}
