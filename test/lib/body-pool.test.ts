/** The pool of answer bodies (src/lib/body-pool.ts); its use by real answers: test/http/row-cache.test.ts. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { answerReply } from '../../src/http/api-answer.js';
import { answerBodies, BodyPool } from '../../src/lib/body-pool.js';
import { gzipAsync } from '../../src/http/compression.js';

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

test('a pooled body gzipped for its reply goes back to the pool once its gzipped copy is made', async () => {
  const body = answerBodies.alloc(100_000).fill(0x61);
  const reply = await answerReply(200, { body, head: null }, undefined, { 'accept-encoding': 'gzip' }, (a) => gzipAsync(a.body));
  assert.equal(reply.headers['content-encoding'], 'gzip');
  assert.deepEqual(gunzipSync(reply.body), Buffer.alloc(100_000, 0x61));
  assert.equal(answerBodies.owns(body), false, 'released');
  const plain = answerBodies.alloc(100_000);
  const sent = await answerReply(200, { body: plain, head: null }, undefined, {}, (a) => gzipAsync(a.body));
  assert.equal(sent.body, plain);
  assert.equal(answerBodies.owns(plain), true, 'an uncompressed body is released once sent, not before');
});
