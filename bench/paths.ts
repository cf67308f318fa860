import { fileURLToPath } from 'node:url';

/** The repository root, the built CLI and the benchmark's own files. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
export const CEILING_SERVER = fileURLToPath(new URL('./ceiling-server.ts', import.meta.url));
export const FLOOR_SERVER = fileURLToPath(new URL('./floor-server.ts', import.meta.url));
