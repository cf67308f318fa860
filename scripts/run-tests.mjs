// Runs every test file under test/ with node's test runner (TypeScript through tsx).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const files = [];
(function walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.test.ts')) files.push(p);
  }
})('test');
files.sort();

const filter = process.argv.slice(2);
const selected = filter.length ? files.filter((f) => filter.some((x) => f.includes(x))) : files;
const res = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...selected], { stdio: 'inherit' });
process.exit(res.status ?? 1);
