import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { demoChain, writeDemoChain, type DemoOptions } from '../../src/demo/chain.js';
import { eventFileChunks } from '../../src/demo/evts.js';
import { OTHER_TYPES } from '../../src/demo/other-kinds.js';
import { BlockAssembler } from '../../src/ingest/blocks.js';
import { BinaryDecoder } from '../../src/sources/binary/decoder.js';
import type { DecodedEvent } from '../../src/sources/events.js';
import { NdjsonDecoder } from '../../src/sources/ndjson/decoder.js';
import { PAYLOAD_TYPES as EVENT_TYPES, type PayloadKey } from '../../src/sources/events.js';
import { Rng } from '../../src/demo/random.js';
import { DEMO_SCALES, type DemoScale } from '../../src/demo/scales.js';
import { shiftDecimal } from '../../src/demo/values.js';

/** sha256 of the small chain for seed 1. Changes whenever the generator's output changes. */
const SMALL_SEED1_SHA256 = 'c22f58e5f4ecd898ceee95c5e63b6b8e650e8c6fed2d2bcf8356bdc865f7d6c1';
const SMALL_SEED1_EVENTS = 43_633;
const SMALL_SEED1_BYTES = 30_408_880;

const HEX64 = /^[0-9a-f]{64}$/;
const UPPER_HEX64 = /^[0-9A-F]{64}$/;
const UINT = /^(0|[1-9][0-9]*)$/;
const POSITIVE = /^[1-9][0-9]*$/;
const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/;
const ENVELOPE_KEYS = new Set(['id', 'block', 'type', 'version', 'chainId', 'txHash']);
const TX_KINDS = new Set<PayloadKey>([
  'referralSetCreated',
  'refereeJoinedReferralSet',
  'teamCreated',
  'teamUpdated',
  'refereeJoinedTeam',
  'refereeSwitchedTeam',
  'transfer',
]);
const TWO_64 = 2n ** 64n;

function sha256(opts: DemoOptions): { hash: string; chunks: string[] } {
  const h = createHash('sha256');
  const chunks: string[] = [];
  for (const chunk of demoChain(opts)) {
    h.update(chunk);
    chunks.push(chunk);
  }
  return { hash: h.digest('hex'), chunks };
}

// One generation of small/seed 1 shared by the tests below.
const small = sha256({ scale: 'small', seed: 1 });
const smallLines = small.chunks.join('').split('\n');
assert.equal(smallLines.pop(), '', 'the chain ends with a newline');

interface Parsed {
  line: number;
  key: PayloadKey;
  e: Record<string, unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: the payload is generated JSON that the checks below read field by field, kind by kind
  v: any;
}

function parseAll(lines: string[]): Parsed[] {
  return lines.map((text, i) => {
    const e = JSON.parse(text) as Record<string, unknown>;
    const keys = Object.keys(e).filter((k) => !ENVELOPE_KEYS.has(k));
    assert.equal(keys.length, 1, `line ${i + 1}: exactly one payload key, got ${keys.join(',')}`);
    const key = keys[0] as PayloadKey;
    assert.ok(key in EVENT_TYPES || key in OTHER_TYPES, `line ${i + 1}: known payload key ${key}`);
    return { line: i + 1, key, e, v: e[key] };
  });
}

const all = parseAll(smallLines);
/** The events of our kinds (the other kinds have a test of their own). */
const parsed = all.filter((p) => p.key in EVENT_TYPES);

function count(events: Parsed[], key: PayloadKey): number {
  return events.filter((p) => p.key === key).length;
}

test('small/seed 1 is pinned: same bytes on every run and platform', () => {
  assert.equal(small.hash, SMALL_SEED1_SHA256);
  assert.equal(smallLines.length, SMALL_SEED1_EVENTS);
  assert.equal(Buffer.byteLength(small.chunks.join('')), SMALL_SEED1_BYTES);
});

test('every asset paid in is announced first, by an asset event with its symbol and decimals', () => {
  const announced = parsed.filter((p) => p.key === 'asset');
  assert.equal(announced.length, 6);
  const firstPayout = parsed.findIndex((p) => p.key === 'rewardPayout');
  for (const a of announced) {
    assert.ok(a.line < firstPayout + 1, `asset ${a.v.id} announced before the first payout`);
    assert.equal(a.e.type, 'BUS_EVENT_TYPE_ASSET');
    assert.match(a.v.id, HEX64);
    const details = a.v.details as Record<string, string>;
    assert.match(details.symbol!, /^[A-Z]{4}$/);
    assert.match(details.decimals!, /^(6|8|18)$/);
    assert.match(details.quantum!, /^10*$/);
    assert.equal(a.v.status, 'STATUS_ENABLED');
  }
  const paid = new Set(parsed.filter((p) => p.key === 'rewardPayout').map((p) => p.v.asset));
  assert.deepEqual([...paid].sort(), announced.map((a) => a.v.id).sort());
});

test('same seed gives the same bytes; another seed gives another chain', () => {
  assert.equal(sha256({ scale: 'small', seed: 1 }).hash, small.hash);
  const other = sha256({ scale: 'small', seed: 2 });
  assert.notEqual(other.hash, small.hash);
  // Not just shifted: the ids differ too.
  const firstSet = (chunks: string[]): string => /"setId":"([0-9a-f]{64})"/.exec(chunks.join(''))?.[1] ?? '';
  assert.notEqual(firstSet(other.chunks), firstSet(small.chunks));
  assert.notEqual(sha256({ scale: 'small', seed: -1 }).hash, small.hash);
  assert.notEqual(sha256({ scale: 'small', seed: 2 ** 40 }).hash, small.hash);
});

test('small has the expected order of magnitude and every kind of event', () => {
  assert.ok(parsed.length >= 10_000 && parsed.length <= 20_000, `${parsed.length} events of our kinds`);
  for (const key of Object.keys(EVENT_TYPES) as PayloadKey[]) {
    assert.ok(count(parsed, key) > 0, `has ${key}`);
  }
  const p = DEMO_SCALES.small;
  assert.equal(count(parsed, 'referralSetCreated'), p.referralSets);
  assert.equal(count(parsed, 'refereeJoinedReferralSet'), p.referees + p.refereeSwitches);
  assert.equal(count(parsed, 'teamCreated'), p.teams);
  assert.equal(count(parsed, 'refereeJoinedTeam'), p.teamMembers - p.teams);
  assert.equal(count(parsed, 'teamsStatsUpdated'), p.epochs);
  assert.equal(count(parsed, 'epochEvent'), 2 * p.epochs + 1);
  // The referral program: started, updated, ended; fee statistics per market at every epoch end.
  for (const key of ['referralProgramStarted', 'referralProgramUpdated', 'referralProgramEnded'] as const)
    assert.equal(count(parsed, key), 1, key);
  assert.equal(count(parsed, 'feesStats'), 3 * p.epochs);
});

test('chunks are whole lines and batch many of them', () => {
  for (const chunk of small.chunks) assert.ok(chunk.endsWith('\n'));
  for (const chunk of small.chunks.slice(0, -1)) assert.ok(chunk.length >= 64 * 1024);
});

test('envelopes: ids, block hashes, types, tx hashes', () => {
  for (const { line, key, e } of parsed) {
    assert.equal(e.type, EVENT_TYPES[key], `line ${line}`);
    assert.equal(e.version, 1);
    assert.equal(e.chainId, 'vega-demo-0001');
    assert.match(String(e.id), /^[1-9][0-9]*-(0|[1-9][0-9]*)$/);
    assert.match(String(e.block), UPPER_HEX64);
    if (TX_KINDS.has(key)) assert.match(String(e.txHash), UPPER_HEX64, `line ${line} txHash`);
    else assert.equal(e.txHash, undefined, `line ${line} has no txHash`);
  }
});

test('blocks: beginBlock, timeUpdate, events, endBlock; heights and times increase', () => {
  let height = 0;
  let lastTime = -1n;
  let open: { height: number; hash: string; time: string } | undefined;
  let seq = 0;
  for (const { line, key, e, v } of all) {
    const [h, s] = String(e.id).split('-').map(Number) as [number, number];
    if (key === 'beginBlock') {
      assert.equal(open, undefined, `line ${line}: block opened twice`);
      assert.equal(s, 0);
      assert.equal(h, height + 1, `line ${line}: heights are consecutive`);
      assert.equal(v.height, String(h));
      assert.equal(v.hash, e.block);
      assert.match(v.timestamp, UINT);
      const t = BigInt(v.timestamp);
      assert.ok(t > lastTime, `line ${line}: block times increase`);
      lastTime = t;
      height = h;
      open = { height: h, hash: String(e.block), time: v.timestamp };
      seq = 0;
      continue;
    }
    assert.ok(open, `line ${line}: ${key} outside a block`);
    seq++;
    assert.equal(h, open.height, `line ${line}: height of the open block`);
    assert.equal(s, seq, `line ${line}: sequence in block`);
    assert.equal(e.block, open.hash);
    if (seq === 1) {
      assert.equal(key, 'timeUpdate');
      assert.equal(v.timestamp, open.time);
    }
    if (key === 'endBlock') {
      assert.equal(v.height, String(open.height));
      open = undefined;
    }
  }
  assert.equal(open, undefined, 'last block closed');
  assert.equal(height, new Set(parsed.map((p) => String(p.e.id).split('-')[0])).size);
});

test('other kinds: two thirds of the events, in every block, after the events of ours, as in a real chain', () => {
  const others = all.filter((p) => !(p.key in EVENT_TYPES));
  const skipped = others.length + count(parsed, 'timeUpdate');
  assert.ok(skipped * 3 >= all.length * 2, `${skipped} of ${all.length} events of skipped kinds`);
  for (const key of Object.keys(OTHER_TYPES))
    assert.ok(
      others.some((p) => p.key === key),
      `has ${key}`,
    );
  let ours = true;
  let blocksWithOthers = 0;
  for (const { line, key, e } of all) {
    if (key === 'beginBlock') ours = true;
    else if (key in OTHER_TYPES) {
      if (ours) blocksWithOthers++;
      ours = false;
      assert.equal(e.type, OTHER_TYPES[key], `line ${line}`);
      assert.equal(e.txHash, e.block, `line ${line}`);
    } else if (key !== 'endBlock') assert.ok(ours, `line ${line}: ${key} after the other kinds`);
  }
  assert.ok(blocksWithOthers > count(parsed, 'beginBlock') * 0.9, `${blocksWithOthers} blocks with other kinds`);
});

test('the event file form holds the same blocks, event for event', () => {
  // The binary decoder gives consecutive events of kinds we skip as one run (counted by type):
  // the blocks the two forms give are the same.
  const blocksOf = (decoder: { push(chunk: Buffer): Iterable<DecodedEvent> }, chunks: Iterable<Buffer>) => {
    const assembler = new BlockAssembler();
    const out: string[] = [];
    let events = 0;
    for (const chunk of chunks) {
      for (const e of decoder.push(chunk)) {
        for (const { start: _start, skipped, ...b } of assembler.push(e)) {
          out.push(JSON.stringify({ ...b, skipped: [...skipped] }, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)));
          events += b.events.length + 2 + [...skipped.values()].reduce((a, n) => a + n, 0);
        }
      }
    }
    return { out, events };
  };
  const fromJson = blocksOf(
    new NdjsonDecoder(),
    small.chunks.map((c) => Buffer.from(c)),
  );
  const fromBinary = blocksOf(new BinaryDecoder(), eventFileChunks(small.chunks));
  assert.equal(fromBinary.out.length, 286);
  assert.equal(fromBinary.events, SMALL_SEED1_EVENTS);
  assert.deepEqual(fromBinary.out, fromJson.out);
});

test('blocks hold a realistic number of events', () => {
  let max = 0;
  let n = 0;
  for (const { key } of parsed) {
    n++;
    if (key === 'endBlock') {
      max = Math.max(max, n);
      n = 0;
    }
  }
  assert.ok(max <= DEMO_SCALES.small.payoutsPerBlock + 4, `largest block ${max}`);
});

test('epochs: START, activity, END + teamsStatsUpdated + payouts, in order', () => {
  const E = DEMO_SCALES.small.epochs;
  let epoch = 0;
  let ended = true;
  let statsSeen = false;
  let blockOfEnd = '';
  for (const { line, key, e, v } of parsed) {
    if (key === 'epochEvent') {
      assert.match(v.seq, UINT);
      if (v.action === 'EPOCH_ACTION_START') {
        assert.ok(ended, `line ${line}: previous epoch ended`);
        epoch++;
        assert.equal(v.seq, String(epoch));
        assert.equal(v.endTime, '0');
        assert.ok(BigInt(v.expireTime) > BigInt(v.startTime));
        ended = false;
        statsSeen = false;
      } else {
        assert.equal(v.action, 'EPOCH_ACTION_END');
        assert.equal(v.seq, String(epoch));
        assert.ok(BigInt(v.endTime) >= BigInt(v.expireTime), `line ${line}: ends after expiry`);
        ended = true;
        blockOfEnd = String(e.block);
      }
    } else if (key === 'teamsStatsUpdated') {
      assert.ok(ended && !statsSeen, `line ${line}: one teamsStatsUpdated after END`);
      assert.equal(e.block, blockOfEnd, 'in the END block');
      assert.equal(v.atEpoch, String(epoch));
      statsSeen = true;
    } else if (key === 'rewardPayout') {
      assert.ok(ended && statsSeen, `line ${line}: payouts after END and stats`);
      assert.equal(v.epochSeq, String(epoch));
    } else if (TX_KINDS.has(key)) {
      assert.ok(!ended, `line ${line}: activity inside an epoch`);
      if ('atEpoch' in v) assert.equal(v.atEpoch, String(epoch));
      if (key === 'transfer') assert.equal(v.recurring.startEpoch, String(epoch));
    }
  }
  assert.equal(epoch, E + 1, 'epochs 1..E end and E+1 starts');
  assert.ok(!ended);
});

test('referral sets: ids, ties on createdAt, sub-microsecond digits, joins and moves', () => {
  const sets = new Map<string, string>();
  const refereeSet = new Map<string, string>();
  const createdAt: string[] = [];
  let moves = 0;
  for (const { key, v } of parsed) {
    if (key === 'referralSetCreated') {
      assert.match(v.setId, HEX64);
      assert.match(v.referrer, HEX64);
      assert.match(v.createdAt, UINT);
      assert.equal(v.updatedAt, v.createdAt);
      assert.ok(!sets.has(v.setId));
      sets.set(v.setId, v.referrer);
      createdAt.push(v.createdAt);
    } else if (key === 'refereeJoinedReferralSet') {
      assert.match(v.referee, HEX64);
      assert.ok(sets.has(v.setId), 'joins an existing set');
      assert.match(v.joinedAt, UINT);
      const before = refereeSet.get(v.referee);
      if (before !== undefined) {
        assert.notEqual(before, v.setId, 'a later join moves to another set');
        moves++;
      }
      refereeSet.set(v.referee, v.setId);
    }
  }
  assert.equal(refereeSet.size, DEMO_SCALES.small.referees);
  assert.equal(moves, DEMO_SCALES.small.refereeSwitches);
  assert.ok(new Set(createdAt).size < createdAt.length, 'some sets share createdAt');
  assert.ok(
    createdAt.some((t) => !t.endsWith('000')),
    'some createdAt carry sub-microsecond digits',
  );
  // Popularity is skewed: the biggest set is well above the mean.
  const sizes = new Map<string, number>();
  for (const s of refereeSet.values()) sizes.set(s, (sizes.get(s) ?? 0) + 1);
  assert.ok(Math.max(...sizes.values()) > (3 * refereeSet.size) / sets.size);
});

test('teams: teamsStatsUpdated lists exactly the members the events imply', () => {
  const rosters = new Map<string, Set<string>>();
  const teamOf = new Map<string, string>();
  const creators = new Set<string>();
  let lastSwitch: { party: string; to: string } | undefined;
  let checkedSwitch = 0;
  let leaves = 0;
  const move = (party: string, to: string): void => {
    const from = teamOf.get(party);
    if (from !== undefined) rosters.get(from)?.delete(party);
    teamOf.delete(party);
    if (to !== '') {
      rosters.get(to)?.add(party);
      teamOf.set(party, to);
    }
  };
  for (const { line, key, v } of parsed) {
    switch (key) {
      case 'teamCreated':
        assert.match(v.teamId, HEX64);
        assert.match(v.referrer, HEX64);
        assert.equal(v.closed, false);
        assert.deepEqual(v.allowList, []);
        assert.equal(typeof v.name, 'string');
        assert.ok(!rosters.has(v.teamId));
        rosters.set(v.teamId, new Set());
        creators.add(v.referrer);
        move(v.referrer, v.teamId);
        break;
      case 'teamUpdated':
        assert.ok(rosters.has(v.teamId));
        break;
      case 'refereeJoinedTeam':
        assert.ok(rosters.has(v.teamId), `line ${line}: joins an existing team`);
        assert.equal(teamOf.get(v.referee), undefined, `line ${line}: joiners are new`);
        move(v.referee, v.teamId);
        break;
      case 'refereeSwitchedTeam':
        assert.equal(teamOf.get(v.referee), v.fromTeamId, `line ${line}: switches from its current team`);
        assert.ok(!creators.has(v.referee), 'team creators stay');
        if (v.toTeamId === '') leaves++;
        else {
          assert.ok(rosters.has(v.toTeamId));
          assert.notEqual(v.toTeamId, v.fromTeamId);
          lastSwitch = { party: v.referee, to: v.toTeamId };
        }
        move(v.referee, v.toTeamId);
        break;
      case 'teamsStatsUpdated': {
        const listed = new Map<string, string[]>();
        assert.deepEqual(
          v.stats.map((s: { teamId: string }) => s.teamId),
          [...rosters.keys()],
          `line ${line}: every team, in creation order`,
        );
        for (const s of v.stats) {
          for (const m of s.membersStats) {
            assert.match(m.partyId, HEX64);
            assert.match(m.notionalVolume, UINT);
            listed.set(m.partyId, [...(listed.get(m.partyId) ?? []), s.teamId]);
          }
          const ids = s.membersStats.map((m: { partyId: string }) => m.partyId).sort();
          assert.deepEqual(ids, [...(rosters.get(s.teamId) ?? [])].sort(), `line ${line}: members of ${s.teamId}`);
        }
        if (lastSwitch && teamOf.get(lastSwitch.party) === lastSwitch.to) {
          assert.deepEqual(listed.get(lastSwitch.party), [lastSwitch.to], 'a switched party is only under its new team');
          checkedSwitch++;
        }
        lastSwitch = undefined;
        break;
      }
      default:
    }
  }
  assert.equal(rosters.size, DEMO_SCALES.small.teams);
  assert.ok(checkedSwitch > 0, 'checked at least one switch');
  assert.ok(leaves > 0, 'some members leave every team');
});

test('games: recurring transfers with both scopes, and a scope flip', () => {
  const scope = new Map<string, string>();
  let flips = 0;
  for (const { key, v } of parsed) {
    if (key !== 'transfer') continue;
    for (const f of ['id', 'from', 'to', 'asset', 'gameId']) assert.match(v[f], HEX64, f);
    assert.equal(v.status, 'STATUS_PENDING');
    assert.match(v.amount, POSITIVE);
    assert.match(v.timestamp, UINT);
    const d = v.recurring.dispatchStrategy;
    assert.match(d.assetForMetric, HEX64);
    assert.match(d.metric, /^DISPATCH_METRIC_/);
    assert.ok(d.entityScope === 'ENTITY_SCOPE_TEAMS' || d.entityScope === 'ENTITY_SCOPE_INDIVIDUALS');
    const before = scope.get(v.gameId);
    if (before !== undefined && before !== d.entityScope) flips++;
    scope.set(v.gameId, d.entityScope);
  }
  assert.equal(scope.size, DEMO_SCALES.small.games);
  assert.ok(flips > 0);
  const all = parsed.filter((p) => p.key === 'transfer').map((p) => p.v.recurring.dispatchStrategy.entityScope);
  assert.ok(all.includes('ENTITY_SCOPE_TEAMS') && all.includes('ENTITY_SCOPE_INDIVIDUALS'));
});

test('reward payouts: shapes, large amounts, fractional quantum amounts, game rewards to team members', () => {
  const assets = new Set<string>();
  const types = new Set<string>();
  const teamScoped = new Map<string, boolean>();
  const teamOf = new Map<string, string>();
  let big = 0;
  let fractional = 0;
  let withGame = 0;
  let teamGameToMember = 0;
  let teamGame = 0;
  for (const { key, v } of parsed) {
    if (key === 'transfer') teamScoped.set(v.gameId, v.recurring.dispatchStrategy.entityScope === 'ENTITY_SCOPE_TEAMS');
    else if (key === 'teamCreated') teamOf.set(v.referrer, v.teamId);
    else if (key === 'refereeJoinedTeam') teamOf.set(v.referee, v.teamId);
    else if (key === 'refereeSwitchedTeam') {
      if (v.toTeamId === '') teamOf.delete(v.referee);
      else teamOf.set(v.referee, v.toTeamId);
    } else if (key === 'rewardPayout') {
      assert.match(v.party, HEX64);
      assert.match(v.asset, HEX64);
      assert.match(v.amount, POSITIVE);
      assert.match(v.quantumAmount, DECIMAL);
      assert.match(v.percentOfTotalReward, DECIMAL);
      assert.match(v.timestamp, UINT);
      assert.match(v.lockedUntilEpoch, UINT);
      assert.match(v.rewardType, /^ACCOUNT_TYPE_/);
      // quantumAmount is amount shifted by a power of ten
      assert.equal(v.amount.replace(/0+$/, ''), v.quantumAmount.replace('.', '').replace(/^0+/, '').replace(/0+$/, ''));
      assets.add(v.asset);
      types.add(v.rewardType);
      if (BigInt(v.amount) > TWO_64) big++;
      if (v.quantumAmount.includes('.')) fractional++;
      if (v.gameId !== undefined) {
        assert.match(v.gameId, HEX64);
        assert.ok(teamScoped.has(v.gameId), 'game rewards follow a transfer of the game');
        withGame++;
        if (teamScoped.get(v.gameId)) {
          teamGame++;
          if (teamOf.has(v.party)) teamGameToMember++;
        }
      }
    }
  }
  const payouts = count(parsed, 'rewardPayout');
  assert.ok(assets.size >= 5 && assets.size <= 8, `${assets.size} assets`);
  assert.ok(types.size >= 9, `${types.size} reward types`);
  assert.ok(big > 0 && big < payouts / 2, `${big} amounts above 2^64`);
  assert.ok(fractional > payouts / 4, `${fractional} fractional quantum amounts`);
  assert.ok(withGame > 0 && withGame < payouts / 2, `${withGame} game rewards of ${payouts}`);
  assert.ok(teamGameToMember > 0.9 * teamGame, `${teamGameToMember} of ${teamGame} team-game rewards go to team members`);
  assert.ok(teamGameToMember < teamGame, 'a few team-game rewards go to parties outside teams');
});

test('writeDemoChain writes the same bytes honouring backpressure, and counts them', async () => {
  const h = createHash('sha256');
  let written = 0;
  let newlines = 0;
  const out = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _enc, done) {
      h.update(chunk);
      written += chunk.length;
      for (const b of chunk) if (b === 10) newlines++;
      setImmediate(done); // slow consumer: forces 'drain' waits
    },
  });
  const counts = await writeDemoChain({ scale: 'small', seed: 1 }, out);
  assert.equal(h.digest('hex'), small.hash);
  // One event per line.
  assert.equal(newlines, smallLines.length);
  assert.deepEqual(counts, { events: newlines, bytes: written, blocks: 286, blocksWithOurs: 286 });
});

test('writeDemoChain rejects when the stream fails', async () => {
  const out = new Writable({
    highWaterMark: 1024,
    write(_chunk, _enc, done) {
      done(new Error('disk full'));
    },
  });
  await assert.rejects(writeDemoChain({ scale: 'small', seed: 1 }, out), /disk full/);
});

test('mainnet streams lazily (first chunks come at once) and starts like the others', () => {
  const started = performance.now();
  let n = 0;
  let text = '';
  for (const chunk of demoChain({ scale: 'mainnet', seed: 1 })) {
    if (n === 0) text = chunk;
    if (++n === 20) break;
  }
  // The whole chain (6.3 GB) takes many minutes; its first chunks, a few ms. The bound is loose so
  // that a loaded machine cannot fail it, and still tells a lazy stream from an eager one.
  const ms = performance.now() - started;
  assert.ok(ms < 20_000, `the first 20 chunks took ${ms.toFixed(0)} ms`);
  const first = JSON.parse(text.slice(0, text.indexOf('\n')));
  assert.equal(first.id, '1-0');
  assert.equal(first.beginBlock.height, '1');
});

test('bad options are refused', () => {
  assert.throws(() => demoChain({ scale: 'huge' as DemoScale, seed: 1 }).next(), /unknown demo scale/);
  assert.throws(() => demoChain({ scale: 'constructor' as DemoScale, seed: 1 }).next(), /unknown demo scale/);
  assert.throws(() => demoChain({ scale: 'small', seed: 2 ** 53 }).next(), /safe integer/);
  assert.throws(() => demoChain({ scale: 'small', seed: 1.5 }).next(), /safe integer/);
});

test('scales carry the numbers of the issue', () => {
  const pick = (s: DemoScale) => {
    const p = DEMO_SCALES[s];
    return [p.epochs, p.referralSets, p.referees, p.teams, p.teamMembers];
  };
  assert.deepEqual(pick('small'), [20, 50, 400, 12, 150]);
  assert.deepEqual(pick('medium'), [200, 2_000, 20_000, 200, 5_000]);
  assert.deepEqual(pick('mainnet'), [1_000, 20_000, 200_000, 2_000, 50_000]);
});

test('random helpers are deterministic and canonical', () => {
  const a = new Rng(7);
  const b = new Rng(7);
  const xs = Array.from({ length: 5 }, () => a.u32());
  assert.deepEqual(
    xs,
    Array.from({ length: 5 }, () => b.u32()),
  );
  const c = new Rng(8);
  assert.notDeepEqual(
    xs,
    Array.from({ length: 5 }, () => c.u32()),
  );
  assert.equal(shiftDecimal('12500000000000000000', 18), '12.5');
  assert.equal(shiftDecimal('49999', 5), '0.49999');
  assert.equal(shiftDecimal('3000000', 6), '3');
  assert.equal(shiftDecimal('7', 3), '0.007');
  assert.equal(shiftDecimal('123', 0), '123');
});

/** The whole blocks of the chain's first `chunks` chunks, its lines grouped by the height their id starts with. */
function firstBlocks(opts: DemoOptions, chunks: number): { height: number; events: Parsed[] }[] {
  const lines: string[] = [];
  for (const chunk of demoChain(opts)) {
    lines.push(...chunk.split('\n').slice(0, -1));
    if (--chunks === 0) break;
  }
  const out: { height: number; events: Parsed[] }[] = [];
  for (const p of parseAll(lines)) {
    const height = Number(String(p.e.id).split('-')[0]);
    if (out[out.length - 1]?.height !== height) out.push({ height, events: [] });
    out[out.length - 1]!.events.push(p);
  }
  // The last block may go on in the next chunk.
  return out.slice(0, -1);
}

const isOurs = (p: Parsed) => p.key in EVENT_TYPES && !['beginBlock', 'endBlock', 'timeUpdate'].includes(p.key);

/** Other kinds per block without events of ours. */
const quietOthers = (blocks: { events: Parsed[] }[]) => {
  const quiet = blocks.filter((b) => !b.events.some(isOurs));
  return quiet.reduce((n, b) => n + b.events.length - 3, 0) / quiet.length;
};

test('--our-share: that share of the blocks carry events of ours, at every point of the chain; the others are quiet; the events of ours are the same', async () => {
  const share = 0.059;
  // The first quarter of the chain (the whole one is checked by the counts of writeDemoChain below).
  const blocks = firstBlocks({ scale: 'small', seed: 1, ourShare: share }, 160);
  assert.ok(blocks.length > 1000, String(blocks.length));
  let withOurs = 0;
  for (const [i, b] of blocks.entries()) {
    assert.equal(b.height, i + 1, 'consecutive heights');
    const keys = b.events.map((p) => p.key);
    assert.deepEqual([keys[0], keys[1], keys[keys.length - 1]], ['beginBlock', 'timeUpdate', 'endBlock']);
    if (b.events.some(isOurs)) withOurs++;
    else
      assert.ok(
        keys.slice(2, -1).every((k) => k in OTHER_TYPES),
        `block ${b.height}: quiet, other kinds only`,
      );
    // ⌈blocks · share⌉ of the blocks so far carry events of ours: the first does.
    assert.equal(withOurs, Math.ceil((i + 1) * share - 1e-9), `after block ${b.height}`);
  }
  const times = blocks.map((b) => BigInt(b.events[0]!.v.timestamp as string));
  for (let i = 1; i < times.length; i++) assert.ok(times[i]! > times[i - 1]!, `block ${i + 1}'s time after the one before`);
  // The events of ours (and their blocks' times) are those of the chain without quiet blocks.
  const ours = (bs: { events: Parsed[] }[]) =>
    bs.filter((b) => b.events.some(isOurs)).map((b) => JSON.stringify([b.events[0]!.v.timestamp, b.events.filter(isOurs).map((p) => p.v)]));
  const withoutQuiet = ours(firstBlocks({ scale: 'small', seed: 1 }, 200));
  assert.deepEqual(ours(blocks), withoutQuiet.slice(0, withOurs));
  // The real fixture's other kinds per block by default.
  assert.ok(Math.abs(quietOthers(blocks) - 3.25) < 0.25, String(quietOthers(blocks)));
  // The whole chain, the same for the same seed.
  const sink = () => new Writable({ write: (_c, _e, done) => done() });
  const counts = await writeDemoChain({ scale: 'small', seed: 1, ourShare: share }, sink());
  assert.deepEqual(counts, { events: 71_992, bytes: 42_611_151, blocks: 4831, blocksWithOurs: 286 });
  assert.equal(286, Math.ceil(4831 * share));
});

test('--other-events: the mean of other kinds per block, besides those that come with events of ours', () => {
  assert.ok(Math.abs(quietOthers(firstBlocks({ scale: 'small', seed: 2, ourShare: 0.1, otherEvents: 40 }, 60)) - 40) < 3);
  assert.equal(quietOthers(firstBlocks({ scale: 'small', seed: 2, ourShare: 0.1, otherEvents: 0 }, 20)), 0);
});
