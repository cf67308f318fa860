// Builds the explorer's front-end (web/) into dist/web/: one JavaScript and one CSS file under
// dist/web/assets/, their names fingerprinted by content (so the server may let browsers keep them
// for a year), and dist/web/index.html naming them. Prints their gzipped sizes and fails when the
// total is over the budget the explorer promises. GraphiQL (web/graphiql/, React and graphiql
// bundled) goes alike into dist/web/graphiql/: its assets and index.html.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { gzipSync } from 'node:zlib';

const OUT = 'dist/web';
const ASSETS = `${OUT}/assets`;
const BUDGET_BYTES = 300 * 1024;

rmSync(OUT, { recursive: true, force: true });
const result = await build({
  entryPoints: ['web/main.ts'],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  outdir: ASSETS,
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((path) => relative('.', path));
const pick = (ext) => {
  const found = outputs.filter((p) => p.endsWith(ext));
  if (found.length !== 1) throw new Error(`expected one ${ext} file from esbuild, got ${found.join(', ') || 'none'}`);
  return found[0];
};
const js = pick('.js');
const css = pick('.css');

// The page's URLs are relative to <base href>, which the server fills in per route ({{base}}).
const html = readFileSync('web/index.html', 'utf8')
  .replace('{{css}}', `explorer/assets/${basename(css)}`)
  .replace('{{js}}', `explorer/assets/${basename(js)}`);
writeFileSync(`${OUT}/index.html`, html);

let total = 0;
const lines = [];
for (const file of [js, css]) {
  const gz = gzipSync(readFileSync(file), { level: 9 }).length;
  total += gz;
  lines.push(`  ${basename(file).padEnd(24)} ${kb(readFileSync(file).length).padStart(9)} ${kb(gz).padStart(9)} gzipped`);
}
console.log(`explorer front-end (${OUT}):\n${lines.join('\n')}\n  total ${kb(total)} gzipped (budget ${kb(BUDGET_BYTES)})`);
if (total > BUDGET_BYTES) {
  console.error(`the explorer's JavaScript and CSS are ${kb(total)} gzipped, over the ${kb(BUDGET_BYTES)} budget`);
  process.exit(1);
}

function kb(bytes) {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

// GraphiQL: its own bundle (React, CodeMirror, graphql-js), outside the explorer's budget.
const GRAPHIQL = `${OUT}/graphiql`;
const graphiql = await build({
  entryPoints: ['web/graphiql/main.ts'],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  outdir: `${GRAPHIQL}/assets`,
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
});
const graphiqlOutputs = Object.keys(graphiql.metafile.outputs).map((path) => relative('.', path));
const graphiqlFile = (ext) => basename(graphiqlOutputs.find((p) => p.endsWith(ext)));
writeFileSync(
  `${GRAPHIQL}/index.html`,
  readFileSync('web/graphiql/index.html', 'utf8')
    .replace('{{css}}', `graphql/assets/${graphiqlFile('.css')}`)
    .replace('{{js}}', `graphql/assets/${graphiqlFile('.js')}`),
);
console.log(`GraphiQL (${GRAPHIQL}): ${graphiqlOutputs.map((p) => basename(p)).join(', ')}`);
