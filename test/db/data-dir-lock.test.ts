/** The embedded store folder's lock (src/db/data-dir-lock.ts), in process; the CLI's side is in test/cli/embedded-folder.test.ts. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DATA_DIR_LOCK, DataDirInUseError, lockDataDir } from '../../src/db/data-dir-lock.js';

const tmp = mkdtempSync(join(tmpdir(), 'epochview-lock-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

test("a lock naming this process's own pid is a killed process's (a restarted container's pid is often the same); held twice in one process, refused", () => {
  const dir = join(tmp, 'own-pid');
  mkdirSync(dir);
  writeFileSync(join(dir, DATA_DIR_LOCK), `${process.pid} ${hostname()}\n`);
  const unlock = lockDataDir(dir);
  assert.throws(
    () => lockDataDir(dir),
    (err: Error) => err instanceof DataDirInUseError && /is open in this process already/.test(err.message),
  );
  unlock();
  assert.deepEqual(readdirSync(dir), []);
  lockDataDir(dir)();
});

test("another host's lock is refused, and says to remove it by hand; a new file system's lost+found is no one's files", () => {
  const dir = join(tmp, 'other-host');
  mkdirSync(join(dir, 'lost+found'), { recursive: true });
  writeFileSync(join(dir, DATA_DIR_LOCK), '4242 elsewhere.example\n');
  assert.throws(
    () => lockDataDir(dir),
    (err: Error) =>
      err instanceof DataDirInUseError &&
      err.message ===
        `the data folder ${dir} is open in process 4242 on elsewhere.example, another host: the embedded store belongs to one process (if that process has stopped, remove ${join(dir, DATA_DIR_LOCK)})`,
  );
  assert.equal(readFileSync(join(dir, DATA_DIR_LOCK), 'utf8'), '4242 elsewhere.example\n');
  rmSync(join(dir, DATA_DIR_LOCK));
  lockDataDir(dir)();
});
