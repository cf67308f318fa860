/** The pool of answer bodies (src/http/body-pool.ts); its use by real answers: test/http/row-cache.test.ts. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BodyPool } from '../../src/http/body-pool.js';

test('a body comes back once, after it is sent, and serves a later one of a size that fits', () => {
  const pool = new BodyPool(2 ** 20);
  const small = pool.alloc(1000);
  assert.equal(small.length, 1000);
  assert.equal(pool.owns(small), false, 'small bodies are not pooled');
  const a = pool.alloc(300_000);
  assert.deepEqual([a.length, a.buffer.byteLength, pool.owns(a)], [300_000, 2 ** 19, true]);
  const b = pool.alloc(300_000);
  assert.notEqual(b.buffer, a.buffer, 'a body lent is not lent again');
  pool.release(a);
  assert.equal(pool.owns(a), false);
  pool.release(a); // a second release is ignored: the slab is free once
  const c = pool.alloc(400_000);
  const d = pool.alloc(400_000);
  assert.equal(c.buffer, a.buffer, 'the free slab serves the next body that fits');
  assert.notEqual(d.buffer, a.buffer);
  assert.equal(pool.alloc(600_000).buffer.byteLength, 2 ** 20, 'a larger one gets a slab of its own');
  pool.release(Buffer.alloc(100_000)); // not the pool's: left alone
  assert.equal(pool.owns(pool.alloc(100_000)), true);
});

test('free slabs are bounded: past the bound a body goes back to the garbage collector', () => {
  const pool = new BodyPool(2 ** 19);
  const [a, b] = [pool.alloc(2 ** 19), pool.alloc(2 ** 19)];
  pool.release(a);
  pool.release(b);
  assert.equal(pool.alloc(2 ** 19).buffer, a.buffer);
  assert.notEqual(pool.alloc(2 ** 19).buffer, b.buffer, 'b was not kept');
});
