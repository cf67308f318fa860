/**
 * The repo holds all it tests with: no file reads or points to a `shared` folder beside the clone
 * (where the project's docs and fixtures were first written). The one exception is the line of
 * .ci/run that names where the CI machine keeps the real network's files for test:vega-data.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const DIRS = ['src', 'test', 'bench', 'scripts', 'web', '.ci'];
/** The folder beside the clone, built from its parts so that this file holds no path to it. */
const NAME = 'shared';
const BESIDE = ['..', NAME].join('/');
const CI_VEGA_DATA = `EPOCHVIEW_VEGA_FIXTURES=${BESIDE}/fixtures/vega npm run test:vega-data`;

/** The folder beside the clone (either slash), its fixtures or docs folder named alone, or a path joined from '..' and its name. */
const SHARED = /\.\.[\\/]+shared\b|\bshared[\\/]+(?:fixtures|docs)\b|['"`]\.\.['"`]\s*,\s*['"`]shared['"`]/;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (!e.isDirectory()) return [p];
    // Local caches (bench/.cache) and installed packages are not the repo's.
    return e.name.startsWith('.') || e.name === 'node_modules' ? [] : files(p);
  });
}

test('the pattern catches the ways a file pointed to the folder beside the clone, and not the word alone', () => {
  for (const line of [
    `export const FIXTURES = fileURLToPath(new URL('../../${BESIDE}/fixtures/', import.meta.url));`,
    `export const REAL_FIXTURE = join(ROOT, '..', '${NAME}', 'fixtures', 'vega', 'smoketest_to_block_5000.ndjson');`,
    ` * ${BESIDE}/docs/sources.md §1, for the payloads this service reads`,
    `// In /work/${NAME}/fixtures/vega/smoketest_to_block_5000 (a real network)`,
    `see ${BESIDE.replace('/', '\\')}\\docs\\events.md`,
  ]) {
    assert.match(line, SHARED);
  }
  for (const line of ["export type CacheOutcome = 'hit' | 'shared' | 'miss' | 'bypass';", 'the shared fixtures', 'a shared machine']) {
    assert.doesNotMatch(line, SHARED);
  }
});

test('no file of the repo refers to the folder beside the clone, but .ci/run for test:vega-data', () => {
  const scanned = [join(ROOT, 'package.json'), ...DIRS.flatMap((d) => files(join(ROOT, d)))];
  assert.ok(scanned.length > 100, `${scanned.length} files`);
  const found: string[] = [];
  let ciLines = 0;
  for (const file of scanned) {
    if (file === SELF) continue; // its patterns and examples
    const name = relative(ROOT, file);
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (name === join('.ci', 'run') && line.trim() === CI_VEGA_DATA) ciLines++;
        else if (SHARED.test(line)) found.push(`${name}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(found, []);
  assert.equal(ciLines, 1, `.ci/run runs: ${CI_VEGA_DATA}`);
});
