import autocannon from 'autocannon';

/**
 * One load run with autocannon. Latencies are taken from autocannon's per-response event, in
 * fractional milliseconds: its own histogram records whole milliseconds, too coarse for pages
 * answered in well under one.
 */
export interface LoadResult {
  requests: number;
  seconds: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  /** Connection errors, timeouts and non-2xx answers. */
  errors: number;
}

export interface LoadOptions {
  url: string;
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
 * quickly (autocannon runs at least a second), not for measuring.
 */
async function fixedLoad(opts: LoadOptions & { requests: number }): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let left = opts.requests;
  const started = performance.now();
  const worker = async () => {
    while (left-- > 0) {
      const t = performance.now();
      try {
        const res = await fetch(opts.url, { headers: opts.headers ?? {} });
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
  return { requests: opts.requests, seconds, reqPerSec: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  if (opts.requests !== undefined) return fixedLoad({ ...opts, requests: opts.requests });
  const latencies: number[] = [];
  let non2xx = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: opts.url,
        connections: opts.connections,
        pipelining: 1,
        timeout: 10,
        headers: opts.headers ?? {},
        duration: opts.duration,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
      else non2xx++;
    });
  });
  const seconds = Math.max(1e-3, (result.finish.getTime() - result.start.getTime()) / 1000);
  latencies.sort((a, b) => a - b);
  const completed = latencies.length + non2xx;
  return {
    requests: completed,
    seconds,
    reqPerSec: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors: non2xx + result.errors + result.timeouts,
  };
}
