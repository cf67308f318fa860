import { spawn, type ChildProcess } from 'node:child_process';
import { CLI, NODE_FLAGS } from './cli.js';

/** `epochview serve` as a real process on a free loopback port. */
export interface ServeProcess {
  url: string;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** JSON log lines on stdout so far. */
  logs(): Record<string, unknown>[];
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Sends the signal (SIGTERM by default) and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `epochview serve` and resolves once it serves (its banner), or with `listening` as soon
 * as its HTTP server listens, the store perhaps not ready yet.
 */
export async function startServe(args: string[], env: NodeJS.ProcessEnv = {}, opts: { listening?: boolean } = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...NODE_FLAGS, CLI, 'serve', '--port', '0', '--host', '127.0.0.1', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running: nothing else would stop it.
      child.kill('SIGKILL');
      reject(new Error(`serve did not start in 60 s:\n${stdout}\n${stderr}`));
    }, 60_000);
    child.stdout!.on('data', () => {
      const m = opts.listening
        ? /"address":"(http:\/\/[0-9.:]+)".*"msg":"listening/.exec(stdout)
        : /serving .* on (http:\/\/[0-9.:]+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited early (${code}):\n${stdout}\n${stderr}`));
    });
  });
  return {
    url,
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    logs: () =>
      stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Polls `check` every 100 ms until it returns true, or fails after `ms`. */
export async function eventually(what: string, check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The value of one sample of a Prometheus text exposition, e.g. sample(text, 'x_total{a="b"}'). */
export function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}
