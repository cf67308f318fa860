import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * One load run over a list of URLs with wrk (Debian's package: a C program that only counts the
 * bytes of an answer, so it takes little CPU from the server), driven by a Lua script.
 */

export interface LoadResult {
  requests: number;
  seconds: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  /** Connection errors, timeouts and non-2xx answers. */
  errors: number;
  /** With `once`: requests that asked a URL again, the list having run out (0: every URL at most once). */
  repeated?: number;
}

export interface LoadOptions {
  /** The server, e.g. http://127.0.0.1:3008. */
  baseUrl: string;
  /** The requests' paths and queries; sent round-robin, or in `order`. */
  urls: readonly string[];
  /** Indices into urls, sent round-robin (a skewed sequence, say); urls in turn when absent. */
  order?: readonly number[];
  /**
   * Each URL of the sequence once, the threads taking turns over it (thread t sends the
   * t-th, the (t+threads)-th…); should it run out, it starts again, and the result counts the
   * requests beyond it (`repeated`).
   */
  once?: boolean;
  connections: number;
  /** Seconds to run; ignored when `requests` is given. */
  duration: number;
  /** Send this many requests with plain fetch instead (a quick check of the harness, not a measurement). */
  requests?: number | undefined;
  headers?: Record<string, string>;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

/**
 * A fixed number of requests over `connections` workers with fetch: for checking the harness
 * quickly (wrk runs whole seconds), not for measuring.
 */
async function fixedLoad(opts: LoadOptions & { requests: number }): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let left = opts.requests;
  const started = performance.now();
  const sequence = requestSequence(opts);
  let next = 0;
  const worker = async () => {
    while (left-- > 0) {
      const t = performance.now();
      try {
        const res = await fetch(opts.baseUrl + sequence[next++ % sequence.length]!, { headers: opts.headers ?? {} });
        await res.arrayBuffer();
        if (res.status >= 200 && res.status < 300) latencies.push(performance.now() - t);
        else errors++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.connections }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: opts.requests,
    seconds,
    reqPerSec: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
  };
}

/** The paths in the order they are sent. */
function requestSequence(opts: LoadOptions): string[] {
  return opts.order ? opts.order.map((i) => opts.urls[i]!) : [...opts.urls];
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  if (opts.requests !== undefined) return fixedLoad({ ...opts, requests: opts.requests });
  return wrkLoad(opts);
}

/** Whether wrk is on the PATH. */
export function wrkInstalled(): boolean {
  return spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
}

/**
 * The wrk script: the URLs and the order to send them in, as text parsed once per thread (a
 * table constructor of thousands of constants would hit Lua's limits); each thread starts at
 * its own place in the sequence. done() writes the report as JSON; latencies in microseconds.
 */
function wrkScript(urls: readonly string[], order: readonly number[], once: boolean, threads: number): string {
  for (const u of urls) if (/[\n\]]/.test(u)) throw new Error(`a URL wrk cannot carry: ${u}`);
  return `local urls_text = [[
${urls.join('\n')}
]]
local order_text = "${order.map((i) => i + 1).join(',')}"
local once = ${once}
local nthreads = ${threads}
local count = ${order.length}
local threads = {}
setup = function(thread)
  thread:set("offset", #threads)
  threads[#threads + 1] = thread
end
init = function(args)
  urls = {}
  for line in urls_text:gmatch("[^\\n]+") do urls[#urls + 1] = line end
  order = {}
  for n in order_text:gmatch("%d+") do order[#order + 1] = tonumber(n) end
  sent = 0
  if once then
    i = offset or 0
  else
    i = math.floor((offset or 0) * #order / 2)
  end
end
request = function()
  sent = sent + 1
  if once then
    i = i % #order
    local url = urls[order[i + 1]]
    i = i + nthreads
    return wrk.format("GET", url)
  end
  i = i % #order + 1
  return wrk.format("GET", urls[order[i]])
end
done = function(summary, latency, requests)
  local e = summary.errors
  local repeated = 0
  for t, thread in ipairs(threads) do
    local share = math.floor((count - t) / nthreads) + 1
    local extra = (thread:get("sent") or 0) - share
    if extra > 0 then repeated = repeated + extra end
  end
  io.write(string.format('\\n{"requests":%d,"micros":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"p50":%d,"p99":%d,"repeated":%d}\\n',
    summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout, latency:percentile(50), latency:percentile(99), repeated))
end
`;
}

/**
 * wrk, two threads (one when there is one connection: wrk needs a connection per thread):
 * latencies from its histogram (microseconds), errors of every kind.
 */
async function wrkLoad(opts: LoadOptions): Promise<LoadResult> {
  const script = join(mkdtempSync(join(tmpdir(), 'epochview-wrk-')), 'load.lua');
  const threads = Math.min(2, opts.connections);
  writeFileSync(script, wrkScript(opts.urls, opts.order ?? opts.urls.map((_, i) => i), opts.once ?? false, threads));
  const args = [`-t${threads}`, `-c${opts.connections}`, `-d${opts.duration}s`, '--timeout', '10s', '-s', script];
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push('-H', `${k}: ${v}`);
  args.push(opts.baseUrl);
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'ENOENT' ? new Error('wrk is not installed (Debian: apt-get install wrk)') : e),
    );
    child.on('close', (c) => resolve({ code: c, stdout: out, stderr: err }));
  });
  rmSync(dirname(script), { recursive: true, force: true });
  const line = stdout.split('\n').find((l) => l.startsWith('{"requests"'));
  if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}): ${stderr || stdout}`);
  const r = JSON.parse(line) as Record<
    'requests' | 'micros' | 'status' | 'connect' | 'read' | 'write' | 'timeout' | 'p50' | 'p99' | 'repeated',
    number
  >;
  const seconds = Math.max(1e-3, r.micros / 1e6);
  return {
    requests: r.requests,
    seconds,
    // Successful answers per second: wrk's status errors are the answers other than 2xx and 3xx.
    reqPerSec: (r.requests - r.status) / seconds,
    p50: r.p50 / 1000,
    p99: r.p99 / 1000,
    errors: r.status + r.connect + r.read + r.write + r.timeout,
    ...(opts.once ? { repeated: r.repeated } : {}),
  };
}
