/** The import rules (npm run lint) hold for src/, and a wrong import fails them. */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runNode } from './helpers/cli.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const lint = (cwd: string) => runNode([DEPCRUISE, 'src', '--config', '.dependency-cruiser.cjs'], { cwd });

test('src/ follows the import rules', async () => {
  const res = await lint(ROOT);
  assert.equal(res.code, 0, res.stdout + res.stderr);
});

test('an import against the layers fails the lint, naming the rule', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'epochview-lint-'));
  try {
    cpSync(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }));
    const files: Record<string, string> = {
      'src/cli.ts': "import { ID } from './contract/ids.js';\nimport { serve } from './http/server.js';\nconsole.log(ID, serve);\n",
      // The contract layer reaching up into http/.
      'src/contract/ids.ts': "import { serve } from '../http/server.js';\nexport const ID = serve;\n",
      'src/http/server.ts': 'export const serve = 1;\n',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const res = await lint(dir);
    assert.notEqual(res.code, 0);
    assert.match(res.stdout, /error contract-imports-nothing-of-ours: src\/contract\/ids\.ts → src\/http\/server\.ts/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
