/** ResponseCache alone: when an answer is kept, shared, served and dropped. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { ResponseCache, type Answer, type CacheOutcome } from '../../src/http/response-cache.js';

const answerAt = (height: string, text = `body at ${height}`): Answer => ({ body: Buffer.from(text), head: { height, time: '1' } });

function cacheWithLog(maxBytes = 1 << 20): { cache: ResponseCache; outcomes: CacheOutcome[] } {
  const outcomes: CacheOutcome[] = [];
  return { cache: new ResponseCache(maxBytes, (o) => outcomes.push(o)), outcomes };
}

/** A compute() the test resolves by hand. */
function deferred(): { compute: () => Promise<Answer>; resolve(a: Answer): void; reject(e: Error): void; calls: () => number } {
  let n = 0;
  let resolve!: (a: Answer) => void;
  let reject!: (e: Error) => void;
  const p = new Promise<Answer>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { compute: () => (n++, p), resolve, reject, calls: () => n };
}

test('nothing is cached while the head is unknown', async () => {
  const { cache, outcomes } = cacheWithLog();
  await cache.answer('/a', async () => answerAt('5'));
  await cache.answer('/a', async () => answerAt('5'));
  assert.deepEqual(outcomes, ['bypass', 'bypass']);
  assert.deepEqual(cache.size, { bytes: 0, entries: 0 });
});

test('an answer of the current head is kept and served until the head moves', async () => {
  const { cache, outcomes } = cacheWithLog();
  cache.setHead('5');
  const first = await cache.answer('/a', async () => answerAt('5'));
  const second = await cache.answer('/a', async () => assert.fail('computed again'));
  assert.equal(second, first);
  cache.setHead('6');
  assert.deepEqual(cache.size, { bytes: 0, entries: 0 });
  const third = await cache.answer('/a', async () => answerAt('6'));
  assert.equal(third.body.toString(), 'body at 6');
  assert.deepEqual(outcomes, ['miss', 'hit', 'miss']);
});

test('an answer read at another height than the current head is not kept', async () => {
  const { cache } = cacheWithLog();
  cache.setHead('5');
  // Read after block 6 committed, before its notice arrived.
  await cache.answer('/a', async () => answerAt('6'));
  assert.equal(cache.size.entries, 0);
  // Read at 5, while block 6's notice arrived.
  const slow = deferred();
  const pending = cache.answer('/b', slow.compute);
  cache.setHead('6');
  slow.resolve(answerAt('5'));
  await pending;
  assert.equal(cache.size.entries, 0);
  // An answer without a head (an empty chain) is never kept.
  await cache.answer('/c', async () => ({ body: Buffer.from('{}'), head: null }));
  assert.equal(cache.size.entries, 0);
});

test('identical requests in flight share one computation; after a new head they do not', async () => {
  const { cache, outcomes } = cacheWithLog();
  cache.setHead('5');
  const d = deferred();
  const a = cache.answer('/a', d.compute);
  const b = cache.answer('/a', d.compute);
  cache.setHead('6');
  const d6 = deferred();
  const c = cache.answer('/a', d6.compute);
  d.resolve(answerAt('5'));
  d6.resolve(answerAt('6'));
  assert.equal((await a).body.toString(), 'body at 5');
  assert.equal(await b, await a);
  assert.equal((await c).body.toString(), 'body at 6');
  assert.equal(d.calls() + d6.calls(), 2);
  assert.deepEqual(outcomes, ['miss', 'shared', 'miss']);
});

test('a failure is shared by the requests waiting on it and not kept', async () => {
  const { cache } = cacheWithLog();
  cache.setHead('5');
  const d = deferred();
  const a = cache.answer('/a', d.compute);
  const b = cache.answer('/a', d.compute);
  d.reject(new Error('store down'));
  await assert.rejects(a, /store down/);
  await assert.rejects(b, /store down/);
  const again = await cache.answer('/a', async () => answerAt('5'));
  assert.equal(again.body.toString(), 'body at 5');
});

test('bounded: the least recently used entries leave first; an answer bigger than the bound is not kept', async () => {
  const body = 'x'.repeat(300);
  // Each entry: 300 body bytes, 2 × 2 URL bytes, 200 overhead = 504.
  const { cache } = cacheWithLog(3 * 504);
  cache.setHead('5');
  for (const u of ['/a', '/b', '/c']) await cache.answer(u, async () => answerAt('5', body));
  assert.deepEqual(cache.size, { bytes: 3 * 504, entries: 3 });
  await cache.answer('/a', async () => assert.fail('/a is cached')); // /a is now the most recent
  await cache.answer('/d', async () => answerAt('5', body)); // evicts /b
  assert.deepEqual(cache.size, { bytes: 3 * 504, entries: 3 });
  let computed = 0;
  await cache.answer('/b', async () => (computed++, answerAt('5', body)));
  assert.equal(computed, 1, '/b was evicted');
  await cache.answer('/big', async () => answerAt('5', 'y'.repeat(3 * 504)));
  assert.ok(cache.size.bytes <= 3 * 504);
  await cache.answer('/a', async () => (computed++, answerAt('5', body)));
  await cache.answer('/d', async () => (computed++, answerAt('5', body)));
  assert.equal(computed, 1, '/c left when /b came back; /a and /d stayed');
});

test('a bound of 0 turns the cache off', async () => {
  const { cache, outcomes } = cacheWithLog(0);
  cache.setHead('5');
  await cache.answer('/a', async () => answerAt('5'));
  await cache.answer('/a', async () => answerAt('5'));
  assert.deepEqual(outcomes, ['bypass', 'bypass']);
});

test('the gzipped body of a cached answer is made once and counted in its bytes; others are gzipped each time', async () => {
  const body = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ i, id: 'ab'.repeat(32) })));
  const url = '/a';
  const entry = body.length + url.length * 2 + 200;
  const { cache } = cacheWithLog(10 * entry);
  cache.setHead('5');
  const answer = await cache.answer(url, async () => answerAt('5', body));
  const gz = await cache.gzipped(url, answer);
  assert.equal(gunzipSync(gz).toString(), body);
  assert.ok(gz.length < body.length / 4, `${gz.length} bytes gzipped`);
  assert.deepEqual(cache.size, { bytes: entry + gz.length, entries: 1 });
  assert.equal(await cache.gzipped(url, answer), gz, 'the same buffer: made once');
  assert.deepEqual(cache.size, { bytes: entry + gz.length, entries: 1 });

  // An answer that is not the cached one for its URL is gzipped afresh and not counted.
  const other = answerAt('5', body);
  const gz2 = await cache.gzipped(url, other);
  assert.notEqual(gz2, gz);
  assert.deepEqual(gz2, gz);
  assert.deepEqual(cache.size, { bytes: entry + gz.length, entries: 1 });

  // Its bytes leave with the entry, and count towards the bound: here they push /a out.
  const tight = cacheWithLog(entry + 10).cache;
  tight.setHead('5');
  const kept = await tight.answer(url, async () => answerAt('5', body));
  assert.deepEqual(tight.size, { bytes: entry, entries: 1 });
  await tight.gzipped(url, kept);
  assert.deepEqual(tight.size, { bytes: 0, entries: 0 });
  cache.setHead('6');
  assert.deepEqual(cache.size, { bytes: 0, entries: 0 });
});
