import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SETTINGS, type SettingSpec } from '../src/config.js';

test('the README configuration table lists every setting with its flag, variable and default', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const rows = readme.split('\n').filter((l) => l.startsWith('| `--'));
  assert.equal(rows.length, Object.keys(SETTINGS).length);
  for (const s of Object.values(SETTINGS) as SettingSpec[]) {
    const row = rows.find((r) => r.startsWith(`| \`--${s.flag}\` | \`${s.env}\` |`));
    assert.ok(row, `README row for --${s.flag}`);
    if (s.default !== undefined) assert.ok(row.includes(`\`${s.default}\``), `default of --${s.flag}`);
  }
});

test('the README names the range of every integer setting that must be at least 1', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const ranges = readme.split('\n\n').find((p) => p.startsWith('A value outside its range is refused'));
  assert.ok(ranges, "the README's paragraph on ranges");
  for (const s of Object.values(SETTINGS) as SettingSpec[]) {
    if (s.kind === 'int' && (s.min ?? 0) > 0) assert.ok(ranges.includes(`\`--${s.flag}\``), `--${s.flag} in the ranges`);
  }
  assert.ok(ranges.includes(`at least ${SETTINGS.maxUrlLength.min}`));
});
