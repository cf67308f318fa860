/** A Vega core's broker socket client, played by libnanomsg (Perl NanoMsg::Raw, nanomsg-peer.pl) in a process of its own. */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { eventually } from './serve.js';
import { get } from './server.js';

const PEER = fileURLToPath(new URL('./nanomsg-peer.pl', import.meta.url));

/** Every peer process started; a failed test leaves none running (they would keep the test file open). */
const peers = new Set<ChildProcess>();

/**
 * The port of a `serve --broker-listen HOST:0` at `url`, once it listens for the core: serve's
 * banner may come before the socket is bound.
 */
export async function brokerPort(url: string): Promise<number> {
  let port = 0;
  await eventually('the broker listening', async () => {
    const ready = (await get(`${url}/readyz`)).body as { source?: { listen?: string } };
    port = Number(ready.source?.listen?.split(':')[1]);
    return port > 0;
  });
  return port;
}

/** Kills every core still running (a test file's `after`). */
export function killCores(): void {
  for (const p of peers) p.kill('SIGKILL');
}

/** A core, played by libnanomsg in a Perl process: dials `port` and sends event files when told. */
export class Core {
  private readonly child: ChildProcess;
  private readonly replies: string[] = [];
  private waiting: (() => void) | undefined;
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(port: number) {
    this.child = spawn('perl', [PEER, `tcp://127.0.0.1:${port}`], { stdio: ['pipe', 'pipe', 'pipe'] });
    peers.add(this.child);
    this.child.stderr!.on('data', (d) => (this.stderr += d));
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      this.replies.push(line);
      this.waiting?.();
    });
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code) => {
        peers.delete(this.child);
        resolve(code);
      }),
    );
  }

  /** Sends every event of the file; resolves once nanomsg took them. */
  async send(file: string): Promise<void> {
    this.child.stdin!.write(`send ${file}\n`);
    while (this.replies.length === 0) {
      await Promise.race([
        new Promise<void>((resolve) => (this.waiting = resolve)),
        this.exited.then((code) => assert.fail(`the peer exited (${code}): ${this.stderr}`)),
      ]);
    }
    assert.match(this.replies.shift()!, /^sent \d+ /);
  }

  /** Closes the socket: the connection ends (in the middle of a block, if that is where it is). */
  async close(): Promise<void> {
    this.child.stdin!.end('close\n');
    assert.equal(await this.exited, 0, this.stderr);
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}
