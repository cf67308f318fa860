import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';

/** What a results file says of where and what was measured, and the writing of it. */

/**
 * The short commit of a git checkout, and whether it has uncommitted changes; undefined outside
 * git, and for a folder inside another checkout (a build exported under bench/.cache/builds),
 * which is not that checkout's commit.
 */
export function checkoutCommit(dir: string): { commit: string; dirty: boolean } | undefined {
  const git = (args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    if (realpathSync(git(['rev-parse', '--show-toplevel'])) !== realpathSync(dir)) return undefined;
    return { commit: git(['rev-parse', '--short', 'HEAD']), dirty: git(['status', '--porcelain']) !== '' };
  } catch {
    return undefined;
  }
}

/** This checkout's commit for a results header, e.g. `8b8b5fb with uncommitted changes`. */
export function describeCommit(dir: string): string {
  const c = checkoutCommit(dir);
  return c ? `${c.commit}${c.dirty ? ' with uncommitted changes' : ''}` : 'unknown';
}

/** Cores, CPU model, memory and kernel. */
export function describeMachine(): string {
  const cpu = cpus();
  return (
    `${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown cpu'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory ` +
    `(${(freemem() / 2 ** 30).toFixed(1)} GiB free at start), Linux ${release()}`
  );
}

/** The load average over 1, 5 and 15 minutes, e.g. `2.1 1.8 1.5`. */
export function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
}

/** Today as YYYY-MM-DD, the prefix of every results file. */
export const today = () => new Date().toISOString().slice(0, 10);

/** Writes a results file (the folder made if need be) and prints it; returns its path. */
export function writeResults(dir: string, file: string, text: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, file);
  writeFileSync(path, text);
  process.stdout.write(text);
  return path;
}
