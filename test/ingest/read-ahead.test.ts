/**
 * The ingest pipeline: a batch's transaction runs in the store while the next batch is decoded.
 * Bad input found meanwhile must be reported as if it had been found with nothing in flight:
 * only once the transaction in flight has committed, with every block before the bad one
 * applied and nothing of the bad one (on both stores).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Store } from '../../src/db/store.js';
import { ingestEvents, readCheckpoint } from '../../src/ingest/ingest.js';
import { encodeBusEvent, eventRecord } from '../../src/sources/binary/encode-event.js';
import type { DecodedEvent } from '../../src/sources/events.js';
import { InputError } from '../../src/sources/input-error.js';
import { readEvents } from '../../src/sources/input.js';
import { blockLines, hex, setCreated } from '../helpers/events.js';
import { createTestStore, STORE_KINDS, type StoreKind } from '../helpers/stores.js';

const tmp = mkdtempSync(join(tmpdir(), 'epochview-read-ahead-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

for (const kind of STORE_KINDS) {
  test(`${kind}: bad input decoded while a transaction is in flight is reported once it has committed; the blocks before it applied, none of the bad block`, async () => {
    // Blocks 1 to 4, then block 5 whose second event holds a bad id, then block 6.
    const lines = [1, 2, 3, 4, 5, 6].flatMap((h) =>
      blockLines(h, [setCreated(hex(`0${h}`), hex('aa')), setCreated(h === 5 ? 'zz' : hex(`1${h}`), hex('aa'))]),
    );
    const file = join(tmp, `bad-${kind}.evts`);
    writeFileSync(
      file,
      Buffer.concat(lines.map((l, i) => eventRecord(BigInt(i), encodeBusEvent(JSON.parse(l) as Record<string, unknown>)))),
    );

    const log: string[] = [];
    let sourceFailed!: () => void;
    const failed = new Promise<void>((resolve) => (sourceFailed = resolve));
    async function* watched(batches: AsyncIterable<readonly DecodedEvent[]>) {
      try {
        yield* batches;
      } catch (err) {
        log.push('source failed');
        sourceFailed();
        throw err;
      }
    }

    const ts = await createTestStore(kind as StoreKind);
    const store = await ts.open();
    try {
      // Block 4's transaction (one block per batch) is held until the source has failed: the
      // bad block is decoded while it is in flight.
      let transactions = 0;
      const held = new Proxy(store, {
        get(target, prop) {
          if (prop === 'transaction') {
            return async <T>(fn: (tx: Parameters<Parameters<Store['transaction']>[0]>[0]) => Promise<T>) => {
              const n = ++transactions;
              if (n === 4) await failed;
              const result = await target.transaction(fn);
              log.push(`commit ${n}`);
              return result;
            };
          }
          const value = Reflect.get(target, prop) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      const err = await ingestEvents(held, watched(readEvents(file).batches), { batchEvents: 1 }).then(
        () => assert.fail('no error'),
        (e: unknown) => e,
      );
      log.push('reported');
      assert.ok(err instanceof InputError, String(err));
      assert.match(err.message, /byte \d+, event 5-2, field referralSetCreated\.setId: not a hex id: "zz"$/);
      assert.deepEqual(log, ['commit 1', 'commit 2', 'commit 3', 'source failed', 'commit 4', 'reported']);
      assert.equal(await readCheckpoint(store), 4n);
      const sets = await store.query<{ id: string }>(`SELECT encode(id, 'hex') AS id FROM referral_sets ORDER BY id`);
      assert.deepEqual(
        sets.map((r) => r.id.slice(0, 2)),
        ['01', '02', '03', '04', '11', '12', '13', '14'],
      );
    } finally {
      await store.close();
      await ts.drop();
    }
  });
}
