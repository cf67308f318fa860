import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { checkoutCommit } from './describe.js';
import { ROOT } from './paths.js';

/**
 * A build of epochview to measure: this checkout, another built checkout, or a git commit
 * exported into a folder of its own and built there.
 */
export interface Build {
  /** Its name in results: the short commit, `+changes` when the checkout has uncommitted ones. */
  id: string;
  /** The checkout's folder. */
  dir: string;
  /** Its CLI, run as a user runs it. */
  cli: string;
  /** Whether it is exactly a commit, so that what it ingested can be reused by a later run. */
  exact: boolean;
}

/**
 * The build `spec` names: `.` (this checkout, built by `npm run build`), the folder of a built
 * checkout, or a git revision of this repository (a commit, branch or tag), which is exported
 * with `git archive` into `<buildsDir>/<commit>` and built there once (its node_modules linked
 * from this checkout when the lockfiles are the same, else installed with npm ci).
 */
export function resolveBuild(spec: string, buildsDir: string, log: (s: string) => void): Build {
  if (spec === '.' || existsSync(resolve(spec))) {
    const dir = spec === '.' ? ROOT : resolve(spec);
    const cli = join(dir, 'dist', 'cli.js');
    if (!existsSync(cli)) throw new Error(`${cli} is missing: build that checkout first (npm run build)`);
    const c = checkoutCommit(dir);
    return { id: c ? `${c.commit}${c.dirty ? '+changes' : ''}` : basename(dir), dir, cli, exact: c !== undefined && !c.dirty };
  }
  let commit: string;
  try {
    commit = git(['rev-parse', '--verify', '--short', `${spec}^{commit}`]);
  } catch {
    throw new Error(`--build ${spec}: neither a folder nor a git revision of ${ROOT}`);
  }
  const dir = join(buildsDir, commit);
  const cli = join(dir, 'dist', 'cli.js');
  if (!existsSync(cli)) exportAndBuild(commit, dir, log);
  return { id: commit, dir, cli, exact: true };
}

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
}

/** The commit's files into a temporary folder, installed and built, then renamed into place: a folder there is complete. */
function exportAndBuild(commit: string, dir: string, log: (s: string) => void): void {
  const tmp = `${dir}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  log(`exporting ${commit} into ${dir} and building it…`);
  const tar = join(tmp, '..', `${commit}.tar`);
  execFileSync('git', ['archive', '--format=tar', '-o', tar, commit], { cwd: ROOT });
  execFileSync('tar', ['-xf', tar, '-C', tmp]);
  rmSync(tar);
  const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { cwd: tmp, stdio: ['ignore', 'ignore', 'inherit'] });
  const lockfile = (d: string) => readFileSync(join(d, 'package-lock.json'), 'utf8');
  if (existsSync(join(ROOT, 'node_modules')) && lockfile(tmp) === lockfile(ROOT))
    symlinkSync(join(ROOT, 'node_modules'), join(tmp, 'node_modules'));
  else run('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline']);
  // npm ci builds it (the prepare script); a linked node_modules does not.
  if (!existsSync(join(tmp, 'dist', 'cli.js'))) run('npm', ['run', 'build']);
  renameSync(tmp, dir);
}
