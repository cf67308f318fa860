/**
 * Ingestion through the real CLI, on both stores: read-model contents of the fixtures, every
 * input shape, idempotence, resume after a failure, block atomicity and bad-input messages.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { BlockAssembler } from '../../src/ingest/blocks.js';
import { InputError } from '../../src/sources/input-error.js';
import { decodeLine } from '../../src/sources/ndjson/decode-line.js';
import { FIXTURES, runCli } from '../helpers/cli.js';
import { dumpStore, withStore } from '../helpers/compare-stores.js';
import { dumpReadModels, scalar } from '../helpers/dump.js';
import { blockLines, hex, payout, refereeJoined, setCreated, teamCreated } from '../helpers/events.js';
import { createTestStore, STORE_KINDS, type StoreKind, type TestStore } from '../helpers/stores.js';

const tmp = mkdtempSync(join(tmpdir(), 'epochview-ingest-'));
// Its inputs include two files of 128 MiB (a line without its newline), on both stores.
after(() => rmSync(tmp, { recursive: true, force: true }));
const fixtureLines = (name: string) =>
  readFileSync(`${FIXTURES}${name}.ndjson`, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
const writeInput = (name: string, lines: string[]) => {
  const path = join(tmp, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
};

// What is read of a directory does not depend on the store: on one of them.
test('a directory: links to files are read; what is no file nor folder is named; an empty input is said', async () => {
  const s = await createTestStore(STORE_KINDS[0]!);
  try {
    const dir = join(tmp, 'linked');
    mkdirSync(join(dir, 'a-folder'), { recursive: true });
    symlinkSync(`${FIXTURES}referral-sets.ndjson`, join(dir, 'chain.ndjson'));
    symlinkSync(join(tmp, 'nowhere'), join(dir, 'gone.ndjson'));
    execFileSync('mkfifo', [join(dir, 'pipe.ndjson')]);
    const res = await runCli(['ingest', dir, ...s.args]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, /^ingested [1-9]\d* blocks/m);
    // Named, in name order; the folder is not read, and not named.
    assert.match(
      res.stderr,
      new RegExp(`^warning: not read: ${dir}/gone.ndjson: a link to nothing\nwarning: not read: ${dir}/pipe.ndjson: a FIFO, not a file\n`),
    );
    assert.doesNotMatch(res.stderr, /a-folder|the input held no events/);
    // Nothing to read: still 0 (a re-run over an emptied folder is fine), with a word.
    const empty = join(tmp, 'empty');
    mkdirSync(empty);
    for (const [input, stdin] of [[empty], ['/dev/null'], ['-', '']]) {
      const none = await runCli(['ingest', input!, ...s.args], { stdin });
      assert.equal(none.code, 0, none.stderr);
      assert.match(none.stderr, /^ingested 0 blocks[\s\S]*\nwarning: the input held no events\n$/, input);
    }
  } finally {
    await s.drop();
  }
});

const FIRST = JSON.stringify({ id: '1-0', type: 'BUS_EVENT_TYPE_BEGIN_BLOCK', beginBlock: { height: '1', timestamp: '1', hash: 'h' } });
/** Bad input after block 1's beginBlock: the case, its line, the CLI's message. */
const BAD_INPUTS: [string, string, RegExp][] = [
  ['not JSON', '{"id":"1-1", nope', /^error: line 2: not JSON \(/m],
  ['not an object', '[1,2]', /^error: line 2: expected a JSON object$/m],
  [
    'id without height',
    JSON.stringify({ id: 'x', ...setCreated(hex('01'), hex('02')) }),
    /^error: line 2, event x, field id: expected "<block height>-<sequence>", got "x"$/m,
  ],
  [
    'non-hex id',
    JSON.stringify({ id: '1-1', ...setCreated('zz', hex('02')) }),
    /^error: line 2, event 1-1, field referralSetCreated\.setId: not a hex id: "zz"$/m,
  ],
  [
    'missing id',
    JSON.stringify({ id: '1-1', type: 'BUS_EVENT_TYPE_REFERRAL_SET_CREATED', referralSetCreated: { referrer: hex('02') } }),
    /^error: line 2, event 1-1, field referralSetCreated\.setId: missing$/m,
  ],
  [
    'wrong type',
    JSON.stringify({ id: '1-1', ...refereeJoined(hex('01'), hex('02'), 'three') }),
    /^error: line 2, event 1-1, field refereeJoinedReferralSet\.atEpoch: expected an integer, got "three"$/m,
  ],
  [
    'an epoch past 64 bits',
    JSON.stringify({ id: '1-1', ...refereeJoined(hex('01'), hex('02'), '-9223372036854775809') }),
    /^error: line 2, event 1-1, field refereeJoinedReferralSet\.atEpoch: expected an epoch from 0 to 9223372036854775806, got "-9223372036854775809"$/m,
  ],
  [
    // A uint64: the wire cannot carry a negative one, and protobuf's JSON refuses it.
    'a negative epoch',
    JSON.stringify({ id: '1-1', ...refereeJoined(hex('01'), hex('02'), '-5') }),
    /^error: line 2, event 1-1, field refereeJoinedReferralSet\.atEpoch: expected an epoch from 0 to 9223372036854775806, got "-5"$/m,
  ],
  [
    // A bigint, but the read models keep spans of epochs as [first, last + 1).
    'an epoch at 2^63 - 1',
    JSON.stringify({ id: '1-1', ...payout('9223372036854775807', hex('ad'), '1') }),
    /^error: line 2, event 1-1, field rewardPayout\.epochSeq: expected an epoch from 0 to 9223372036854775806, got "9223372036854775807"$/m,
  ],
  [
    // The data-node refuses an event of another version from its files and its socket alike.
    'another version',
    JSON.stringify({ id: '1-1', version: 2, ...setCreated(hex('01'), hex('02')) }),
    /^error: line 2, event 1-1, field version: version 2: only version 1 is known$/m,
  ],
  [
    'a block height past 64 bits',
    JSON.stringify({ id: '99999999999999999999-1', ...setCreated(hex('01'), hex('02')) }),
    /^error: line 2, event 99999999999999999999-1, field id: expected a 64-bit block height, got "99999999999999999999-1"$/m,
  ],
  [
    'bad enum',
    JSON.stringify({ id: '1-1', ...payout('1', hex('ad'), '1', 'NOT_AN_ACCOUNT') }),
    /^error: line 2, event 1-1, field rewardPayout\.rewardType: unknown enum value "NOT_AN_ACCOUNT"$/m,
  ],
  [
    'bad quantum amount',
    JSON.stringify({ id: '1-1', ...payout('1', hex('ad'), '1', undefined, { quantumAmount: '1.2.3' }) }),
    /^error: line 2, event 1-1, field rewardPayout\.quantumAmount: not a decimal number: "1\.2\.3"$/m,
  ],
  [
    'type disagrees with payload',
    JSON.stringify({
      id: '1-1',
      type: 'BUS_EVENT_TYPE_TRANSFER',
      ...{ referralSetCreated: setCreated(hex('01'), hex('02')).referralSetCreated },
    }),
    /^error: line 2, event 1-1, field type: BUS_EVENT_TYPE_TRANSFER does not match payload referralSetCreated$/m,
  ],
  [
    'two payloads',
    JSON.stringify({ id: '1-1', transfer: {}, rewardPayout: {} }),
    /^error: line 2, event 1-1, field transfer,rewardPayout: more than one payload$/m,
  ],
  ['events not an array', '{"events":{"id":"1-1"}}', /^error: line 2, field events: expected an array of events$/m],
  [
    'endBlock for another height',
    JSON.stringify({ id: '1-1', endBlock: { height: '5' } }),
    /^error: line 2, event 1-1, field endBlock\.height: endBlock 5 does not close the open block 1$/m,
  ],
];

test('every bad input is refused by name where ingestion reads it (the decoder and the block assembler)', () => {
  for (const [name, line, message] of BAD_INPUTS) {
    const assembler = new BlockAssembler();
    const refused = (() => {
      try {
        for (const [i, text] of [FIRST, line].entries()) for (const e of decodeLine(text, i + 1)) assembler.push(e);
      } catch (err) {
        assert.ok(err instanceof InputError, `${name}: ${String(err)}`);
        return `error: ${err.message}`;
      }
      return 'no error';
    })();
    assert.match(refused, message, name);
  }
});

/** The cases also run through the CLI on each store: one each of the text, the payload, the envelope and the blocks. */
const BAD_INPUTS_BY_CLI = new Set(['not JSON', 'non-hex id', 'another version', 'endBlock for another height']);

for (const kind of STORE_KINDS) {
  describe(`ingest on ${kind}`, () => {
    const stores: TestStore[] = [];
    after(async () => {
      for (const s of stores) await s.drop();
    });
    const fresh = async () => {
      const s = await createTestStore(kind as StoreKind);
      stores.push(s);
      return s;
    };
    const ingest = async (s: TestStore, file: string, stdin?: string) => runCli(['ingest', file, ...s.args], { stdin });
    /** The read models, and the first value of each of `sql`'s statements, from one opening of the store. */
    const inspect = (s: TestStore, ...sql: string[]) =>
      withStore(s, async (store) => {
        const values: (string | null)[] = [];
        for (const statement of sql) values.push(await scalar(store, statement));
        return { models: await dumpReadModels(store), values };
      });

    test('referral-sets fixture: sets, referees, totals, replayed block skipped', async () => {
      const s = await fresh();
      const res = await ingest(s, `${FIXTURES}referral-sets.ndjson`);
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stderr, /ingested 121 blocks \(1 already applied, skipped\), 124 events/);
      assert.match(res.stderr, /refereeJoinedReferralSet\s+110\n/);
      assert.match(res.stderr, /referralSetCreated\s+13\n/);
      assert.match(res.stderr, /skipped: 131\n\s+BUS_EVENT_TYPE_PARTY_ACTIVITY_STREAK\s+10\n\s+BUS_EVENT_TYPE_TIME_UPDATE\s+121/);
      const d = await dumpStore(s);
      assert.equal(d.referral_sets!.length, 13);
      assert.equal(d.referral_set_referees!.length, 107);
      // Every referee counts once, in its current set.
      assert.equal(
        d.referral_sets!.reduce((n, r) => n + Number(r.split('|')[4]), 0),
        107,
      );
      assert.deepEqual(
        d.chain_head!.map((r) =>
          r
            .split('|')
            .filter((_, i) => i !== 2)
            .join('|'),
        ),
        ['5121|1709252110000000000|null'],
      );
      // Timestamps are stored truncated to microseconds.
      assert.equal(d.referral_sets!.filter((r) => !r.split('|')[2]!.endsWith('000')).length, 0);
    });

    test("a store holds one chain: another chain's input is refused before any of it is skipped or applied", async () => {
      // The teams fixture ingested (a copy of the run's template of it).
      const s = await createTestStore(kind as StoreKind, { dataset: 'teams' });
      stores.push(s);
      const stored = () => inspect(s, 'SELECT chain_id FROM chain_head');
      const before = await stored();
      assert.deepEqual(before.values, ['vega-mainnet-0011']);
      // A network started again from height 1 under another id: its blocks are at or below the
      // head, and were skipped as applied (exit 0), then mixed with the old chain's above it.
      const other = readFileSync(`${FIXTURES}teams.ndjson`, 'utf8').replaceAll(
        '"chainId":"vega-mainnet-0011"',
        '"chainId":"vega-testnet-0002"',
      );
      const res = await ingest(s, '-', other);
      assert.equal(res.code, 1, res.stderr);
      assert.match(
        res.stderr,
        /^error: line 1, field chainId: block \d+ is of chain "vega-testnet-0002", the store's is "vega-mainnet-0011": a store holds one chain \(give another a store of its own\)$/m,
      );
      assert.deepEqual(await stored(), before);
      // Events that name no chain are taken as the store's; the same chain again is skipped as applied.
      const unnamed = readFileSync(`${FIXTURES}teams.ndjson`, 'utf8').replaceAll(',"chainId":"vega-mainnet-0011"', '');
      const again = await ingest(s, '-', unnamed);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, /ingested 0 blocks \(\d+ already applied, skipped\)/);
    });

    test('team-stats fixture: rows, memberships, game scopes, ended epoch', async () => {
      const s = await fresh();
      const res = await ingest(s, `${FIXTURES}team-stats.ndjson`);
      assert.equal(res.code, 0, res.stderr);
      const { models: d, values } = await inspect(
        s,
        'SELECT sum(quantum_volume)::text FROM team_member_stats',
        'SELECT sum(quantum_rewards)::text FROM team_member_stats',
        'SELECT last_ended_epoch::text FROM chain_head',
      );
      assert.equal(d.team_member_stats!.length, 48);
      assert.deepEqual(values, ['61402', '256', '3']);
      // The young team has statistics in epoch 3 only.
      assert.deepEqual(
        d.team_epochs!.filter((r) => r.startsWith('a5')),
        [`${hex('a5')}|3`],
      );
      assert.deepEqual(
        d
          .team_members!.map((r) => r.split('|')[1]!.slice(0, 2))
          .sort()
          .join(','),
        'a1,a1,a1,a2,a2,a2,a3,a3,a3,a3,a4,a4,a4,a5,a5,a5,a6,a6,a6,a6,a6,a6,a6',
      );
      // Team 2's first member: volume 1 each epoch, rewards epoch + seq, one team-scoped game.
      const game2 = `22${'02'.repeat(31)}`;
      assert.deepEqual(
        d.team_member_stats!.filter((r) => r.startsWith(`${hex('a2')}|${hex('c1')}`)),
        [`${hex('a2')}|${hex('c1')}|1|1|4`, `${hex('a2')}|${hex('c1')}|2|1|5`, `${hex('a2')}|${hex('c1')}|3|1|6`],
      );
      assert.deepEqual(
        d.team_party_games!.filter((r) => r.startsWith(`${hex('a2')}|${hex('c1')}`)),
        [`${hex('a2')}|${hex('c1')}|${game2}|{[1,4)}`],
      );
      // The game whose latest recurring transfer turned individual is no longer team-scoped.
      assert.equal(d.game_scopes!.filter((r) => r.endsWith('|true')).length, 5);
    });

    test('epoch-summaries fixture: one row per (epoch, asset, market, type), exact big sums', async () => {
      const s = await fresh();
      const res = await ingest(s, `${FIXTURES}epoch-summaries.ndjson`);
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stderr, /rewardPayout\s+81\n/);
      const { models: d, values } = await inspect(
        s,
        `SELECT string_agg(n, ',' ORDER BY e) FROM (SELECT epoch e, count(*)::text n FROM epoch_reward_summaries GROUP BY epoch) x`,
        'SELECT sum(amount)::text FROM epoch_reward_summaries WHERE epoch = 3',
        'SELECT sum(amount)::text FROM epoch_reward_summaries WHERE epoch = 1',
        `SELECT count(*)::text FROM epoch_reward_summaries WHERE market_id <> ''::bytea`,
      );
      assert.equal(d.epoch_reward_summaries!.length, 35);
      assert.deepEqual(values, ['6,6,13,1,1,1,1,1,1,1,1,1,1', '1111111110111111111011111152107', '47520', '0']);
    });

    test("teams fixture: the team family's tables, the same in one transaction as block by block", async () => {
      const [one, each] = [await fresh(), await fresh()];
      const file = `${FIXTURES}teams.ndjson`;
      assert.equal((await ingest(one, file)).code, 0);
      const res = await runCli(['ingest', file, '--batch-events', '1', ...each.args]);
      assert.equal(res.code, 0, res.stderr);
      const { models: d, values } = await inspect(
        one,
        // A team's sums per epoch are its members' rows summed, and its games' epochs the union of its parties'.
        `SELECT count(*)::text FROM team_epoch_stats AS e WHERE ROW(e.quantum_volume, e.quantum_rewards) IS DISTINCT FROM
           (SELECT ROW(sum(s.quantum_volume), sum(s.quantum_rewards)) FROM team_member_stats AS s WHERE s.team_id = e.team_id AND s.epoch = e.epoch)`,
        `SELECT count(*)::text FROM team_games AS g WHERE g.epochs IS DISTINCT FROM
           (SELECT range_agg(r) FROM team_party_games AS p, unnest(p.epochs) AS r WHERE p.team_id = g.team_id AND p.game_id = g.game_id)`,
        // A team's span is the first and last epoch of its sums.
        `SELECT count(*)::text FROM (SELECT team_id, min(epoch), max(epoch) FROM team_epoch_stats GROUP BY team_id
           EXCEPT ALL SELECT team_id, first_epoch, last_epoch FROM team_stats_spans) AS x`,
      );
      assert.deepEqual(values, ['0', '0', '0']);
      // Epoch 3's last statistics event for team 2's member came in the next block: the team's sum follows it (7, not 6).
      assert.deepEqual(d.team_epoch_stats, [
        `${hex('d1')}|1|35|7`,
        `${hex('d1')}|2|8|2`,
        `${hex('d2')}|1|3|1`,
        `${hex('d2')}|2|32|5`,
        `${hex('d2')}|3|7|3`,
        `${hex('d4')}|2|9|0`,
        `${hex('d6')}|3|8|0`,
      ]);
      assert.deepEqual(d.team_stats_spans, [`${hex('d1')}|1|2`, `${hex('d2')}|1|3`, `${hex('d4')}|2|2`, `${hex('d6')}|3|3`]);
      assert.deepEqual(d.team_games, [
        `${hex('d1')}|${hex('71')}|{[1,3)}`,
        `${hex('d1')}|${hex('72')}|{[1,2)}`,
        `${hex('d2')}|${hex('71')}|{[1,2),[3,4)}`,
        `${hex('d2')}|${hex('72')}|{[2,3)}`,
      ]);
      // Times truncated to microseconds; a creation erases the creator's rows, a removal every row (f2 has none).
      assert.deepEqual(d.team_membership_history, [
        `${hex('e1')}|1|${hex('d1')}|1717200120123456000`,
        `${hex('e2')}|1|${hex('d2')}|1717200180000000000`,
        `${hex('e3')}|1|${hex('d3')}|1717200180000000000`,
        `${hex('e4')}|1|${hex('d4')}|1717200180000000000`,
        `${hex('e5')}|1|${hex('d5')}|1717200240000000000`,
        `${hex('e5')}|2|${hex('d1')}|1717203601000000000`,
        `${hex('f1')}|1|${hex('d1')}|1717200240000000000`,
        `${hex('f1')}|2|${hex('d2')}|1717203601000000000`,
        `${hex('f3')}|2|${hex('d6')}|1717203700000000000`,
        `${hex('f4')}|1|${hex('d2')}|1717200240000000000`,
        `${hex('f5')}|1|${hex('d2')}|1717200241000000000`,
        `${hex('f6')}|1|${hex('d2')}|1717200242000000000`,
      ]);
      assert.deepEqual((await inspect(each)).models, d);
    });

    test('re-ingesting the same file changes nothing', async () => {
      const s = await fresh();
      const file = `${FIXTURES}team-stats.ndjson`;
      assert.equal((await ingest(s, file)).code, 0);
      const first = await dumpStore(s);
      const again = await ingest(s, file);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, /ingested 0 blocks \(13 already applied, skipped\), 0 events/);
      assert.deepEqual(await dumpStore(s), first);
    });

    test('every input shape, enums by number and 64-bit integers as numbers give the same read models', async () => {
      const plain = await fresh();
      assert.equal((await ingest(plain, `${FIXTURES}team-stats.ndjson`)).code, 0);
      const expected = await dumpStore(plain);

      // Group the events of each block into one line, alternating the two batch shapes, and
      // rewrite enums as numbers and 64-bit integers as JSON numbers.
      const events = fixtureLines('team-stats').flatMap((l) => {
        const o = JSON.parse(l);
        return o.events ?? o.result?.events ?? [o];
      });
      const numbered = JSON.stringify(events)
        .replace(/"BUS_EVENT_TYPE_REWARD_PAYOUT_EVENT"/g, '34')
        .replace(/"BUS_EVENT_TYPE_TEAMS_STATS_UPDATED"/g, '87')
        .replace(/"ACCOUNT_TYPE_REWARD_AVERAGE_NOTIONAL"/g, '32')
        .replace(/"ACCOUNT_TYPE_GLOBAL_REWARD"/g, '12')
        .replace(/"EPOCH_ACTION_END"/g, '2')
        .replace(/"ENTITY_SCOPE_TEAMS"/g, '2')
        .replace(/"ENTITY_SCOPE_INDIVIDUALS"/g, '1')
        .replace(/"(atEpoch|epochSeq|createdAt|joinedAt|switchedAt|seq|height|timestamp)":"(\d+)"/g, '"$1":$2');
      const byBlock = new Map<string, unknown[]>();
      for (const e of JSON.parse(numbered.replace(/:(\d{16,})/g, ':"$1"')) as { id: string }[]) {
        const h = e.id.split('-')[0]!;
        byBlock.set(h, [...(byBlock.get(h) ?? []), e]);
      }
      const lines = [...byBlock.values()].map((evs, i) => {
        const line = JSON.stringify(i % 2 ? { events: evs } : { result: { events: evs } });
        // Put big integers back as JSON numbers with every digit.
        return line.replace(/"(createdAt|joinedAt|switchedAt|timestamp)":"(\d+)"/g, '"$1":$2');
      });
      assert.ok(
        lines.some((l) => /"timestamp":\d{19}/.test(l)),
        'the rewritten input has 19-digit JSON numbers',
      );
      const shaped = await fresh();
      const res = await ingest(shaped, writeInput(`shapes-${kind}.ndjson`, lines));
      assert.equal(res.code, 0, res.stderr);
      assert.deepEqual(await dumpStore(shaped), expected);
    });

    test('stdin input, blocks without markers, unknown event types skipped and counted', async () => {
      const s = await fresh();
      const lines = [
        JSON.stringify({ id: '7-0', type: 'BUS_EVENT_TYPE_TIME_UPDATE', timeUpdate: { timestamp: '1700000000123456789' } }),
        JSON.stringify({ id: '7-1', ...setCreated(hex('01'), hex('02')) }),
        JSON.stringify({ id: '7-2', type: 'BUS_EVENT_TYPE_SOMETHING_NEW', somethingNew: { x: 1 } }),
        JSON.stringify({ id: '8-0', type: 999, futureEvent: {} }),
        JSON.stringify({ id: '8-1', ...refereeJoined(hex('01'), hex('03'), '1') }),
      ];
      const res = await ingest(s, '-', lines.join('\n'));
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stderr, /ingested 2 blocks \(0 already applied, skipped\), 2 events/);
      assert.match(res.stderr, /skipped: 3\n\s+999\s+1\n\s+BUS_EVENT_TYPE_SOMETHING_NEW\s+1\n\s+BUS_EVENT_TYPE_TIME_UPDATE\s+1/);
      const d = await dumpStore(s);
      assert.deepEqual(d.chain_head, ['8|1700000000123456789||null']);
      assert.deepEqual(d.referral_sets, [`${hex('01')}|${hex('02')}|1700000000000000000|1700000000000000000|1`]);
    });

    test('a bad event in block k: blocks before k applied, nothing of block k, resume after the fix', async () => {
      const blocks = [
        blockLines(1, [setCreated(hex('01'), hex('aa'))]),
        blockLines(2, [setCreated(hex('02'), hex('bb')), refereeJoined(hex('01'), hex('c1'), '1')]),
        blockLines(3, [setCreated(hex('03'), hex('cc')), payout('1', hex('ad'), '12x'), refereeJoined(hex('01'), hex('c2'), '1')]),
        blockLines(4, [refereeJoined(hex('02'), hex('c1'), '2')]),
      ];
      const bad = blocks.flat();
      const s = await fresh();
      // A small batch size as well as the default: the failure must not depend on batching.
      const res = await runCli(['ingest', writeInput(`bad-${kind}.ndjson`, bad), ...s.args, '--batch-events', '1']);
      assert.equal(res.code, 1);
      assert.match(
        res.stderr,
        /^error: \S+\/bad-\w+\.ndjson: line 10, event 3-2, field rewardPayout\.amount: expected an integer, got "12x"$/m,
      );
      let d = await dumpStore(s);
      assert.equal(d.chain_head![0]!.split('|')[0], '2');
      assert.deepEqual(
        d.referral_sets!.map((r) => r.slice(0, 2)),
        ['01', '02'],
      );
      assert.equal(d.epoch_reward_summaries!.length, 0);

      const fixed = bad.map((l) => l.replaceAll('"12x"', '"12"'));
      const again = await runCli(['ingest', writeInput(`fixed-${kind}.ndjson`, fixed), ...s.args]);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, /ingested 2 blocks \(2 already applied, skipped\)/);
      d = await dumpStore(s);
      const clean = await fresh();
      assert.equal((await runCli(['ingest', writeInput(`clean-${kind}.ndjson`, fixed), ...clean.args])).code, 0);
      assert.deepEqual(d, await dumpStore(clean));
      // c1 moved to set 02 (higher epoch); set 01 keeps c2: totals are current referees + 1.
      assert.deepEqual(
        d.referral_sets!.map((r) => `${r.slice(0, 2)}:${r.split('|')[4]}`),
        ['01:1', '02:1', '03:0'],
      );
    });

    test('a block without endBlock at the end of the input is not applied', async () => {
      const s = await fresh();
      const lines = [
        ...blockLines(1, [setCreated(hex('01'), hex('aa'))]),
        ...blockLines(2, [setCreated(hex('02'), hex('bb'))]).slice(0, -1),
      ];
      const res = await ingest(s, writeInput(`open-${kind}.ndjson`, lines));
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stderr, /warning: block 2 \(\S+\/open-\w+\.ndjson: line 4\) has no endBlock; not applied/);
      assert.deepEqual(
        (await dumpStore(s)).referral_sets!.map((r) => r.slice(0, 2)),
        ['01'],
      );
    });

    test('a block cut short and begun again (a core restarted inside it) is applied whole, once', async () => {
      const s = await fresh();
      const block2 = blockLines(2, [setCreated(hex('02'), hex('bb')), setCreated(hex('03'), hex('cc'))]);
      const lines = [...blockLines(1, [setCreated(hex('01'), hex('aa'))]), ...block2.slice(0, 2), ...block2];
      const res = await ingest(s, writeInput(`cut-short-${kind}.ndjson`, lines));
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stderr, /ingested 2 blocks \(0 already applied, skipped\), 3 events/);
      assert.deepEqual(
        (await dumpStore(s)).referral_sets!.map((r) => r.slice(0, 2)),
        ['01', '02', '03'],
      );
    });

    test('a block every projection writes, a team named with a U+0000: stored as U+FFFD, and no warning from Node or pg', async () => {
      const s = await fresh();
      const block = [
        setCreated(hex('01'), hex('aa')),
        // PostgreSQL's text cannot hold U+0000: ingestion goes on with U+FFFD in its place.
        teamCreated(hex('0a'), hex('aa'), 'x\u0000y', '1700000000000000000', '1'),
        payout('1', hex('ad'), '5'),
      ];
      const res = await ingest(s, writeInput(`every-projection-${kind}.ndjson`, blockLines(1, block)));
      assert.equal(res.code, 0, res.stderr);
      // pg warned (DeprecationWarning) of statements queued on a busy connection.
      assert.doesNotMatch(res.stderr, /warning/i);
      const d = await dumpStore(s);
      assert.match(d.teams![0]!, /\|x\uFFFDy\|/);
      assert.deepEqual(
        d.referral_sets!.map((r) => r.slice(0, 2)),
        ['01'],
      );
    });

    test('\\r\\n endings, blank lines and a last line without its newline: read as the same lines', async () => {
      const lines = [...blockLines(1, [setCreated(hex('01'), hex('aa'))]), '', ...blockLines(2, [setCreated(hex('02'), hex('bb'))])];
      const plain = await fresh();
      assert.equal((await ingest(plain, writeInput(`lf-${kind}.ndjson`, lines))).code, 0);
      const s = await fresh();
      const path = join(tmp, `crlf-${kind}.ndjson`);
      writeFileSync(path, lines.join('\r\n'));
      const res = await ingest(s, path);
      assert.equal(res.code, 0, res.stderr);
      // The last line (endBlock 2) has no newline: the input is finished, so it is a line.
      assert.match(res.stderr, /ingested 2 blocks \(0 already applied, skipped\), 2 events/);
      assert.doesNotMatch(res.stderr, /warning/);
      assert.deepEqual(await dumpStore(s), await dumpStore(plain));
    });

    test('line numbers count every line: \\r\\n ones, blank ones, a line holding a batch of events', async () => {
      const s = await fresh();
      const batch = blockLines(2, [setCreated(hex('02'), hex('bb'))]).map((l) => JSON.parse(l));
      const input = [...blockLines(1, [setCreated(hex('01'), hex('aa'))]), '', JSON.stringify({ events: batch }), '', 'not json'].join(
        '\r\n',
      );
      const res = await ingest(s, '-', input);
      assert.equal(res.code, 1, res.stderr);
      assert.match(res.stderr, /^error: line 7: not JSON \(/m);
      assert.deepEqual(
        (await dumpStore(s)).referral_sets!.map((r) => r.slice(0, 2)),
        ['01', '02'],
      );
    });

    test('input without a newline within 128 MiB stops with a clear message; the blocks before it are applied', async () => {
      const s = await fresh();
      const blocks = [...blockLines(1, [setCreated(hex('01'), hex('aa'))]), ...blockLines(2, [setCreated(hex('02'), hex('bb'))])];
      const path = join(tmp, `no-newline-${kind}.ndjson`);
      writeFileSync(path, `${blocks.join('\n')}\n`);
      appendFileSync(path, Buffer.alloc(128 * 2 ** 20 + 1, 'x'));
      const res = await ingest(s, path);
      assert.equal(res.code, 1, res.stderr);
      assert.match(
        res.stderr,
        new RegExp(`^error: ${path}: line ${blocks.length + 1}: no newline within 128 MiB: not an event line$`, 'm'),
      );
      assert.deepEqual(
        (await dumpStore(s)).referral_sets!.map((r) => r.slice(0, 2)),
        ['01', '02'],
      );
    });

    // The bound is the block assembler's (blocks.test.ts), the same on both stores: through the CLI on one of them.
    if (kind === STORE_KINDS.at(-1))
      test('a block over --max-block-events stops with a clear message; the blocks before it are applied', async () => {
        const s = await fresh();
        const sets = (...ids: string[]) => ids.map((i) => setCreated(hex(i), hex('aa')));
        const input = `${[...blockLines(1, sets('01', '02')), ...blockLines(2, sets('03', '04', '05'))].join('\n')}\n`;
        const res = await runCli(['ingest', '-', '--max-block-events', '2', ...s.args], { stdin: input });
        assert.equal(res.code, 1, res.stderr);
        assert.match(
          res.stderr,
          /^error: line 8, event 2-3: block 2 holds more than 2 events of ours \(--max-block-events\): it is not applied$/m,
        );
        assert.match(res.stderr, /blocks before the bad one are applied \(checkpoint 1\)/);
        assert.deepEqual(
          (await dumpStore(s)).referral_sets!.map((r) => r.slice(0, 2)),
          ['01', '02'],
        );
      });

    // Every bad input stops inside block 1, before anything is applied: one store takes them all
    // in turn, each run saying it applied nothing (the checkpoint it reads back from the store),
    // and the store is found empty after the last.
    let badInputStore: Promise<TestStore> | undefined;
    for (const [name, line, message] of BAD_INPUTS.filter(([name]) => BAD_INPUTS_BY_CLI.has(name))) {
      test(`bad input stops with a clear message: ${name}`, async () => {
        badInputStore ??= fresh();
        const res = await ingest(await badInputStore, '-', `${FIRST}\n${line}\n`);
        assert.equal(res.code, 1, res.stderr);
        assert.match(res.stderr, message);
        assert.doesNotMatch(res.stderr, /at .*\.js:\d+/, 'no stack trace');
        assert.match(res.stderr, /blocks before the bad one are applied \(checkpoint none\)/);
      });
    }
    test('bad input at the start of a long input on stdin: the same clear error, the rest left unread', async () => {
      badInputStore ??= fresh();
      // 32 MB after the bad line: ingest stops long before it has read them, and the pipe it
      // leaves breaks under the writer (EPIPE), which must not take the writer down.
      const rest = '{"id":"1-2"}\n'.repeat(2_500_000);
      const res = await ingest(await badInputStore, '-', `${FIRST}\n{"id":"1-1", nope\n${rest}`);
      assert.equal(res.code, 1, res.stderr);
      assert.match(res.stderr, /^error: line 2: not JSON \(/m);
    });
    test('after every bad input, nothing of it is in the store', async () => {
      const dumped = await dumpStore(await badInputStore!);
      for (const [table, rows] of Object.entries(dumped)) assert.deepEqual(rows, [], table);
    });
  });
}
