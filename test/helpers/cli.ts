import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
/** The repo's own test data (test/fixtures/README.md says what each file holds). */
export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/**
 * Node's flags for the processes the tests start (and scripts/run-tests.mjs for the tests' own):
 * WebAssembly by the baseline compiler alone. Starting PGlite otherwise has V8 optimise the
 * code it runs once at start, about half of what a start costs; the suite starts it hundreds
 * of times, and what its tests check does not depend on the compiler.
 */
export const NODE_FLAGS = ['--liftoff-only'];

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as a user would, optionally feeding stdin. */
export function runCli(args: string[], opts: { stdin?: string | Buffer; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  return runNode([CLI, ...args], opts);
}

/** Runs node with `args` (a script and its arguments), collecting its output. */
export function runNode(args: string[], opts: { stdin?: string | Buffer; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, ...args], {
      env: { ...process.env, ...opts.env },
      cwd: opts.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A process may stop before it has read all of its input (ingest at a bad event): the pipe
    // then breaks, as for any Unix reader, and its exit and output say the rest.
    child.stdin.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') reject(err);
    });
    child.stdin.end(opts.stdin ?? '');
  });
}
