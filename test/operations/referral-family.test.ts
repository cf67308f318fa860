/**
 * The referral family beyond the fixtures' exact answers (family.md): the new events in their
 * binary form decode as their JSON form and build the same read models (the fixture ingested from
 * an event file answers as the fixture says), bad input is named, both new lists page through
 * ties in both directions and orders, and pages are index range scans.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { decodeBusEvent } from '../../src/sources/binary/decode-event.js';
import { encodeBusEvent, eventRecord } from '../../src/sources/binary/encode-event.js';
import { InputError } from '../../src/sources/input-error.js';
import { decodeLine } from '../../src/sources/ndjson/decode-line.js';
import { listReferralSetReferees } from '../../src/operations/referral-set-referees/index.js';
import { getReferralSetStats } from '../../src/operations/referral-set-stats/index.js';
import { comparable, decodeAll } from '../helpers/binary-events.js';
import { FIXTURES } from '../helpers/cli.js';
import { explainOperation } from '../helpers/explain.js';
import { loadExpectations } from '../helpers/fixtures.js';
import { assertPagingConsistent } from '../helpers/paging.js';
import { useServedStore } from '../helpers/served-store.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS } from '../helpers/stores.js';

const NDJSON = `${FIXTURES}referral-family.ndjson`;
/** The fixture's events, one object each (its one batch line opened up). */
const EVENTS: Record<string, unknown>[] = readFileSync(NDJSON, 'utf8')
  .split('\n')
  .filter(Boolean)
  .flatMap((line) => {
    const parsed = JSON.parse(line) as { events?: Record<string, unknown>[] };
    return parsed.events ?? [parsed as Record<string, unknown>];
  });
const evts = (events: Record<string, unknown>[]) => Buffer.concat(events.map((e, i) => eventRecord(BigInt(i), encodeBusEvent(e))));

const tmp = mkdtempSync(join(tmpdir(), 'epochview-referral-family-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const EVTS = join(tmp, 'referral-family.evts');
writeFileSync(EVTS, evts(EVENTS));

test('the new events in the binary form decode to what their JSON form decodes to', () => {
  const binary = decodeAll(readFileSync(EVTS));
  const json = EVENTS.flatMap((e, i) => decodeLine(JSON.stringify(e), i + 1));
  assert.deepEqual(binary.map(comparable), json.map(comparable));
  const kinds = new Set(json.map((e) => e.body.kind));
  for (const kind of ['referralProgramStarted', 'referralProgramUpdated', 'referralProgramEnded', 'referralSetStatsUpdated', 'feesStats']) {
    assert.ok(kinds.has(kind as never), kind);
  }
  // Tier numbers are positions whatever the event said; the end time arrives in seconds.
  const started = json.find((e) => e.body.kind === 'referralProgramStarted')!.body as unknown as { program: Record<string, unknown> };
  assert.deepEqual(
    (started.program.benefitTiers as { tierNumber: string }[]).map((t) => t.tierNumber),
    ['1', '2'],
  );
  assert.equal(started.program.endOfProgram, 1735689600000000000n);
});

/** An event of `type` with `payload` under `key`, at height 9. */
const event = (type: string, key: string, payload: unknown) => ({ id: '9-1', block: 'AB', type, [key]: payload });
const stats = (payload: unknown) => event('BUS_EVENT_TYPE_REFERRAL_SET_STATS_UPDATED', 'referralSetStatsUpdated', payload);
const fees = (payload: unknown) => event('BUS_EVENT_TYPE_FEES_STATS_UPDATED', 'feesStats', payload);
const program = (payload: unknown) => event('BUS_EVENT_TYPE_REFERRAL_PROGRAM_STARTED', 'referralProgramStarted', payload);
const ID = 'ab'.repeat(32);

test('bad input is named, the same in both forms (family.md §10)', () => {
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [stats({ setId: 'zz', atEpoch: '1' }), 'referralSetStatsUpdated.setId', /not a hex id/],
    [stats({ setId: ID, refereesStats: [{ partyId: 'x1' }] }), 'referralSetStatsUpdated.refereesStats[0].partyId', /not a hex id/],
    [
      stats({ setId: ID, refereesStats: [{ partyId: ID, epochNotionalTakerVolume: '12a' }] }),
      'referralSetStatsUpdated.refereesStats[0].epochNotionalTakerVolume',
      /not a decimal number: "12a"/,
    ],
    [
      fees({ epochSeq: '1', referrerRewardsGenerated: [{ referrer: ID, generatedReward: [{ party: 'q', amount: '1' }] }] }),
      'feesStats.referrerRewardsGenerated[0].generatedReward[0].party',
      /not a hex id/,
    ],
    [
      fees({ epochSeq: '1', referrerRewardsGenerated: [{ referrer: ID, generatedReward: [{ party: ID, quantumAmount: '1e5' }] }] }),
      'feesStats.referrerRewardsGenerated[0].generatedReward[0].quantumAmount',
      /not a decimal number: "1e5"/,
    ],
    [program({ program: { id: 'nothex', version: '1' } }), 'referralProgramStarted.program.id', /not a hex id/],
    [
      program({ program: { id: ID, endOfProgramTimestamp: '9300000000' } }),
      'referralProgramStarted.program.endOfProgramTimestamp',
      /out of range/,
    ],
  ];
  for (const [e, field, reason] of cases) {
    const fromJson = () => decodeLine(JSON.stringify(e), 3);
    const bytes = encodeBusEvent({ version: 1, ...e });
    const fromBinary = () => decodeBusEvent(bytes, 0, bytes.length, { offset: 0 });
    for (const [form, decode] of [
      ['JSON', fromJson],
      ['binary', fromBinary],
    ] as const) {
      assert.throws(decode, (err: unknown) => {
        assert.ok(err instanceof InputError, `${form}: ${String(err)}`);
        assert.equal(err.field, field, form);
        assert.match(err.message, reason, form);
        assert.match(err.message, /9-1/, `${form}: the event is named`);
        return true;
      });
    }
  }
  // Absent strings and objects are no error: "" and null, volumes counting 0.
  const [absent] = decodeLine(JSON.stringify(stats({ setId: ID, refereesStats: [{ partyId: ID }] })), 1);
  assert.deepEqual((absent!.body as { referees: unknown[] }).referees, [
    { partyId: ID, volume: '', volumeValue: '0', discountFactors: null },
  ]);
});

for (const kind of STORE_KINDS) {
  describe(`referral family from an event file on ${kind}`, () => {
    const served = useServedStore(kind, { ingest: { file: EVTS } });

    test('answers as the JSON fixture says: the binary form builds the same read models', async () => {
      for (const c of loadExpectations('referral-family')) {
        const res = await get(served.url + c.request);
        assert.equal(res.status, c.status, c.name);
        assert.deepEqual(res.body, c.body, c.name);
      }
    });

    test('paging walks: every page size, forwards and backwards, both orders, ties included', async () => {
      const referees = `${served.url}/api/v2/referral-sets/referees`;
      const setStats = `${served.url}/api/v2/referral-sets/stats`;
      const history = `${setStats}?referralSetId=${'51'.repeat(32)}&referee=${'a1'.repeat(32)}`;
      for (const size of [1, 2, 3, 4]) {
        assert.equal(await assertPagingConsistent(referees, 'referralSetReferees', size), 4);
        assert.equal(await assertPagingConsistent(`${referees}?referralSetId=${'51'.repeat(32)}`, 'referralSetReferees', size), 2);
        assert.equal(await assertPagingConsistent(setStats, 'stats', size), 4);
        assert.equal(await assertPagingConsistent(`${setStats}?atEpoch=1`, 'stats', size), 4);
        assert.equal(await assertPagingConsistent(history, 'stats', size), 3);
      }
    });

    // The fixture's tables are tiny, where a sequential scan wins: the plans to check are those of
    // a real store, with sequential scans priced out.
    const NO_SEQSCAN = { enable_seqscan: 'off' };
    const cursor = (o: object) => encodeURIComponent(Buffer.from(JSON.stringify(o)).toString('base64'));
    const plans: [string, typeof listReferralSetReferees | typeof getReferralSetStats, string, RegExp][] = [
      ['referees, every one', listReferralSetReferees, 'pagination.first=2', /referral_set_referees_by_joined/],
      [
        'referees, by set',
        listReferralSetReferees,
        `referralSetId=${'51'.repeat(32)}&pagination.first=1`,
        /referral_set_referees_by_set_joined/,
      ],
      ['referees, by referee', listReferralSetReferees, `referee=${'a1'.repeat(32)}`, /referral_set_referees_pkey/],
      ['set stats, latest epoch', getReferralSetStats, 'pagination.first=2', /referral_set_referee_stats_pkey/],
      [
        'set stats, after a cursor',
        getReferralSetStats,
        `pagination.first=2&pagination.after=${cursor({ AtEpoch: 3, SetID: '52'.repeat(32), PartyID: 'a2'.repeat(32) })}`,
        /referral_set_referee_stats_pkey/,
      ],
      ['set stats, by referee', getReferralSetStats, `referee=${'a1'.repeat(32)}&atEpoch=2`, /referral_set_referee_stats_by_party/],
      [
        'set stats, history',
        getReferralSetStats,
        `referralSetId=${'51'.repeat(32)}&referee=${'a1'.repeat(32)}`,
        /referral_set_referee_stats_by_party/,
      ],
    ];
    for (const [name, op, query, index] of plans) {
      test(`plan: ${name} is an index range scan`, async () => {
        const [plan] = await explainOperation(served.store, op, query, {}, NO_SEQSCAN);
        assert.doesNotMatch(plan!, /Seq Scan on (?!chain_head)/, plan);
        assert.match(plan!, index, plan);
        // The window's totals are index ranges of the party's rows.
        if (op === listReferralSetReferees) {
          assert.match(plan!, /Index Only Scan using referral_set_referee_stats_by_party/, plan);
          assert.match(plan!, /Index (Only )?Scan using referral_generated_rewards_pkey/, plan);
        }
      });
    }
  });
}
