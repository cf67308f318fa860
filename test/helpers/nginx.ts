import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { eventually } from './serve.js';

/** Debian's nginx (the package `nginx`; .ci/run installs it). */
export const NGINX = '/usr/sbin/nginx';

/** The nginx configuration the README shows under "Behind a CDN or a caching proxy" (its `http` block's part). */
export function readmeNginxConfig(): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Behind a CDN or a caching proxy'));
  const m = /```nginx\n([\s\S]*?)```/.exec(section);
  if (!m) throw new Error('no nginx block in the README section "Behind a CDN or a caching proxy"');
  return m[1]!;
}

/** A free loopback port (nginx cannot listen on port 0 and say which it got). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface NginxProcess {
  url: string;
  pid: number;
  /** Stops it (SIGTERM) and waits for its exit. */
  stop(): Promise<void>;
}

/**
 * nginx as a child process of the test: the README's configuration with the origin, port and
 * cache folder of this run, in a prefix of its own under `dir`, one process (no master, so no
 * user switch when the tests run as root). Resolves once it proxies.
 */
export async function startNginx(dir: string, origin: string): Promise<NginxProcess> {
  const port = await freePort();
  for (const d of ['cache', 'temp']) mkdirSync(join(dir, d), { recursive: true });
  let ours = readmeNginxConfig();
  const set = (from: string, to: string) => {
    if (!ours.includes(from)) throw new Error(`the README's nginx configuration has no "${from}" for the test to replace`);
    ours = ours.replace(from, to);
  };
  set('/var/cache/nginx/epochview', join(dir, 'cache'));
  set('server 127.0.0.1:3008;', `server ${new URL(origin).host};`);
  set('listen 8080;', `listen 127.0.0.1:${port};`);
  const temp = join(dir, 'temp');
  const conf = `daemon off;
master_process off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 512; }
http {
access_log off;
client_body_temp_path ${temp}/body;
proxy_temp_path ${temp}/proxy;
fastcgi_temp_path ${temp}/fastcgi;
uwsgi_temp_path ${temp}/uwsgi;
scgi_temp_path ${temp}/scgi;
${ours}
}
`;
  const file = join(dir, 'nginx.conf');
  writeFileSync(file, conf);
  const child = spawn(NGINX, ['-p', dir, '-e', join(dir, 'error.log'), '-c', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await eventually('nginx proxying', async () => {
      if (child.exitCode !== null)
        throw new Error(`nginx exited (${child.exitCode}): ${output}${readFileSync(join(dir, 'error.log'), 'utf8')}`);
      return fetch(`${url}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      );
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, pid: child.pid!, stop };
}
