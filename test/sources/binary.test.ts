import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeBusEvent } from '../../src/sources/binary/decode-event.js';
import { BinaryDecoder } from '../../src/sources/binary/decoder.js';
import { encodeBusEvent, eventRecord } from '../../src/sources/binary/encode-event.js';
import { EventRecordReader } from '../../src/sources/binary/records.js';
import { WireWriter } from '../../src/lib/wire.js';
import type { DecodedEvent } from '../../src/sources/events.js';
import { InputError } from '../../src/sources/input-error.js';
import { decodeLine } from '../../src/sources/ndjson/decode-line.js';
import { comparable, decodeAll } from '../helpers/binary-events.js';
import { payout } from '../helpers/events.js';

const hex = (n: number) => n.toString(16).padStart(64, '0');

/** Events in their JSON form covering every payload of our schema, defaults, optionals, negatives. */
const JSON_EVENTS: Record<string, unknown>[] = (<Record<string, unknown>[]>[
  {
    id: '7-0',
    block: 'AB',
    type: 'BUS_EVENT_TYPE_BEGIN_BLOCK',
    version: 1,
    chainId: 'c',
    beginBlock: { height: '7', timestamp: '1700000000000000000', hash: 'ab' },
  },
  { id: '7-1', type: 'BUS_EVENT_TYPE_TIME_UPDATE', timeUpdate: { timestamp: '1700000000000000000' } },
  {
    id: '7-2',
    type: 'BUS_EVENT_TYPE_EPOCH_UPDATE',
    epochEvent: { seq: '0', action: 'EPOCH_ACTION_END', startTime: '1', expireTime: '2', endTime: '-6795364578871345152' },
  },
  {
    id: '7-3',
    type: 'BUS_EVENT_TYPE_REFERRAL_SET_CREATED',
    referralSetCreated: { setId: hex(1), referrer: hex(2), createdAt: '5', updatedAt: '0' },
  },
  {
    id: '7-4',
    type: 'BUS_EVENT_TYPE_REFEREE_JOINED_REFERRAL_SET',
    refereeJoinedReferralSet: { setId: hex(1), referee: hex(3), joinedAt: '6', atEpoch: '9223372036854775806' },
  },
  {
    id: '7-5',
    type: 'BUS_EVENT_TYPE_TEAM_CREATED',
    teamCreated: {
      teamId: hex(4),
      referrer: hex(2),
      name: 'Ü team',
      teamUrl: '',
      createdAt: '7',
      closed: true,
      atEpoch: '1',
      allowList: [hex(3), hex(5)],
    },
  },
  {
    id: '7-6',
    type: 'BUS_EVENT_TYPE_TEAM_UPDATED',
    teamUpdated: { teamId: hex(4), name: 'n', avatarUrl: 'https://a', closed: false, allowList: [] },
  },
  {
    id: '7-7',
    type: 'BUS_EVENT_TYPE_REFEREE_JOINED_TEAM',
    refereeJoinedTeam: { teamId: hex(4), referee: hex(3), joinedAt: '8', atEpoch: '2' },
  },
  {
    id: '7-8',
    type: 'BUS_EVENT_TYPE_REFEREE_SWITCHED_TEAM',
    refereeSwitchedTeam: { fromTeamId: hex(4), toTeamId: '', referee: hex(3), switchedAt: '9', atEpoch: '2' },
  },
  {
    id: '7-9',
    type: 'BUS_EVENT_TYPE_TEAMS_STATS_UPDATED',
    teamsStatsUpdated: {
      atEpoch: '2',
      stats: [
        {
          teamId: hex(4),
          membersStats: [
            { partyId: hex(3), notionalVolume: '12' },
            { partyId: hex(2), notionalVolume: '-1' },
          ],
        },
        { teamId: hex(6) },
      ],
    },
  },
  {
    id: '7-10',
    type: 'BUS_EVENT_TYPE_TRANSFER',
    transfer: {
      id: hex(9),
      status: 'STATUS_DONE',
      timestamp: '3',
      gameId: hex(8),
      recurring: { dispatchStrategy: { entityScope: 'ENTITY_SCOPE_TEAMS' } },
    },
  },
  { id: '7-11', type: 'BUS_EVENT_TYPE_TRANSFER', transfer: { id: hex(9), recurring: {} } },
  {
    id: '7-20',
    type: 'BUS_EVENT_TYPE_TRANSFER',
    transfer: { id: hex(11), gameId: hex(12), recurringGovernance: { dispatchStrategy: { entityScope: 'ENTITY_SCOPE_TEAMS' } } },
  },
  {
    id: '7-12',
    type: 'BUS_EVENT_TYPE_REWARD_PAYOUT_EVENT',
    rewardPayout: {
      party: hex(3),
      epochSeq: '2',
      asset: hex(7),
      amount: '123456789012345678901234567890',
      percentOfTotalReward: '0.5',
      timestamp: '4',
      rewardType: 'ACCOUNT_TYPE_GLOBAL_REWARD',
      quantumAmount: '2.5',
      gameId: hex(8),
    },
  },
  {
    id: '7-13',
    type: 'BUS_EVENT_TYPE_ASSET',
    asset: { id: 'VOTE', details: { name: 'VOTE', symbol: 'VOTE', decimals: '18', quantum: '1' }, status: 'STATUS_ENABLED' },
  },
  {
    id: '7-14',
    type: 'BUS_EVENT_TYPE_MARKET_DATA',
    marketData: { market: hex(10), markPrice: '100', n: 3, flag: true, depth: [{ p: '1' }, { p: '2' }] },
  },
  { id: '7-15', type: 'BUS_EVENT_TYPE_END_BLOCK', endBlock: { height: '7' } },
]).map((e) => ({ version: 1, ...e }));
const OTHERS = new Map([['marketData', { field: 111 }]]);

test('events encoded with our schema decode to what their JSON form decodes to', () => {
  const bytes = Buffer.concat(JSON_EVENTS.map((e, i) => eventRecord(BigInt(i), encodeBusEvent(e, OTHERS))));
  const binary = decodeAll(bytes);
  const json = JSON_EVENTS.flatMap((e, i) => decodeLine(JSON.stringify(e), i + 1));
  assert.deepEqual(binary.map(comparable), json.map(comparable));
  assert.equal(binary[15]!.body.kind, 'skipped');
  assert.deepEqual(binary[15]!.body, { kind: 'skipped', type: 'BUS_EVENT_TYPE_MARKET_DATA' });
  // A governance recurring transfer does not scope its game (see the next test for its bytes).
  assert.deepEqual(binary[12]!.body, { kind: 'transfer', gameId: hex(12), recurringTeamScoped: null });
  assert.equal(binary[1]!.timeUpdate, 1700000000000000000n);
});

test('a governance recurring transfer (field 104, its strategy at field 3) scopes no game, as in the data-node; a recurring one (102, at 4) does', () => {
  /** A transfer of game hex(12) whose kind (field `kindField`) holds a team-scoped dispatch strategy at `strategyField`. */
  const transfer = (kindField: number, strategyField: number) => {
    const strategy = new WireWriter();
    strategy.varintField(4, 2); // entity_scope: ENTITY_SCOPE_TEAMS
    const kind = new WireWriter();
    kind.bytesField(strategyField, strategy.finish());
    const payload = new WireWriter();
    payload.stringField(1, hex(11));
    payload.stringField(12, hex(12));
    payload.bytesField(kindField, kind.finish());
    const w = new WireWriter();
    w.stringField(1, '7-1');
    w.varintField(3, 40); // BUS_EVENT_TYPE_TRANSFER
    w.varintField(4, 1);
    w.bytesField(139, payload.finish());
    const bytes = w.finish();
    return decodeBusEvent(bytes, 0, bytes.length, { offset: 0 }).body;
  };
  assert.deepEqual(transfer(102, 4), { kind: 'transfer', gameId: hex(12), recurringTeamScoped: true });
  assert.deepEqual(transfer(104, 3), { kind: 'transfer', gameId: hex(12), recurringTeamScoped: null });
  // The JSON form alike.
  const json = (kind: string) =>
    decodeLine(
      JSON.stringify({
        id: '7-1',
        transfer: { id: hex(11), gameId: hex(12), [kind]: { dispatchStrategy: { entityScope: 'ENTITY_SCOPE_TEAMS' } } },
      }),
      1,
    )[0]!.body;
  assert.deepEqual(json('recurring'), { kind: 'transfer', gameId: hex(12), recurringTeamScoped: true });
  assert.deepEqual(json('recurringGovernance'), { kind: 'transfer', gameId: hex(12), recurringTeamScoped: null });
});

test('records come out whole however the bytes are cut: inside the size, the sequence, the body', () => {
  const bytes = Buffer.concat(JSON_EVENTS.map((e, i) => eventRecord(BigInt(i), encodeBusEvent(e, OTHERS))));
  const whole = decodeAll(bytes).map((e) => `${e.at && 'offset' in e.at ? e.at.offset : ''} ${comparable(e)}`);
  for (const size of [1, 2, 3, 5, 11, 13, 64]) {
    assert.deepEqual(
      decodeAll(bytes, size).map((e) => `${'offset' in e.at ? e.at.offset : ''} ${comparable(e)}`),
      whole,
      `chunks of ${size}`,
    );
  }
  // A partial record waits: pushing it yields nothing until the rest comes.
  const reader = new EventRecordReader();
  assert.deepEqual([...reader.push(bytes.subarray(0, 2))], []);
  assert.deepEqual([...reader.push(bytes.subarray(2, 20))], []);
  assert.equal(reader.pendingBytes, 20);
  assert.equal([...reader.push(bytes.subarray(20))].length, JSON_EVENTS.length);
  assert.equal(reader.position, bytes.length);
});

test('unknown fields are skipped, in the envelope and in payloads', () => {
  const payload = new WireWriter();
  payload.varintField(99, 5n); // unknown varint
  payload.stringField(1, hex(1));
  payload.stringField(50, 'ignored');
  payload.stringField(2, hex(2));
  payload.varintField(3, -5n);
  const event = new WireWriter();
  event.stringField(1, '3-1');
  event.varintField(3, 70);
  event.varintField(4, 1);
  event.stringField(77, 'a newer envelope field');
  event.bytesField(168, payload.finish());
  const bytes = event.finish();
  const decoded = decodeBusEvent(bytes, 0, bytes.length, { offset: 0 });
  assert.deepEqual(decoded.body, { kind: 'referralSetCreated', setId: hex(1), referrer: hex(2), createdAt: -5n, updatedAt: 0n });
  assert.equal(decoded.height, 3n);
});

function inputError(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    assert.ok(err instanceof InputError, String(err));
    return err.message;
  }
  assert.fail('no error');
}

test('bad bytes: clear errors naming the byte offset, the event and the field', () => {
  const decode = (bytes: Buffer) => decodeBusEvent(bytes, 0, bytes.length, { offset: 40 });
  const good = encodeBusEvent(JSON_EVENTS[3]!);
  assert.match(
    inputError(() => decode(good.subarray(0, good.length - 3))),
    /^byte 40, event 7-3: not a protobuf BusEvent \(length \d+ at byte \d+ runs past the end of the message\)$/,
  );
  assert.equal(
    inputError(() => decode(encodeBusEvent({ ...JSON_EVENTS[3]!, referralSetCreated: { setId: 'zz', referrer: hex(2) } }))),
    'byte 40, event 7-3, field referralSetCreated.setId: not a hex id: "zz"',
  );
  // A uint64 the wire can carry but no bigint column can hold.
  const joined = JSON_EVENTS[4]!;
  assert.equal(
    inputError(() =>
      decode(
        encodeBusEvent({
          ...joined,
          refereeJoinedReferralSet: { ...(joined.refereeJoinedReferralSet as object), atEpoch: '18446744073709551615' },
        }),
      ),
    ),
    'byte 40, event 7-4, field refereeJoinedReferralSet.atEpoch: expected an epoch from 0 to 9223372036854775806, got "18446744073709551615"',
  );
  // 2^63 - 1 fits a bigint, but not as the end of a span of epochs: refused on the payouts' own path too.
  assert.equal(
    inputError(() => decode(encodeBusEvent({ id: '7-5', version: 1, ...payout('9223372036854775807', hex(0xad), '1') }))),
    'byte 40, event 7-5, field rewardPayout.epochSeq: expected an epoch from 0 to 9223372036854775806, got "9223372036854775807"',
  );
  assert.equal(
    inputError(() => decode(encodeBusEvent({ ...JSON_EVENTS[3]!, type: 'BUS_EVENT_TYPE_TRANSFER' }))),
    'byte 40, event 7-3, field type: BUS_EVENT_TYPE_TRANSFER does not match payload referralSetCreated',
  );
  assert.equal(
    inputError(() => decode(encodeBusEvent({ ...JSON_EVENTS[3]!, id: '9223372036854775808-3' }))),
    'byte 40, event 9223372036854775808-3, field id: expected a 64-bit block height, got "9223372036854775808-3"',
  );
  assert.equal(
    inputError(() => decode(encodeBusEvent({ ...JSON_EVENTS[3]!, id: '7x3' }))),
    'byte 40, event 7x3, field id: expected "<block height>-<sequence>", got "7x3"',
  );
  assert.equal(
    inputError(() => decode(Buffer.from([0x0a, 0x03, 0x31, 0x2d, 0x31, 0xff]))),
    'byte 40, event 1-1: not a protobuf BusEvent (message ends inside a varint at byte 6)',
  );

  const records = Buffer.concat([eventRecord(0n, good), eventRecord(1n, good)]);
  assert.equal(
    inputError(() => decodeAll(records.subarray(0, records.length - 1))),
    `byte ${good.length + 12}: the record of ${good.length + 8} bytes runs past the end of the input (${good.length + 7} bytes left)`,
  );
  assert.equal(
    inputError(() => decodeAll(records.subarray(0, good.length + 14))),
    `byte ${good.length + 12}: the file ends inside a record's size (2 of 4 bytes)`,
  );
  const huge = Buffer.from(records);
  huge.writeUInt32BE(0x7fffffff, good.length + 12);
  assert.equal(
    inputError(() => decodeAll(huge)),
    `byte ${good.length + 12}: record size 2147483647 is not an event-file record (expected 8 to 67108864)`,
  );
});

test('strings are strict UTF-8 (a real U+FFFD passes); the chain id and the height follow each event however they repeat', () => {
  const event = (id: string, chainId: Buffer | string, name: Buffer | string = 'x') => {
    const payload = new WireWriter();
    payload.stringField(1, hex(1));
    payload.bytesField(2, Buffer.from(name));
    const w = new WireWriter();
    w.stringField(1, id);
    w.varintField(4, 1);
    w.bytesField(5, Buffer.from(chainId));
    w.bytesField(162, payload.finish()); // teamUpdated: 1 teamId, 2 name
    const bytes = w.finish();
    return decodeBusEvent(bytes, 0, bytes.length, { offset: 0 });
  };
  const seen = [
    event('12-1', 'chain-a'),
    event('12-2', 'chain-a'),
    event('12-3', 'chain-b'),
    event('123-1', 'chain-b'),
    event('1-1', 'chain-é'),
    event('1-2', ''),
  ];
  assert.deepEqual(
    seen.map((e) => [e.height, e.chainId]),
    [
      [12n, 'chain-a'],
      [12n, 'chain-a'],
      [12n, 'chain-b'],
      [123n, 'chain-b'],
      [1n, 'chain-é'],
      [1n, ''],
    ],
  );
  assert.equal(
    inputError(() => event('12-', 'c')),
    'byte 0, event 12-, field id: expected "<block height>-<sequence>", got "12-"',
  );
  assert.equal(
    inputError(() => event('1-2x', 'c')),
    'byte 0, event 1-2x, field id: expected "<block height>-<sequence>", got "1-2x"',
  );
  assert.equal((event('1-3', 'c', 'a \uFFFD b').body as { name: string }).name, 'a \uFFFD b');
  assert.match(
    inputError(() => event('1-4', 'c', Buffer.from([0x61, 0xc3]))),
    /^byte 0, event 1-4, field teamUpdated: not a protobuf teamUpdated \(invalid UTF-8 in a string at byte \d+\)$/,
  );
  assert.match(
    inputError(() => event('1-5', Buffer.from([0xed, 0xa0, 0x80]))),
    /^byte 0, event 1-5: not a protobuf BusEvent \(invalid UTF-8 in a string at byte \d+\)$/,
  );
});

test('reward payouts read straight off the wire decode as the general path does, whatever their shape', () => {
  const event = JSON_EVENTS.find((e) => e.id === '7-12')!;
  const payout = event.rewardPayout as Record<string, unknown>;
  /** The binary decoding and the JSON one of the event with `changes`: the same event, or the same error. */
  const outcome = (decode: () => DecodedEvent) => {
    try {
      return comparable(decode());
    } catch (err) {
      assert.ok(err instanceof InputError, String(err));
      return `error ${err.field}: ${err.reason}`;
    }
  };
  const variants: Record<string, unknown>[] = [
    {},
    { party: hex(3).toUpperCase() },
    { asset: 'VOTE' },
    { asset: 'abc' },
    { amount: '+5' },
    { amount: '-5' },
    { amount: '12345678901234567890123' },
    { amount: '007' },
    { amount: '1.5' },
    { amount: undefined },
    { epochSeq: 'x' },
    { epochSeq: '9223372036854775806' },
    { epochSeq: '9223372036854775807' },
    { epochSeq: '9223372036854775808' },
    { epochSeq: undefined },
    { quantumAmount: '.5' },
    { quantumAmount: '2.' },
    { quantumAmount: ' 3.5' },
    { quantumAmount: '1e3' },
    { quantumAmount: '2.4999' },
    { quantumAmount: '99999999999999999.5' },
    { quantumAmount: '-2.5' },
    { quantumAmount: 'abc' },
    { quantumAmount: undefined },
    { rewardType: '7' },
    { rewardType: 'ACCOUNT_TYPE_SOMETHING_NEW' },
    { rewardType: 'bad' },
    { rewardType: undefined },
    { gameId: '' },
    { gameId: undefined },
    { gameId: 'zz' },
    { gameId: hex(8).toUpperCase() },
    { party: undefined },
    { percentOfTotalReward: 'ü', lockedUntilEpoch: '3' },
    { party: `${hex(1)}${hex(2)}${hex(3)}` }, // a length of two varint bytes
  ];
  for (const changes of variants) {
    const e = { ...event, rewardPayout: { ...payout, ...changes } };
    const bytes = encodeBusEvent(e);
    const binary = outcome(() => decodeBusEvent(bytes, 0, bytes.length, { offset: 0 }));
    assert.equal(
      binary,
      outcome(() => decodeLine(JSON.stringify(e), 1)[0]!),
      JSON.stringify(changes),
    );
  }

  // Shapes only the wire has: repeated fields (the last wins), the reserved field 8, unknown
  // fields, two-byte tags, wrong wire types, invalid UTF-8 in a field not used.
  const wire = (build: (w: WireWriter) => void) => {
    const p = new WireWriter();
    build(p);
    const w = new WireWriter();
    w.stringField(1, '9-1');
    w.varintField(3, 34);
    w.varintField(4, 1);
    w.bytesField(134, p.finish());
    const bytes = w.finish();
    return outcome(() => decodeBusEvent(bytes, 0, bytes.length, { offset: 0 }));
  };
  const usual = (w: WireWriter) => {
    w.stringField(1, hex(3));
    w.stringField(3, hex(7));
    w.stringField(7, 'ACCOUNT_TYPE_GLOBAL_REWARD');
  };
  const body = (changes: object) =>
    comparable({
      id: '9-1',
      height: 9n,
      at: { offset: 0 },
      body: {
        kind: 'rewardPayout',
        party: hex(3),
        epoch: 0n,
        asset: hex(7),
        amount: 0n,
        rewardType: 'ACCOUNT_TYPE_GLOBAL_REWARD',
        quantumAmount: 0n,
        gameId: null,
        ...changes,
      },
    });
  assert.equal(wire(usual), body({}));
  assert.equal(
    wire((w) => {
      usual(w);
      w.stringField(1, hex(4));
      w.stringField(8, 'reserved');
      w.varintField(15, 1n);
      w.stringField(40, 'unknown');
      w.varintField(6, -1n);
    }),
    body({ party: hex(4) }),
  );
  assert.match(
    wire((w) => {
      usual(w);
      w.bytesField(5, Buffer.from([0xc3]));
    }),
    /^error rewardPayout: not a protobuf rewardPayout \(invalid UTF-8 in a string at byte \d+\)$/,
  );
  assert.equal(
    wire((w) => {
      usual(w);
      w.stringField(6, '1');
    }),
    'error rewardPayout: not a protobuf rewardPayout (field timestamp has wire type 2, expected 0)',
  );
  assert.equal(
    wire((w) => {
      usual(w);
      w.varintField(4, 5n);
    }),
    'error rewardPayout: not a protobuf rewardPayout (field amount has wire type 0, expected 2)',
  );
});

test('the decoder gives consecutive skipped events of one block as one run: counted by type, split at a new height or chain, and handed out before a bad record', () => {
  const skipped = (id: string, type: string, extra: Record<string, unknown> = {}) =>
    encodeBusEvent({ id, type, version: 1, chainId: 'c', marketData: { market: hex(1) }, ...extra }, OTHERS);
  const events = [
    skipped('5-1', 'BUS_EVENT_TYPE_MARKET_DATA'),
    skipped('5-2', 'BUS_EVENT_TYPE_ORDER'),
    skipped('5-3', 'BUS_EVENT_TYPE_MARKET_DATA'),
    // One of ours ends the run.
    encodeBusEvent(JSON_EVENTS[3]!),
    skipped('7-4', 'BUS_EVENT_TYPE_MARKET_DATA'),
    skipped('7-5', 'BUS_EVENT_TYPE_MARKET_DATA', { chainId: 'd' }),
    skipped('7-6', 'BUS_EVENT_TYPE_MARKET_DATA', { chainId: 'd' }),
    // 70 starts as 7 does: another height all the same.
    skipped('70-1', 'BUS_EVENT_TYPE_ORDER', { chainId: 'd' }),
    skipped('70-2', 'BUS_EVENT_TYPE_ORDER', { chainId: 'd' }),
    // A type this build does not know.
    skipped('70-3', 999 as unknown as string, { chainId: 'd' }),
  ];
  const bytes = Buffer.concat(events.map((e, i) => eventRecord(BigInt(i), e)));
  const offsets = events.map((_, i) => events.slice(0, i).reduce((n, e) => n + e.length + 12, 0));
  const run = (id: string, at: number, chainId: string, version: number, counts: [string, number][]) => ({
    id,
    height: BigInt(id.split('-')[0]!),
    at: { offset: at, file: 'f' },
    chainId,
    version,
    body: { kind: 'skippedRun', counts: new Map(counts), events: counts.reduce((n, [, c]) => n + c, 0) },
  });
  const expected = [
    run('5-1', offsets[0]!, 'c', 1, [
      ['BUS_EVENT_TYPE_MARKET_DATA', 2],
      ['BUS_EVENT_TYPE_ORDER', 1],
    ]),
    { ...decodeBusEvent(events[3]!, 0, events[3]!.length, { offset: offsets[3]!, file: 'f' }) },
    run('7-4', offsets[4]!, 'c', 1, [['BUS_EVENT_TYPE_MARKET_DATA', 1]]),
    run('7-5', offsets[5]!, 'd', 1, [['BUS_EVENT_TYPE_MARKET_DATA', 2]]),
    run('70-1', offsets[7]!, 'd', 1, [
      ['BUS_EVENT_TYPE_ORDER', 2],
      ['999', 1],
    ]),
  ];
  assert.deepEqual([...new BinaryDecoder('f').push(bytes)], expected);
  // Cut anywhere, a run ends with its chunk: the same events of each type, in the same blocks.
  for (const size of [7, 100, 333]) {
    const decoder = new BinaryDecoder('f');
    const counts = new Map<string, number>();
    for (let i = 0; i < bytes.length; i += size) {
      for (const e of decoder.push(bytes.subarray(i, i + size))) {
        if (e.body.kind !== 'skippedRun') continue;
        for (const [type, n] of e.body.counts) counts.set(`${e.height} ${type}`, (counts.get(`${e.height} ${type}`) ?? 0) + n);
      }
    }
    assert.deepEqual(Object.fromEntries(counts), {
      '5 BUS_EVENT_TYPE_MARKET_DATA': 2,
      '5 BUS_EVENT_TYPE_ORDER': 1,
      '7 BUS_EVENT_TYPE_MARKET_DATA': 3,
      '70 BUS_EVENT_TYPE_ORDER': 2,
      '70 999': 1,
    });
  }
  // A bad id in the middle of a run: the run so far first, then the error, as decodeBusEvent words it.
  const bad = Buffer.concat([eventRecord(0n, events[0]!), eventRecord(1n, skipped('5-x', 'BUS_EVENT_TYPE_ORDER'))]);
  const decoder = new BinaryDecoder();
  const it = decoder.push(bad);
  assert.deepEqual((it.next().value as DecodedEvent).body, {
    kind: 'skippedRun',
    counts: new Map([['BUS_EVENT_TYPE_MARKET_DATA', 1]]),
    events: 1,
  });
  assert.equal(
    inputError(() => it.next()),
    `byte ${events[0]!.length + 12}, event 5-x, field id: expected "<block height>-<sequence>", got "5-x"`,
  );
  // And a record cut short at the end of the input after a run.
  const cut = new BinaryDecoder();
  assert.equal([...cut.push(bytes.subarray(0, offsets[2]! + 5))].length, 1);
  assert.match(
    inputError(() => [...cut.end()]),
    /^byte \d+: the record of \d+ bytes runs past the end of the input/,
  );
  // An event of another version (2, or 0: absent) ends the run and is refused, as the data-node's file reader refuses it.
  for (const version of [2, 0]) {
    const other = Buffer.concat([eventRecord(0n, events[0]!), eventRecord(1n, skipped('5-2', 'BUS_EVENT_TYPE_ORDER', { version }))]);
    const taken = new BinaryDecoder().push(other);
    assert.equal((taken.next().value as DecodedEvent).body.kind, 'skippedRun');
    assert.equal(
      inputError(() => taken.next()),
      `byte ${events[0]!.length + 12}, event 5-2, field version: version ${version}: only version 1 is known`,
    );
  }
});

test('lengths and varints past what protobuf allows are refused, not wrapped around', () => {
  const decode = (bytes: Buffer) => decodeBusEvent(bytes, 0, bytes.length, { offset: 40 });
  const varint = (n: bigint) => {
    const out: number[] = [];
    do {
      out.push(Number(n & 0x7fn) | (n >= 0x80n ? 0x80 : 0));
      n >>= 7n;
    } while (n > 0n);
    return Buffer.from(out);
  };
  const payload = new WireWriter();
  payload.stringField(1, hex(1));
  payload.stringField(2, hex(2));
  const body = payload.finish();
  const envelope = new WireWriter();
  envelope.stringField(1, '7-3');
  envelope.varintField(3, 70);
  envelope.varintField(4, 1);
  const head = envelope.finish();
  const event = (length: bigint, rest: Buffer) => Buffer.concat([head, varint((168n << 3n) | 2n), varint(length), rest]);
  assert.equal(decode(event(BigInt(body.length), body)).body.kind, 'referralSetCreated');
  // 2^32 + the length: read as a uint32 it would be the payload's own length.
  assert.equal(
    inputError(() => decode(event(2n ** 32n + BigInt(body.length), body))),
    `byte 40, event 7-3: not a protobuf BusEvent (length of 2^32 bytes or more at byte ${head.length + 7} runs past the end of the message)`,
  );
  // A tenth byte above 1: bits past 64, in a field read (createdAt) and in one skipped (99).
  const past64 = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]);
  for (const field of [3n, 99n]) {
    const inner = Buffer.concat([body, varint(field << 3n), past64]);
    const bytes = event(BigInt(inner.length), inner);
    assert.equal(
      inputError(() => decode(bytes)),
      `byte 40, event 7-3, field referralSetCreated: not a protobuf referralSetCreated (varint past 64 bits at byte ${bytes.length - past64.length})`,
      `field ${field}`,
    );
  }
  const eleven = Buffer.concat([body, varint(99n << 3n), Buffer.alloc(10, 0x80), Buffer.from([0])]);
  assert.match(
    inputError(() => decode(event(BigInt(eleven.length), eleven))),
    /varint past 64 bits/,
  );
});
