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
