/**
 * The import rules of src/ (npm run lint; part of npm test). Data flows one way, and so do the
 * imports: cli/serve → doors (http and its graphql door, grpc) → operations → {pagination, db, contract}; ingest → {sources, db,
 * contract}; contract imports nothing of ours and no framework or driver; lib (Node.js helpers any
 * layer may use) imports nothing of ours.
 */

/** A layer may import itself, lib and the layers listed. */
function layer(name, folder, mayImport) {
  const allowed = [folder, 'lib', ...mayImport].join('|');
  return {
    name,
    comment: `src/${folder}/ may import only from src/{${allowed}}/`,
    severity: 'error',
    from: { path: `^src/${folder}/` },
    to: { path: '^src/', pathNot: `^src/(${allowed})/` },
  };
}

module.exports = {
  forbidden: [
    layer('lib-imports-nothing-of-ours', 'lib', []),
    layer('contract-imports-nothing-of-ours', 'contract', []),
    layer('db-is-a-leaf', 'db', []),
    layer('sources-import-contract-only', 'sources', ['contract']),
    layer('pagination-over-db-and-contract', 'pagination', ['db', 'contract']),
    layer('operations-over-pagination-db-contract', 'operations', ['pagination', 'db', 'contract']),
    layer('http-over-operations', 'http', ['graphql', 'operations', 'pagination', 'db', 'contract']),
    // GraphQL is a door beside REST: it uses the HTTP layer's answers, limits and cache.
    layer('graphql-over-http-operations', 'graphql', ['http', 'operations', 'pagination', 'db', 'contract']),
    layer('grpc-over-operations', 'grpc', ['operations', 'pagination', 'db', 'contract']),
    layer('ingest-over-sources-db-contract', 'ingest', ['sources', 'db', 'contract']),
    layer('demo-writes-sources-events', 'demo', ['sources', 'contract']),
    {
      name: 'contract-has-no-framework-or-driver',
      comment: 'the contract layer is plain TypeScript: no Fastify, no database driver',
      severity: 'error',
      from: { path: '^src/contract/' },
      to: { path: 'node_modules/(fastify|@fastify/|pg/|pg-|@electric-sql/)' },
    },
    {
      name: 'src-does-not-import-tests-or-bench',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'no-circular',
      comment: 'import cycles make the layers meaningless',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-orphans',
      comment: 'a module nothing imports is dead code (cli.ts is the entry point)',
      severity: 'error',
      from: { orphan: true, path: '^src/', pathNot: ['^src/cli\\.ts$', '\\.d\\.ts$'] },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
