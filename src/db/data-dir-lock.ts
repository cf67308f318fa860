import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** The file that marks an embedded store's folder as open, holding the owner's pid and host. */
export const DATA_DIR_LOCK = 'epochview.pid';

/** Another process has the embedded store's folder open. */
export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
}

/** Whether a process of this host runs with that pid (EPERM: it runs, as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the embedded store's folder for this process, and returns how to give it back.
 *
 * PGlite has no lock of its own, and a second process on the same folder corrupts it or aborts
 * (operations.md: the folder belongs to one process). The lock is a file holding the owner's pid:
 * left behind by a process that was killed, it names a pid no longer running, and is taken over.
 * A folder holding other files and no store is refused too: PostgreSQL would mix its own files
 * into it (a mistyped --data-dir pointing at an archive, say), where its initdb refuses.
 */
export function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const others = readdirSync(dir).filter((name) => name !== DATA_DIR_LOCK);
  if (others.length > 0 && !others.includes('PG_VERSION'))
    throw new Error(`the data folder ${dir} holds files and no embedded store (no PG_VERSION): give an empty or a new folder`);
  const path = join(dir, DATA_DIR_LOCK);
  const mine = `${process.pid} ${hostname()}`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, `${mine}\n`);
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(path, 'utf8').trim() === mine) unlinkSync(path);
        } catch {
          // Gone already: nothing to give back.
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let owner = '';
    try {
      owner = readFileSync(path, 'utf8').trim();
    } catch {
      continue; // Given back meanwhile: try again.
    }
    const [pid, host] = owner.split(' ');
    // Another host's process cannot be checked from here: taken to be running.
    if (host !== hostname() || running(Number(pid)))
      throw new DataDirInUseError(
        `the data folder ${dir} is open in process ${pid} on ${host}: the embedded store belongs to one process (stop it, or remove ${path} if no such process runs)`,
      );
    try {
      unlinkSync(path);
    } catch {
      // Another process took it over first: the next attempt sees whose it is.
    }
  }
  throw new DataDirInUseError(`the data folder ${dir} is being opened by another process`);
}
