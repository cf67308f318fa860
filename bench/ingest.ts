import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, ROOT } from './paths.js';
import type { BenchStore } from './stores.js';

/** A real chain's mix (`demo --our-share --other-events`): the share of blocks with events of ours, other kinds per block. */
export interface Mix {
  ourShare: number;
  otherEvents: number;
}

/**
 * The demo chain file of a scale, as NDJSON or an event file, generated once into the cache
 * folder and reused; with `mix`, the chain with quiet blocks and other kinds as a real chain's.
 * (The name says the chain carries other kinds: files cached before they came are not reused.)
 */
export async function demoFile(
  cacheDir: string,
  scale: string,
  seed: number,
  log: (s: string) => void,
  format: 'ndjson' | 'evts' = 'ndjson',
  mix?: Mix,
): Promise<string> {
  mkdirSync(cacheDir, { recursive: true });
  const mixed = mix ? `-share${mix.ourShare}-others${mix.otherEvents}` : '';
  const file = join(cacheDir, `demo-${scale}-seed${seed}-other-kinds${mixed}.${format}`);
  if (existsSync(file)) return file;
  log(`generating the ${scale} demo chain (seed ${seed}${mixed}) as ${format} into ${file}…`);
  const tmp = `${file}.tmp`;
  const mixArgs = mix ? ['--our-share', String(mix.ourShare), '--other-events', String(mix.otherEvents)] : [];
  const res = await runNode([CLI, 'demo', '--scale', scale, '--seed', String(seed), ...mixArgs, '--format', format, '--out', tmp]);
  if (res.code !== 0) throw new Error(`demo failed: ${res.stderr}`);
  renameSync(tmp, file);
  return file;
}

export interface IngestResult {
  /** Events applied (of the kinds read). */
  events: number;
  /** Blocks applied (absent in older results). */
  blocks?: number;
  seconds: number;
  eventsPerSec: number;
  /** Every event of the input: applied, skipped kinds, and the block markers (absent in older results). */
  allEvents?: number;
  allEventsPerSec?: number;
  peakRssMiB: number;
  fileMiB: number;
  /** CPU seconds of the ingest process, user and system (absent in older results). */
  cpuSeconds?: number;
}

/**
 * Ingests a file with the CLI, as a user would, and reads its summary, peak RSS and CPU time.
 * `cli` is another build's (bench/run.ts --baseline) when given.
 */
export async function ingestFile(file: string, storeArgs: string[], cli = CLI): Promise<IngestResult> {
  const res = await runNode(['--import', join(ROOT, 'bench', 'rss-probe.mjs'), cli, 'ingest', file, ...storeArgs]);
  if (res.code !== 0) throw new Error(`ingest failed (exit ${res.code}): ${res.stderr.slice(-2000)}`);
  const summary = /ingested (\d+) blocks .*?, (\d+) events in ([\d.]+) s/.exec(res.stderr);
  const skipped = /^skipped: (\d+)$/m.exec(res.stderr);
  const rss = /bench-peak-rss-kib (\d+)/.exec(res.stderr);
  const cpu = /bench-cpu-us (\d+)/.exec(res.stderr);
  if (!summary || !skipped || !rss) throw new Error(`unexpected ingest output: ${res.stderr.slice(-2000)}`);
  const events = Number(summary[2]);
  const seconds = Number(summary[3]);
  // Every block of the demo chains has its beginBlock and endBlock.
  const allEvents = events + Number(skipped[1]) + 2 * Number(summary[1]);
  return {
    events,
    blocks: Number(summary[1]),
    seconds,
    eventsPerSec: events / seconds,
    allEvents,
    allEventsPerSec: allEvents / seconds,
    peakRssMiB: Number(rss[1]) / 1024,
    fileMiB: statSync(file).size / 2 ** 20,
    ...(cpu ? { cpuSeconds: Number(cpu[1]) / 1e6 } : {}),
  };
}

/**
 * Ingests the file into the store, made fresh, with the CLI (another build's when `cli` is
 * given); with `reuse`, keeps instead what an earlier run with `reuse` ingested into it, whose
 * numbers its `marker` file holds.
 */
export async function ingestOrReuse(
  store: BenchStore,
  file: string,
  opts: { reuse: boolean; marker: string; cli?: string; what: string; log: (s: string) => void },
): Promise<IngestResult & { reused: boolean }> {
  if (opts.reuse && existsSync(opts.marker) && (await store.exists())) {
    opts.log(`${opts.what}: reusing the store ingested earlier (${store.args.join(' ')})`);
    return { ...(JSON.parse(readFileSync(opts.marker, 'utf8')) as IngestResult), reused: true };
  }
  await store.reset();
  opts.log(`${opts.what}: ingesting ${file} into ${store.args.join(' ')}…`);
  const r = await ingestFile(file, store.args, opts.cli);
  opts.log(
    `${opts.what}: ${r.events} events in ${r.seconds.toFixed(1)} s, ${Math.round(r.eventsPerSec)} events/s, peak RSS ${Math.round(r.peakRssMiB)} MiB`,
  );
  if (opts.reuse) writeFileSync(opts.marker, JSON.stringify(r));
  return { ...r, reused: false };
}

function runNode(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: ROOT });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      // Progress lines arrive every second: keep only the tail.
      if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}
