/**
 * applyBlocks sends the projections' statements together (each builds its parameters while the
 * store runs another's). What must still hold when one of them fails: the error thrown is the
 * one that failed first, not one that failed only because the transaction was already aborted,
 * and no statement is sent once applyBlocks has thrown (the caller's rollback comes next: a
 * statement after it would run outside the transaction), even when a statement fails before it
 * is sent and the others go on. A store of its own here, with PostgreSQL's order: replies in the
 * order the statements were sent, and every statement after a failed one failing too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Queryable, SqlParam } from '../../src/db/store.js';
import { applyBlocks } from '../../src/ingest/apply.js';
import { type Block, BlockAssembler } from '../../src/ingest/blocks.js';
import { NdjsonDecoder } from '../../src/sources/ndjson/decoder.js';
import { blockLines, hex, payout, refereeJoinedTeam, setCreated, teamCreated } from '../helpers/events.js';

function blocksOf(lines: string[]): Block[] {
  const assembler = new BlockAssembler();
  const blocks: Block[] = [];
  for (const e of new NdjsonDecoder().push(Buffer.from(`${lines.join('\n')}\n`))) blocks.push(...assembler.push(e));
  return blocks;
}

/** Statements answered one after the other, on the next turn of the event loop, as a server would. */
class OrderedStore implements Queryable {
  /** The most statements sent and not yet answered at any time. */
  mostInFlight = 0;
  /** The statement that failed, the first. */
  failed: string | undefined;
  /** Statements sent after close(): the bug under test. */
  readonly late: string[] = [];
  private inFlight = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  /**
   * `failsOn`: the server fails such a statement (and every one after it: the transaction is
   * aborted). `refuses`: such a statement fails before it is sent (its parameters, say), and the
   * transaction goes on.
   */
  constructor(
    private readonly failsOn?: RegExp,
    private readonly refuses?: RegExp,
  ) {}

  /** applyBlocks has thrown: the caller's rollback would come now. */
  close(): void {
    this.closed = true;
  }

  query<Row extends object>(sql: string, _params: readonly SqlParam[] = []): Promise<Row[]> {
    if (this.closed) this.late.push(sql);
    if (this.refuses?.test(sql)) {
      this.failed ??= sql;
      return Promise.reject(new Error('the first failure'));
    }
    this.mostInFlight = Math.max(this.mostInFlight, ++this.inFlight);
    const reply = this.queue.then(
      () =>
        new Promise<Row[]>((resolve, reject) =>
          setImmediate(() => {
            this.inFlight--;
            if (this.failed && !this.refuses) return reject(new Error('current transaction is aborted'));
            if (this.failsOn?.test(sql)) {
              this.failed = sql;
              return reject(new Error('the first failure'));
            }
            resolve([]);
          }),
        ),
    );
    this.queue = reply.catch(() => {});
    return reply;
  }
}

const lines = blockLines(1, [
  setCreated(hex('01'), hex('02')),
  teamCreated(hex('0a'), hex('03'), 'a team', '1700000000000000000', '1'),
  refereeJoinedTeam(hex('0a'), hex('04'), '1'),
  payout('1', hex('ad'), '5'),
]);

test('the projections send their statements without waiting for one another', async () => {
  const store = new OrderedStore();
  await applyBlocks(store, blocksOf(lines));
  // One at a time, this would be 1: the sets, the teams, the summaries and the chain head write at once.
  assert.ok(store.mostInFlight >= 4, `at most ${store.mostInFlight} statements in flight`);
});

for (const [what, failsOn, refuses] of [
  ['the first projection', /INSERT INTO referral_sets\b/],
  ['one in the middle', /INSERT INTO teams\b/],
  ['the last', /INSERT INTO chain_head\b/],
  ['the last, refused before it is sent', undefined, /INSERT INTO chain_head\b/],
  ['one in the middle, refused before it is sent', undefined, /INSERT INTO teams\b/],
] as const) {
  test(`a failed statement of ${what}: its error, once every write has ended, and nothing sent after`, async () => {
    const store = new OrderedStore(failsOn, refuses);
    const error = await applyBlocks(store, blocksOf(lines)).then(
      () => assert.fail('applyBlocks did not throw'),
      (err: Error) => err,
    );
    store.close();
    assert.match(store.failed ?? '', (failsOn ?? refuses)!);
    assert.equal(error.message, 'the first failure', 'not an error the failure caused');
    // Turns of the event loop in which a write still going would send its next statement.
    for (let i = 0; i < 20; i++) await new Promise(setImmediate);
    assert.deepEqual(store.late, []);
  });
}
