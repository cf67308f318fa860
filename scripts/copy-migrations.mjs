// tsc does not copy non-TypeScript files: put the SQL migrations next to the compiled migrate.js.
import { cpSync } from 'node:fs';
cpSync('src/db/migrations', 'dist/db/migrations', { recursive: true });
