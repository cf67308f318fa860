/**
 * ResponseCache alone: when an answer is kept, shared, served and dropped. Most tests admit an
 * answer on its first request (no doorkeeper) to see the rest alone; the doorkeeper's own tests
 * come last.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { READ_MODELS, type AnswerSource, type HeadState } from '../../src/db/read-models.js';
import { entityTag } from '../../src/http/http-caching.js';
import { ResponseCache, type Answer, type CacheEvent } from '../../src/http/response-cache.js';

const SETS: readonly AnswerSource[] = ['referral-sets'];

/** The head at `height`, every read model last changed there unless `versions` says otherwise. */
function at(height: string, versions: Partial<Record<AnswerSource, string>> = {}): HeadState {
  const all = Object.fromEntries(READ_MODELS.map((m) => [m, height])) as Record<AnswerSource, string>;
  return { height, time: `${height}000`, versions: { ...all, ...versions, block: height } };
}

const answerAt = (height: string, text = `body at ${height}`): Answer => ({ body: Buffer.from(text), head: { height, time: '1' } });

function cacheWithLog(maxBytes = 1 << 20, doorkeeper = 0): { cache: ResponseCache; outcomes: CacheEvent[] } {
  const outcomes: CacheEvent[] = [];
  return { cache: new ResponseCache(maxBytes, (o) => outcomes.push(o), doorkeeper), outcomes };
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
  return {
    compute: () => {
      n++;
      return p;
    },
    resolve,
    reject,
    calls: () => n,
  };
}

test('nothing is cached while the head is unknown', async () => {
  const { cache, outcomes } = cacheWithLog();
  await cache.answer('/a', SETS, async () => answerAt('5'));
  await cache.answer('/a', SETS, async () => answerAt('5'));
  assert.deepEqual(outcomes, ['bypass', 'bypass']);
  assert.deepEqual(cache.size, { bytes: 0, entries: 0 });
});

test('an answer of the current head is kept and served until a block changes its model', async () => {
  const { cache, outcomes } = cacheWithLog();
  cache.setHead(at('5'));
  const first = await cache.answer('/a', SETS, async () => answerAt('5'));
  const second = await cache.answer('/a', SETS, async () => assert.fail('computed again'));
  assert.equal(second.body, first.body);
  cache.setHead(at('6'));
  assert.deepEqual(cache.size, { bytes: 0, entries: 0 });
  const third = await cache.answer('/a', SETS, async () => answerAt('6'));
  assert.equal(third.body.toString(), 'body at 6');
  assert.deepEqual(outcomes, ['miss', 'hit', 'miss']);
});

test('an answer read at another height than the current head is not kept', async () => {
  const { cache } = cacheWithLog();
  cache.setHead(at('5'));
  // Read after block 6 committed, before its notice arrived.
  await cache.answer('/a', SETS, async () => answerAt('6'));
  assert.equal(cache.size.entries, 0);
  // Read at 5, while block 6's notice arrived.
  const slow = deferred();
  const pending = cache.answer('/b', SETS, slow.compute);
  cache.setHead(at('6'));
  slow.resolve(answerAt('5'));
  await pending;
  assert.equal(cache.size.entries, 0);
  // An answer without a head (an empty chain) is never kept.
  await cache.answer('/c', SETS, async () => ({ body: Buffer.from('{}'), head: null }));
  assert.equal(cache.size.entries, 0);
});

test('identical requests in flight share one computation; after a new head they do not', async () => {
  const { cache, outcomes } = cacheWithLog();
  cache.setHead(at('5'));
  const d = deferred();
  const a = cache.answer('/a', SETS, d.compute);
  const b = cache.answer('/a', SETS, d.compute);
  cache.setHead(at('6'));
  const d6 = deferred();
  const c = cache.answer('/a', SETS, d6.compute);
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
  cache.setHead(at('5'));
  const d = deferred();
  const a = cache.answer('/a', SETS, d.compute);
  const b = cache.answer('/a', SETS, d.compute);
  d.reject(new Error('store down'));
  await assert.rejects(a, /store down/);
  await assert.rejects(b, /store down/);
  const again = await cache.answer('/a', SETS, async () => answerAt('5'));
  assert.equal(again.body.toString(), 'body at 5');
});

test('bounded: the least recently used entries leave first; an answer bigger than the bound is not kept', async () => {
  const body = 'x'.repeat(300);
  // Each entry: 300 body bytes, 2 × 2 URL bytes, 200 overhead = 504.
  const { cache } = cacheWithLog(3 * 504);
  cache.setHead(at('5'));
  for (const u of ['/a', '/b', '/c']) await cache.answer(u, SETS, async () => answerAt('5', body));
  assert.deepEqual(cache.size, { bytes: 3 * 504, entries: 3 });
  await cache.answer('/a', SETS, async () => assert.fail('/a is cached')); // /a is now the most recent
  await cache.answer('/d', SETS, async () => answerAt('5', body)); // evicts /b
  assert.deepEqual(cache.size, { bytes: 3 * 504, entries: 3 });
  let computed = 0;
  await cache.answer('/b', SETS, async () => {
    computed++;
    return answerAt('5', body);
  });
  assert.equal(computed, 1, '/b was evicted');
  await cache.answer('/big', SETS, async () => answerAt('5', 'y'.repeat(3 * 504)));
  assert.ok(cache.size.bytes <= 3 * 504);
  await cache.answer('/a', SETS, async () => {
    computed++;
    return answerAt('5', body);
  });
  await cache.answer('/d', SETS, async () => {
    computed++;
    return answerAt('5', body);
  });
  assert.equal(computed, 1, '/c left when /b came back; /a and /d stayed');
});

test('a bound of 0 turns the cache off', async () => {
  const { cache, outcomes } = cacheWithLog(0);
  cache.setHead(at('5'));
  await cache.answer('/a', SETS, async () => answerAt('5'));
  await cache.answer('/a', SETS, async () => answerAt('5'));
  assert.deepEqual(outcomes, ['bypass', 'bypass']);
});

test('the gzipped body of a cached answer is made once and counted in its bytes; others are gzipped each time', async () => {
  const body = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ i, id: 'ab'.repeat(32) })));
  const url = '/a';
  const entry = body.length + url.length * 2 + 200;
  const { cache } = cacheWithLog(10 * entry);
  cache.setHead(at('5'));
  const answer = await cache.answer(url, SETS, async () => answerAt('5', body));
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
  tight.setHead(at('5'));
  const kept = await tight.answer(url, SETS, async () => answerAt('5', body));
  assert.deepEqual(tight.size, { bytes: entry, entries: 1 });
  await tight.gzipped(url, kept);
  assert.deepEqual(tight.size, { bytes: 0, entries: 0 });
  cache.setHead(at('6'));
  assert.deepEqual(cache.size, { bytes: 0, entries: 0 });
});

test('entity tags: one per scope, representation and stamp, whatever the URL; a block of the read models makes another', async () => {
  const { cache } = cacheWithLog();
  cache.setHead(at('5'));
  const identity = {};
  const gzip = { 'accept-encoding': 'gzip' };
  const stamp = cache.stampOfAnswer(SETS, await cache.answer('/a', SETS, async () => answerAt('5')))!;
  assert.equal(stamp, '5');
  const tag = entityTag('', stamp, identity);
  assert.match(tag, /^"[\w-]{43}"$/, 'strong, a SHA-256 in base64url');
  assert.equal(entityTag('', stamp, {}), tag, 'made once, the same each time');
  const others = [
    entityTag('', stamp, gzip),
    entityTag('schema', stamp, identity),
    entityTag('', '6', identity),
    entityTag('', '5 6', identity),
  ];
  assert.equal(new Set([tag, ...others]).size, 5, 'each representation, scope and stamp its own');
  cache.setHead(at('6', { 'referral-sets': '6' }));
  const next = cache.stampOfAnswer(SETS, await cache.answer('/a', SETS, async () => answerAt('6', 'new body')))!;
  assert.equal(next, '6');
  assert.equal(entityTag('', next, identity), others[2]);
});

test("stamps follow the head: an answer read at the head has the sources' versions now; one read before is the answer at the head only while its sources did not change since", () => {
  const { cache } = cacheWithLog();
  cache.setHead(at('9', { 'referral-sets': '4', teams: '7' }));
  const both: readonly AnswerSource[] = ['referral-sets', 'teams'];
  assert.equal(cache.stamp(both), '4 7');
  assert.equal(cache.stampOfAnswer(both, answerAt('9')), '4 7');
  assert.equal(cache.stampOfAnswer(both, answerAt('8')), '4 7');
  assert.equal(cache.stampOfAnswer(both, answerAt('6')), undefined, 'teams changed at 7, after it was read');
  assert.equal(cache.stampOfAnswer(both, answerAt('10')), undefined, 'read after the head the process knows');
  cache.setHead(at('10', { 'referral-sets': '10', teams: '7' }));
  assert.equal(cache.stamp(both), '10 7', 'a new head, new stamps');
  assert.equal(cache.stampOfAnswer(both, answerAt('9')), undefined);
  cache.setHead(null);
  assert.equal(cache.stamp(both), undefined);
});

test('a block that changes none of its models keeps an answer, served with the new head', async () => {
  const { cache, outcomes } = cacheWithLog();
  cache.setHead(at('5'));
  const sets = await cache.answer('/sets', SETS, async () => answerAt('5', 'sets'));
  const teams = await cache.answer('/teams', ['team-member-stats', 'chain-head'], async () => answerAt('5', 'teams'));
  // Block 6 changes reward summaries only.
  cache.setHead(
    at('6', { 'referral-sets': '5', 'team-member-stats': '5', 'chain-head': '5', teams: '5', assets: '5', 'game-scopes': '5' }),
  );
  assert.equal(cache.size.entries, 2);
  const again = await cache.answer('/sets', SETS, async () => assert.fail('computed again'));
  assert.equal(again.body, sets.body);
  assert.deepEqual(again.head, { height: '6', time: '6000' });
  // Block 7 ends an epoch: the team answer goes, the referral sets answer stays.
  cache.setHead(at('7', { 'referral-sets': '5', 'team-member-stats': '5', teams: '5', assets: '5', 'game-scopes': '5' }));
  assert.equal(cache.size.entries, 1);
  const recomputed = await cache.answer('/teams', ['team-member-stats', 'chain-head'], async () => answerAt('7', 'teams at 7'));
  assert.notEqual(recomputed.body, teams.body);
  assert.deepEqual((await cache.answer('/sets', SETS, async () => assert.fail('computed again'))).head, { height: '7', time: '7000' });
  assert.deepEqual(outcomes, ['miss', 'miss', 'hit', 'miss', 'hit']);
});

test('an answer showing the chain head is new with every block', async () => {
  const { cache } = cacheWithLog();
  cache.setHead(at('5'));
  await cache.answer('/overview', ['block'], async () => answerAt('5'));
  assert.equal(cache.size.entries, 1);
  cache.setHead(
    at('6', {
      'referral-sets': '5',
      'team-member-stats': '5',
      'chain-head': '5',
      teams: '5',
      assets: '5',
      'game-scopes': '5',
      'epoch-reward-summaries': '5',
    }),
  );
  assert.equal(cache.size.entries, 0);
  // Read at 5 while the head is 6: not the answer at 6, whatever the models say.
  await cache.answer('/overview', ['block'], async () => answerAt('5'));
  assert.equal(cache.size.entries, 0);
});

test('an answer read before the head it arrives at is kept only if its models did not change since', async () => {
  const { cache } = cacheWithLog();
  cache.setHead(at('5'));
  const slow = deferred();
  const slowTeams = deferred();
  const pending = cache.answer('/sets', SETS, slow.compute);
  const pendingTeams = cache.answer('/teams', ['team-member-stats'], slowTeams.compute);
  // Block 6 changes team statistics, and its notice arrives before the answers read at 5.
  cache.setHead(at('6', { 'referral-sets': '5' }));
  slow.resolve(answerAt('5'));
  slowTeams.resolve(answerAt('5'));
  await pending;
  await pendingTeams;
  assert.equal(cache.size.entries, 1);
  await cache.answer('/sets', SETS, async () => assert.fail('/sets is the answer at 6'));
});

test('a request after an unrelated block joins the computation in flight; after a block of its model it does not', async () => {
  const { cache, outcomes } = cacheWithLog();
  cache.setHead(at('5'));
  const d = deferred();
  const a = cache.answer('/sets', SETS, d.compute);
  cache.setHead(at('6', { 'referral-sets': '5' }));
  const b = cache.answer('/sets', SETS, d.compute);
  cache.setHead(at('7'));
  const d7 = deferred();
  const c = cache.answer('/sets', SETS, d7.compute);
  d.resolve(answerAt('5'));
  d7.resolve(answerAt('7'));
  assert.equal(await b, await a);
  assert.equal((await c).body.toString(), 'body at 7');
  assert.deepEqual(outcomes, ['miss', 'shared', 'miss']);
});

test('a head that goes back (another chain) or becomes unknown drops every answer', async () => {
  const { cache } = cacheWithLog();
  cache.setHead(at('5'));
  await cache.answer('/sets', SETS, async () => answerAt('5'));
  cache.setHead(at('4', { 'referral-sets': '5' }));
  assert.equal(cache.size.entries, 0);
  await cache.answer('/sets', SETS, async () => answerAt('4'));
  assert.equal(cache.size.entries, 0, 'read at 4, older than the model version 5');
  cache.setHead(at('6'));
  await cache.answer('/sets', SETS, async () => answerAt('6'));
  cache.setHead(null);
  assert.deepEqual(cache.size, { bytes: 0, entries: 0 });
});

test('a kept body holds memory of its own, not a slice of a pool slab shared with other allocations', async () => {
  const { cache } = cacheWithLog();
  cache.setHead(at('5'));
  const pooled = Buffer.from('{"small":"answer"}'); // under 4 KiB: a slice of Buffer's 8 KiB pool
  assert.ok(pooled.buffer.byteLength > pooled.length);
  await cache.answer('/a', SETS, async () => ({ body: pooled, head: { height: '5', time: '1' } }));
  const hit = await cache.answer('/a', SETS, async () => assert.fail('computed again'));
  assert.deepEqual(hit.body, pooled);
  assert.equal(hit.body.buffer.byteLength, hit.body.length);
});

test('doorkeeper: an answer is kept on its second request, and again at once after a block dropped it', async () => {
  const { cache, outcomes } = cacheWithLog(1 << 20, 4);
  cache.setHead(at('5'));
  await cache.answer('/a', SETS, async () => answerAt('5'));
  assert.equal(cache.size.entries, 0, 'first request: not kept');
  await cache.answer('/a', SETS, async () => answerAt('5'));
  assert.equal(cache.size.entries, 1, 'second request: kept');
  await cache.answer('/a', SETS, async () => assert.fail('computed again'));
  cache.setHead(at('6'));
  await cache.answer('/a', SETS, async () => answerAt('6'));
  assert.equal(cache.size.entries, 1, 'known URL: kept on its first request after the block');
  assert.deepEqual(outcomes, ['miss', 'not-admitted-new', 'miss', 'hit', 'miss']);
});

test('doorkeeper: its window is two generations of its capacity; older URLs must be asked twice again', async () => {
  const { cache, outcomes } = cacheWithLog(1 << 20, 2);
  cache.setHead(at('5'));
  const ask = (u: string) => cache.answer(u, SETS, async () => answerAt('5', u));
  for (const u of ['/a', '/b', '/c', '/d']) await ask(u); // /a and /b: the previous generation; /c, /d: the current
  await ask('/b'); // asked in the previous generation: kept (the current one is full: /c, /d become the previous)
  assert.equal(cache.size.entries, 1);
  for (const u of ['/e', '/f']) await ask(u);
  await ask('/a'); // forgotten: two generations have passed
  assert.equal(cache.size.entries, 1);
  assert.deepEqual(outcomes.filter((o) => o === 'not-admitted-new').length, 7, 'every first request, and /a again');
});

test("doorkeeper: a URL's first request is not offered to identical ones; its second computes once more, and those after it share that", async () => {
  const { cache, outcomes } = cacheWithLog(1 << 20, 4);
  cache.setHead(at('5'));
  const d = deferred();
  const a = cache.answer('/a', SETS, d.compute);
  const b = cache.answer('/a', SETS, d.compute);
  const c = cache.answer('/a', SETS, d.compute);
  d.resolve(answerAt('5'));
  const [x, y, z] = await Promise.all([a, b, c]);
  assert.equal(y, z);
  assert.equal(x.body.toString(), y.body.toString());
  assert.equal(d.calls(), 2);
  assert.equal(cache.size.entries, 1, "the second request's answer is kept");
  assert.deepEqual(outcomes, ['miss', 'not-admitted-new', 'miss', 'shared']);
});

test('doorkeeper, full cache: the least worth (requests per byte) of the least recently used goes, if worth less than the new answer', async () => {
  const body = 'x'.repeat(300);
  // Each entry: 300 body bytes, 2 × 2 URL bytes, 200 overhead = 504.
  const { cache, outcomes } = cacheWithLog(3 * 504, 100);
  cache.setHead(at('5'));
  const ask = (u: string, text = body) => cache.answer(u, SETS, async () => answerAt('5', text));
  for (const u of ['/a', '/b', '/c']) for (let i = 0; i < 2; i++) await ask(u);
  await ask('/b'); // /b: asked 3 times, the most recently used
  assert.deepEqual(cache.size, { bytes: 3 * 504, entries: 3 });
  outcomes.length = 0;
  await ask('/d');
  await ask('/d'); // asked twice, as often as /a and /c: not kept
  await ask('/d'); // asked twice before: still not kept
  assert.deepEqual(outcomes, ['miss', 'not-admitted-new', 'miss', 'not-admitted-crowded', 'miss', 'not-admitted-crowded']);
  await ask('/d'); // 3 times before: /a goes (of the least worth, /a and /c, the least recently used)
  assert.deepEqual(cache.size, { bytes: 3 * 504, entries: 3 });
  await cache.answer('/c', SETS, async () => assert.fail('/c is kept'));
  await cache.answer('/b', SETS, async () => assert.fail('/b is kept'));
  let computed = 0;
  await cache.answer('/a', SETS, async () => {
    computed++;
    return answerAt('5', body);
  });
  assert.equal(computed, 1, '/a went');
});

test('doorkeeper, full cache: a big answer does not push out small ones asked as often', async () => {
  const { cache, outcomes } = cacheWithLog(1200, 100);
  cache.setHead(at('5'));
  const ask = (u: string, n: number) => cache.answer(u, SETS, async () => answerAt('5', 'x'.repeat(n)));
  for (let i = 0; i < 3; i++) await ask('/s', 100); // 304 bytes
  for (let i = 0; i < 3; i++) await ask('/big', 800); // 1,008 bytes: /s would have to go
  assert.deepEqual(cache.size, { bytes: 304, entries: 1 });
  assert.deepEqual(outcomes.slice(-2), ['miss', 'not-admitted-crowded']);
  for (let i = 0; i < 7; i++) await ask('/big', 800); // 9 requests before in 1,008 bytes: not more than 3 in 304
  assert.deepEqual(cache.size, { bytes: 304, entries: 1 });
  await ask('/big', 800); // 10 before: more
  assert.deepEqual(cache.size, { bytes: 1008, entries: 1 });
});

test('doorkeeper, full cache: URLs asked in turn, more than fit, leave the cache holding those it has', async () => {
  // 10 URLs asked round and round, answers of 300 to 399 bytes, room for 6 of them. Each lap then
  // hits the 6 kept, and the other 4 push nothing out: each had been asked as often as those kept
  // (counting its request now, each would push out the next one to be asked: 4 hits a lap).
  const { cache, outcomes } = cacheWithLog(6 * 550, 1000);
  cache.setHead(at('5'));
  const ask = (i: number) => cache.answer(`/u${i}`, SETS, async () => answerAt('5', 'x'.repeat(300 + ((i * 37) % 100))));
  for (let lap = 0; lap < 2; lap++) for (let i = 0; i < 10; i++) await ask(i);
  outcomes.length = 0;
  for (let lap = 0; lap < 4; lap++) for (let i = 0; i < 10; i++) await ask(i);
  assert.equal(outcomes.filter((o) => o === 'hit').length, 24, '6 hits a lap');
  assert.equal(outcomes.filter((o) => o === 'not-admitted-crowded').length, 16, 'the other 4 not kept');
  assert.equal(cache.size.entries, 6);
});
