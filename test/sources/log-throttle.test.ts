/** LogThrottle: a bounded number of lines per window, then one summary of the rest (a fake clock: no waiting). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LogThrottle } from '../../src/sources/broker/log-throttle.js';

test("up to N lines per window pass; the rest are counted in one summary at the window's end", (t) => {
  t.mock.timers.enable({ apis: ['Date', 'setTimeout'], now: 1_000_000 });
  const summaries: number[] = [];
  const throttle = new LogThrottle(3, 200, (n) => summaries.push(n));
  const passed = Array.from({ length: 8 }, () => throttle.admit());
  assert.deepEqual(passed, [true, true, true, false, false, false, false, false]);
  t.mock.timers.tick(199);
  assert.deepEqual(summaries, [], 'not before the window ends');
  t.mock.timers.tick(1);
  assert.deepEqual(summaries, [5], 'at the end of the window, by its timer');
  // A new window lets lines through again; its summary comes when the next window opens.
  t.mock.timers.tick(800);
  assert.deepEqual([throttle.admit(), throttle.admit(), throttle.admit(), throttle.admit()], [true, true, true, false]);
  t.mock.timers.tick(150);
  assert.equal(throttle.admit(), false, 'the same window');
  t.mock.timers.tick(50);
  assert.deepEqual(summaries, [5, 2]);
  assert.equal(throttle.admit(), true);
  // flush (at shutdown) writes what is counted, once.
  for (let i = 0; i < 4; i++) throttle.admit();
  throttle.flush();
  throttle.flush();
  assert.deepEqual(summaries, [5, 2, 2]);
});
