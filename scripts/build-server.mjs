// Builds the service (src/) into dist/: each TypeScript file compiled alone to a JavaScript file
// and its source map by esbuild, in the same place under dist/ as tsc would put it, and the SQL
// migrations copied beside the compiled migrate.js. The typecheck is a step of its own
// (`npm run typecheck`, part of `npm test`), and tsconfig.json's isolatedModules makes tsc refuse
// what a file compiled alone could get wrong: the build itself need not check types. (tsc's emit
// took 11 s of a 2-core machine before anything else of `npm test` could start; esbuild, a
// fraction of a second.) dist/ is made afresh: a file removed from src/ must not live on in it.
import { build } from 'esbuild';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

rmSync('dist', { recursive: true, force: true });

const entryPoints = readdirSync('src', { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
  .map((e) => join(e.parentPath ?? e.path, e.name));

await build({
  entryPoints,
  outbase: 'src',
  outdir: 'dist',
  bundle: false,
  format: 'esm',
  platform: 'node',
  // The oldest Node the package supports (engines).
  target: 'node20.19',
  sourcemap: true,
  logLevel: 'warning',
});

cpSync('src/db/migrations', 'dist/db/migrations', { recursive: true });
