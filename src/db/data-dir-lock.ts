import { closeSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

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

/** Files a freshly made file system holds, which do not make a folder someone's. */
const FILE_SYSTEM_FILES = new Set(['lost+found']);

/** The folders this process has open: its own pid in a lock file is then not a killed process's. */
const held = new Set<string>();

/**
 * Takes the embedded store's folder for this process, and returns how to give it back.
 *
 * PGlite has no lock of its own, and a second process on the same folder corrupts it or aborts
 * (operations.md: the folder belongs to one process). The lock is a file holding the owner's pid
 * and host: left behind by a killed process of this host (its pid no longer running, or this
 * process's own, as a restarted container's often is), it is taken over. A folder holding other
 * files and no store is refused too: PostgreSQL would mix its own files into it (a mistyped
 * --data-dir pointing at an archive, say), where its initdb refuses.
 */
export function lockDataDir(dir: string): () => void {
  const key = resolve(dir);
  if (held.has(key)) throw new DataDirInUseError(`the data folder ${dir} is open in this process already`);
  mkdirSync(dir, { recursive: true });
  const others = readdirSync(dir).filter((name) => name !== DATA_DIR_LOCK && !FILE_SYSTEM_FILES.has(name));
  if (others.length > 0 && !others.includes('PG_VERSION'))
    throw new Error(`the data folder ${dir} holds files and no embedded store (no PG_VERSION): give an empty or a new folder`);
  const path = join(dir, DATA_DIR_LOCK);
  const mine = `${process.pid} ${hostname()}`;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, `${mine}\n`);
      closeSync(fd);
      held.add(key);
      return () => {
        held.delete(key);
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
    if (host !== hostname())
      throw new DataDirInUseError(
        `the data folder ${dir} is open in process ${pid} on ${host}, another host: the embedded store belongs to one process (if that process has stopped, remove ${path})`,
      );
    if (Number(pid) !== process.pid && running(Number(pid)))
      throw new DataDirInUseError(
        `the data folder ${dir} is open in process ${pid} on ${host}: the embedded store belongs to one process (stop it, or remove ${path} if no such process runs)`,
      );
    // A killed process's lock. Moved aside first, atomically, so that of two processes taking it
    // over at once, one removes it; the other would remove the lock the first has just made.
    const aside = `${path}.${process.pid}`;
    try {
      renameSync(path, aside);
    } catch {
      continue; // Taken or given back meanwhile: look again.
    }
    let moved = '';
    try {
      moved = readFileSync(aside, 'utf8').trim();
    } catch {
      // Nothing to read: removed below all the same.
    }
    // Not the stale lock but one made meanwhile: put back, never over a newer one.
    if (moved !== owner) {
      try {
        linkSync(aside, path);
      } catch {
        // A newer lock is there: the next attempt sees whose it is.
      }
    }
    unlinkSync(aside);
  }
  throw new DataDirInUseError(`the data folder ${dir} is being opened by another process`);
}
