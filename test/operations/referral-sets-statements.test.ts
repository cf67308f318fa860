/**
 * ListReferralSets' statement texts are made once per shape and reused (referralSetsPage): for
 * every shape, with values that share placeholders and values that do not, the reused text and
 * parameters must be exactly those made afresh.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PageRequest } from '../../src/pagination/page.js';
import type { PositionOf } from '../../src/contract/message.js';
import type { REFERRAL_SET_CURSOR } from '../../src/operations/referral-sets/message.js';
import { referralSetsPage, referralSetsPageAfresh, type SetFilter } from '../../src/operations/referral-sets/sql.js';

type Position = PositionOf<typeof REFERRAL_SET_CURSOR>;

const id = (n: number) => n.toString(16).padStart(64, '0');

test('a reused statement is the one made afresh, for every filter, cursor, direction, order and shared value', () => {
  let checked = 0;
  for (const round of [1, 2, 3]) {
    // Each round other values, so rounds 2 and 3 reuse what round 1 made.
    const a = id(round * 10 + 1);
    const b = id(round * 10 + 2);
    const filters: SetFilter[] = [null, { setId: a }, { referrer: a }, { referee: a }];
    for (const filter of filters) {
      for (const limit of [1, 50, 1000]) {
        const cursors: (Position | null)[] = [
          null,
          { createdAt: 1_700_000_000_000_000_000n + BigInt(round), id: b },
          { createdAt: 1_700_000_000_000_000_000n, id: a }, // the filter's id again
          { createdAt: BigInt(limit + 1), id: b }, // the row limit's value
        ];
        for (const cursor of cursors) {
          for (const direction of ['forward', 'backward'] as const) {
            for (const newestFirst of [true, false]) {
              const req: PageRequest<Position> = { direction, limit, cursor, newestFirst };
              const reused = referralSetsPage(filter, req);
              const afresh = referralSetsPageAfresh(filter, req);
              assert.deepEqual(
                reused.sql,
                afresh.sql,
                JSON.stringify({ filter, req }, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
              );
              assert.deepEqual(reused.params.values, afresh.params.values);
              checked++;
            }
          }
        }
      }
    }
  }
  assert.equal(checked, 3 * 4 * 3 * 4 * 2 * 2);
});
