/**
 * The SQL that writes page bodies (src/pagination/sql-json.ts), run by both stores against the
 * contract's rules: Go's RFC3339Nano, Go's padded base64 on one line, ids with their well-known
 * names, and JSON strings escaped as Go's encoding/json escapes them.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { goJson } from '../../src/contract/json.js';
import { sqlBase64, sqlId, sqlJsonString, sqlRfc3339Nanos } from '../../src/pagination/sql-json.js';
import { useServedStore } from '../helpers/served-store.js';
import { STORE_KINDS } from '../helpers/stores.js';

/** Go's time.Time.Format(time.RFC3339Nano) in UTC, written independently: via Date, then the fraction. */
function goRfc3339Nano(ns: bigint): string {
  let secs = ns / 1_000_000_000n;
  let frac = ns % 1_000_000_000n;
  if (frac < 0n) {
    frac += 1_000_000_000n;
    secs -= 1n;
  }
  const fraction = frac === 0n ? '' : `.${frac.toString().padStart(9, '0').replace(/0+$/, '')}`;
  return `${new Date(Number(secs) * 1000).toISOString().slice(0, 19) + fraction}Z`;
}

for (const kind of STORE_KINDS) {
  describe(`page JSON written by SQL on ${kind}`, () => {
    const served = useServedStore(kind, { server: false });
    const one = async (sql: string, params: string[] = []) => (await served.store.query<{ v: string }>(`SELECT ${sql} AS v`, params))[0]!.v;

    test('RFC3339Nano: fractions trimmed, none when whole, times before 1970, the int64 range', async () => {
      const times = [
        1709251740123456000n,
        1709250000250000000n,
        1709250000000000000n,
        1n,
        0n,
        -1n,
        -1_000_000_000n,
        -1_500_000_000n,
        999_999_999n,
        951_782_400_000_000_000n,
        -(2n ** 63n),
        2n ** 63n - 1n,
      ];
      for (const ns of times) assert.equal(await one(sqlRfc3339Nanos('$1::bigint'), [String(ns)]), goRfc3339Nano(ns), String(ns));
      assert.equal(await one(sqlRfc3339Nanos('$1::bigint'), ['1709250000250000000']), '2024-02-29T23:40:00.25Z');
    });

    test('base64: padded, standard alphabet, no line breaks however long', async () => {
      for (const text of ['', 'a', 'ab', 'abc', `{"ID":"${'f'.repeat(300)}"}`, 'é ü ✓ <>&']) {
        assert.equal(await one(sqlBase64('$1::text'), [text]), Buffer.from(text, 'utf8').toString('base64'), text);
      }
    });

    test('ids: lowercase hex, well-known names for their one-byte ids, the empty id', async () => {
      const cases: [string, string][] = [
        ['00', 'VOTE'],
        ['09', 'fBTC'],
        ['0c', 'fUSDC'],
        ['0d', '0d'],
        ['09ab', '09ab'],
        ['', ''],
        ['ABCDEF', 'abcdef'],
      ];
      for (const [hex, shown] of cases) assert.equal(await one(sqlId(`decode($1, 'hex')`), [hex]), shown, hex);
    });

    test('JSON strings escaped as Go escapes them', async () => {
      for (const text of ['plain', 'a "quoted" \\ back', '<b> & </b>', 'line\nbreak\ttab', 'sep\u2028\u2029', 'üñí ✓']) {
        assert.equal(await one(sqlJsonString('$1'), [text]), goJson(text), JSON.stringify(text));
      }
    });
  });
}
