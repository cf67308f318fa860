import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../scripts/pg-cluster.js';
import { CEILING_SERVER, CLI, FLOOR_SERVER, ROOT } from './paths.js';

/** A server child process on a loopback port. Its stdout (the request log) goes to /dev/null. */
export interface RunningServer {
  url: string;
  pid: number;
  /** The last 10,000 characters it wrote to stderr (its log). */
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts a server and waits until `ready` answers (serve listens before its store is ready). */
async function start(
  args: string[],
  port: number,
  what: string,
  ready: { path: string; status?: number },
  launch: readonly string[] = [process.execPath],
): Promise<RunningServer> {
  const [command, ...rest] = [...launch, ...args];
  const child: ChildProcess = spawn(command!, rest, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-10_000);
  });
  let exited: number | null | undefined;
  const closed = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = code;
      resolve();
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (exited !== undefined) throw new Error(`${what} exited (${exited}) before serving: ${stderr}`);
    try {
      const res = await fetch(url + ready.path);
      await res.arrayBuffer();
      if (ready.status === undefined || res.status === ready.status) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${what} did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    stderr: () => stderr,
    async stop() {
      if (exited === undefined) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await closed;
        clearTimeout(timer);
      }
    },
  };
}

/**
 * The service as users run it: `epochview serve` from this build, or from another build's CLI.
 * `launch` is the command that runs the CLI's script: node, or node with flags under another
 * program (valgrind, whose process is then the pid).
 */
export async function startService(
  storeArgs: string[],
  logLevel: string,
  cli = CLI,
  launch: readonly string[] = [process.execPath],
): Promise<RunningServer> {
  const port = await freePort();
  return start(
    [cli, 'serve', '--host', '127.0.0.1', '--port', String(port), '--log-level', logLevel, '--demo-on-empty', 'false', ...storeArgs],
    port,
    'epochview serve',
    { path: '/readyz', status: 200 },
    launch,
  );
}

/** The ceiling server answering recorded responses from memory (see ceiling-server.ts). */
export async function startCeiling(recordedFile: string, logLevel: string): Promise<RunningServer> {
  const port = await freePort();
  // Any answer means it listens (the root is a 404).
  return start(['--import', 'tsx', CEILING_SERVER, String(port), recordedFile, logLevel], port, 'ceiling server', { path: '/' });
}

/** The transports' floor (see floor-server.ts): HTTP/1.1 at url, gRPC over HTTP/2 on 127.0.0.1:http2Port. */
export async function startFloor(recordedFile: string): Promise<RunningServer & { http2Port: number }> {
  const [port, http2Port] = [await freePort(), await freePort()];
  const args = ['--import', 'tsx', FLOOR_SERVER, String(port), String(http2Port), recordedFile];
  // Any answer means it listens (an unknown URL is a 404); both servers start listening in one tick.
  return { ...(await start(args, port, 'floor server', { path: '/' })), http2Port };
}
