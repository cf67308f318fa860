/** LogThrottle: a bounded number of lines per window, then one summary of the rest. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { LogThrottle } from '../../src/sources/broker/log-throttle.js';

test("up to N lines per window pass; the rest are counted in one summary at the window's end", async () => {
  const summaries: number[] = [];
  const throttle = new LogThrottle(3, 200, (n) => summaries.push(n));
  const t0 = Date.now();
  const passed = Array.from({ length: 8 }, () => throttle.admit(t0));
  assert.deepEqual(passed, [true, true, true, false, false, false, false, false]);
  assert.deepEqual(summaries, [], 'not before the window ends');
  await sleep(300);
  assert.deepEqual(summaries, [5], 'at the end of the window, by its timer');
  // A new window lets lines through again; its summary comes when the next window opens.
  assert.deepEqual(
    [throttle.admit(t0 + 1000), throttle.admit(t0 + 1000), throttle.admit(t0 + 1000), throttle.admit(t0 + 1000)],
    [true, true, true, false],
  );
  assert.equal(throttle.admit(t0 + 1200), true);
  assert.deepEqual(summaries, [5, 1]);
  // flush (at shutdown) writes what is counted, once.
  for (let i = 0; i < 4; i++) throttle.admit(t0 + 1300);
  throttle.flush();
  throttle.flush();
  assert.deepEqual(summaries, [5, 1, 2]);
});
