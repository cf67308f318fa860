import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { MAX_TIMEOUT_MS, settingError } from './config.js';
import { Metrics } from './http/metrics.js';
import { createLogger } from './log.js';
import { checkedServeSettings, serve } from './serve.js';
import type { ServeSettings } from './serve-settings.js';

/** Messages between the primary and its workers (beside prom-client's own, for the metrics). */
type ToPrimary = { epochview: 'started' } | { epochview: 'ready' } | { epochview: 'metrics'; id: number };
type ToWorker = { epochview: 'stop'; signal: NodeJS.Signals } | { epochview: 'metrics'; id: number; text?: string; error?: string };

/** Which worker a process is (1 to N), from its primary. */
const WORKER_ENV = 'EPOCHVIEW_WORKER';

/** A worker that dies within this long of its start is restarted after RESTART_DELAY_MS, so a crash loop does not spin. */
const QUICK_DEATH_MS = 10_000;
const RESTART_DELAY_MS = 1_000;

/** How long the primary waits past --shutdown-timeout-ms for the workers to exit by themselves. */
const SHUTDOWN_GRACE_MS = 5_000;

/**
 * `epochview serve` with `--workers N`: N processes answering on one port (node:cluster; the
 * primary accepts the connections and hands them round-robin to the workers). One worker, or a
 * worker of the cluster, is plain `serve`.
 */
export function serveWorkers(settings: ServeSettings, out: (text: string) => void): Promise<number> {
  if (cluster.isWorker) return serveAsWorker(settings, out);
  const workers = settings.workers;
  if (workers === 1) return serve(settings, out);
  if (!settings.databaseUrl) {
    throw settingError(
      'workers',
      `the embedded store (PGlite) is opened by one process only, so it cannot be served by ${workers} processes; ` +
        'use --database-url (a PostgreSQL server) for more workers, or --workers 1 (PGlite then runs SQL in a thread of its own, off the HTTP thread)',
    );
  }
  checkedServeSettings(settings);
  return supervise(settings, workers);
}

/**
 * A worker: plain serve, except that only worker 1 writes (follows a file or listens for the
 * broker socket, seeds the demo: the writer lock would make any other wait anyway), only worker 1
 * prints the greeting, answers name the worker, /metrics asks the primary for every worker's, and the primary says when to
 * shut down.
 */
function serveAsWorker(settings: ServeSettings, out: (text: string) => void): Promise<number> {
  const worker = Number(process.env[WORKER_ENV]);
  const send = (m: ToPrimary) => process.send!(m);
  const metrics = new Metrics();
  // prom-client answers the primary's requests for a worker's metrics from the registries set
  // here, through a listener that constructing an AggregatorRegistry installs.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([metrics.registry]);
  let asked = 0;
  const answers = new Map<number, { resolve(text: string): void; reject(err: Error): void }>();
  const stop = new Promise<NodeJS.Signals>((resolve) => {
    process.on('message', (m: ToWorker) => {
      if (m.epochview === 'stop') resolve(m.signal);
      if (m.epochview === 'metrics') {
        const answer = answers.get(m.id);
        answers.delete(m.id);
        if (m.text !== undefined) answer?.resolve(m.text);
        else answer?.reject(new Error(`the metrics of the workers: ${m.error}`));
      }
    });
  });
  send({ epochview: 'started' });
  const writes = worker === 1 ? {} : { follow: undefined, brokerListen: undefined, demoOnEmpty: false };
  const run = serve({ ...settings, ...writes }, worker === 1 ? out : () => {}, {
    metrics,
    member: {
      worker,
      clusterMetrics: () =>
        new Promise<string>((resolve, reject) => {
          const id = ++asked;
          answers.set(id, { resolve, reject });
          send({ epochview: 'metrics', id });
        }),
    },
    stop,
    onReady: () => send({ epochview: 'ready' }),
  });
  // Without the channel to the primary, nothing keeps the process once serve is done. Through
  // the cluster's own disconnect, which lets the process end with serve's exit code (a bare
  // process.disconnect() makes the cluster exit the worker at once, with 0).
  return run.finally(() => cluster.worker!.isConnected() && cluster.worker!.disconnect());
}

/**
 * The primary: starts N workers and keeps them running. A worker that dies is logged and started
 * again (with the same number, so worker 1 is the writer again), unless it died before it was
 * ever ready: a worker that cannot start (a bad setting, the store not ready within
 * --startup-timeout-ms) ends the whole serve with exit 1, as a single process would. SIGTERM and
 * SIGINT are passed on; the exit code is 0 when every worker shut down cleanly, else 1.
 */
function supervise(settings: ServeSettings, workers: number): Promise<number> {
  const logger = createLogger(settings.logLevel).child({ component: 'cluster', pid: process.pid });
  const aggregator = new AggregatorRegistry();
  const running = new Map<number, Worker>();
  let stopping: NodeJS.Signals | undefined;
  let failed = false;

  return new Promise<number>((resolve) => {
    const stopAll = (signal: NodeJS.Signals) => {
      for (const w of running.values()) if (w.isConnected()) w.send({ epochview: 'stop', signal } satisfies ToWorker);
    };
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = signal;
      logger.info({ signal }, 'shutting down: every worker finishes its requests in flight');
      stopAll(signal);
      const limitMs = settings.shutdownTimeoutMs;
      if (limitMs > 0) {
        // A timer past MAX_TIMEOUT_MS fires at once: near that limit, the grace is cut short.
        setTimeout(
          () => {
            logger.error({ shutdownTimeoutMs: limitMs }, 'workers did not exit in time: killing them');
            failed = true;
            for (const w of running.values()) w.process.kill('SIGKILL');
          },
          Math.min(limitMs + SHUTDOWN_GRACE_MS, MAX_TIMEOUT_MS),
        ).unref();
      }
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);

    const start = (n: number, everReady: boolean) => {
      const w = cluster.fork({ [WORKER_ENV]: String(n) });
      const startedAt = Date.now();
      let ready = false;
      running.set(n, w);
      w.on('message', (m: ToPrimary) => {
        if (m.epochview === 'started' && stopping) w.send({ epochview: 'stop', signal: stopping } satisfies ToWorker);
        if (m.epochview === 'ready' && !ready) {
          ready = true;
          logger.info({ worker: n, workerPid: w.process.pid }, 'worker ready');
        }
        if (m.epochview === 'metrics') {
          aggregator.clusterMetrics().then(
            (text) => w.isConnected() && w.send({ epochview: 'metrics', id: m.id, text } satisfies ToWorker),
            (err: Error) => w.isConnected() && w.send({ epochview: 'metrics', id: m.id, error: err.message } satisfies ToWorker),
          );
        }
      });
      w.on('exit', (code, signal) => {
        running.delete(n);
        const how = { worker: n, workerPid: w.process.pid, code, signal };
        if (stopping) {
          if (code !== 0) failed = true;
          logger.info(how, 'worker stopped');
        } else if (!ready && !everReady) {
          // It never served: what stopped it would stop its restarts too.
          logger.error(how, 'worker could not start: stopping the others');
          failed = true;
          onSignal('SIGTERM');
        } else {
          const delayMs = Date.now() - startedAt < QUICK_DEATH_MS ? RESTART_DELAY_MS : 0;
          logger.error({ ...how, delayMs }, 'worker died: starting it again');
          setTimeout(() => (stopping ? finish() : start(n, true)), delayMs);
          return;
        }
        finish();
      });
    };
    const finish = () => {
      if (running.size > 0 || !stopping) return;
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      logger.info({ failed }, 'stopped');
      resolve(failed ? 1 : 0);
    };

    logger.info({ workers }, 'starting workers');
    for (let n = 1; n <= workers; n++) start(n, false);
  });
}
