import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { StoreUnavailableError, type Store } from '../db/store.js';
import type { DecodedEvent } from '../sources/events.js';
import { InputError, type InputPosition } from '../sources/input-error.js';
import { Ingester, type IngestOptions } from './ingest.js';

/** A block whose rest never came: its input ended or began again inside it. */
export interface DroppedBlock {
  height: bigint;
  at: InputPosition;
}

/** What a growing input has at one read. */
export type GrowingRead =
  /** The events of the complete lines or records read, and whether they reach the end of what is written so far. */
  | { kind: 'events'; events: Iterator<DecodedEvent>; atEnd: boolean }
  /** Nothing new for now. */
  | { kind: 'idle' }
  /**
   * What was read ends here (a buffer file is finished) or begins again (a followed file was
   * rewritten): the complete blocks read are applied, the block in progress is dropped, and
   * `committed` is called with it once they are. The next read is of the new input.
   */
  | { kind: 'ended'; committed?: (dropped: DroppedBlock | undefined) => void };

/** A source of events that keeps growing: a followed file, the broker socket's buffer files. */
export interface GrowingInput {
  /** What was written since the last read (a bounded amount: a chunk of a file). */
  read(): Promise<GrowingRead>;
  /** Resolves when there may be more to read, or soon after `signal` aborts. */
  waitForMore(signal: AbortSignal): Promise<void>;
}

/**
 * Complete blocks queued at the end of what is written from which the input is taken to stream a
 * backlog (a core sending what it holds, a file copied in), not a live chain, which comes a block
 * or two at a time even after an epoch end's long transaction.
 */
export const STREAMING_BLOCKS = 32;
/** While a backlog streams: how long the input may pause before the blocks queued are applied. */
export const STREAM_PAUSE_MS = 50;
/** While a backlog streams: the longest a queued block waits for its batch to fill. */
export const STREAM_WAIT_MS = 1000;

export interface GrowingIngestOptions extends Pick<IngestOptions, 'batchEvents' | 'maxBlockEvents' | 'onApplied' | 'refuseGaps'> {
  /** Starts the log lines: "follow", "broker". */
  label: string;
  logger: Logger;
  /** How long to wait before trying an unavailable store again, in ms. */
  retryMs: number;
  /** Told once when ingestion stops for good (bad input, or another failure): nothing more is read. */
  onStopped(err: unknown, checkpoint: bigint | null): void;
  /** STREAM_PAUSE_MS and STREAM_WAIT_MS unless set (the tests set them so that no outcome depends on timing). */
  streamPauseMs?: number;
  streamWaitMs?: number;
}

/** Where GrowingIngest is, for /readyz. */
export type GrowingState = 'reading' | 'caught-up' | 'store-unavailable' | 'stopped';

/**
 * The one loop of ingestion from a growing input (serve --follow, serve --broker-listen), with the
 * Ingester that `ingest` uses. While behind, blocks are applied many per transaction (batches of
 * --batch-events, as `ingest` does), each batch's transaction running while the next is decoded.
 * Once a read reaches the end of what is written, what is complete is applied at once without
 * waiting for a batch to fill: a live chain's block goes in a transaction of its own as soon as
 * it is whole, and a burst that arrives while one is written goes in the next one. Unless the
 * input streams a backlog (STREAMING_BLOCKS queued at its end): the reader then keeps up with the
 * writer, and applying whatever is there each time made transactions of a few thousand events
 * (the medium chain over the socket: 101 to 131 of them, against `ingest`'s 20), each paying a
 * transaction's fixed costs. The batch then fills as in `ingest` while the input keeps coming,
 * within STREAM_PAUSE_MS of each other and STREAM_WAIT_MS of its first block.
 *
 * Only whole blocks are applied, each transaction with the checkpoint, so a crash at any point
 * loses nothing applied and a restart resumes after the checkpoint. While the store is
 * unavailable the blocks read stay queued and are retried every `retryMs` (nothing new is read
 * meanwhile); after a failed transaction the checkpoint is read again, since the transaction may
 * have committed all the same. Bad input stops the loop (`onStopped`), the blocks complete before
 * it applied.
 */
export class GrowingIngest {
  private stopping = false;
  private readonly wake = new AbortController();
  private loop: Promise<void> | undefined;
  private ingester: Ingester | undefined;
  /**
   * The read being handled: a failed transaction interrupts it, and the input has moved past it.
   * An end's dropped block is kept with it, so that a retry does not drop the next input's.
   */
  private held: { read: GrowingRead; dropped?: DroppedBlock } | undefined;
  /** A transaction failed: the checkpoint is read again and the queued blocks applied before anything else. */
  private failed = false;
  private storeDown = false;
  private caughtUp = false;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly input: GrowingInput,
    private readonly opts: GrowingIngestOptions,
  ) {}

  get state(): GrowingState {
    return this.stopped ? 'stopped' : this.storeDown ? 'store-unavailable' : this.caughtUp ? 'caught-up' : 'reading';
  }

  /** Starts in the background. */
  start(): void {
    this.loop ??= this.run();
  }

  /** Stops; resolves once the step in progress and the transaction in flight have ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const { logger: log, label, retryMs } = this.opts;
    while (!this.stopping) {
      let idle: boolean;
      try {
        idle = await this.step();
        if (this.storeDown) {
          this.storeDown = false;
          log.info(`${label}: store available again`);
        }
      } catch (err) {
        if (err instanceof StoreUnavailableError) {
          if (!this.storeDown) log.warn({ err: err.message }, `${label}: store unavailable: retrying every ${retryMs} ms`);
          this.storeDown = true;
          this.failed = true;
          await sleep(retryMs, undefined, { signal: this.wake.signal }).catch(() => {});
          continue;
        }
        // The blocks completed before bad input are whole: keep them.
        if (err instanceof InputError) await this.ingester?.flush().catch(() => {});
        this.stopped = true;
        this.opts.onStopped(err, this.ingester?.height ?? null);
        break;
      }
      if (idle && !this.stopping) await this.input.waitForMore(this.wake.signal);
    }
    // The transaction in flight ends before the store closes; what is only queued is read again after a restart.
    await this.ingester?.settle().catch(() => {});
  }

  /** One read handled; whether the input had nothing new (and everything read is applied). */
  private async step(): Promise<boolean> {
    if (!this.ingester) {
      const { batchEvents, maxBlockEvents, onApplied, refuseGaps } = this.opts;
      this.ingester = await Ingester.open(this.store, { batchEvents, maxBlockEvents, onApplied, refuseGaps });
      this.opts.logger.info(
        { checkpoint: this.ingester.height?.toString() ?? null },
        `${this.opts.label}: continuing after the checkpoint`,
      );
    }
    const ingester = this.ingester;
    if (this.failed) {
      await ingester.resync();
      await ingester.flush();
      this.failed = false;
    }
    if (!this.held) {
      const read = await this.input.read();
      if (read.kind === 'idle') {
        // A streaming backlog waits for more; once the input pauses, what is queued goes.
        if (this.filling(ingester) && (await this.moreWithin(this.opts.streamPauseMs ?? STREAM_PAUSE_MS))) return false;
        await ingester.flush();
        if (!this.caughtUp) {
          this.caughtUp = true;
          this.opts.logger.info({ height: ingester.height?.toString() ?? null }, `${this.opts.label}: caught up`);
        }
        return true;
      }
      // Behind by more than a read, or another input: reading until caught up again.
      if (read.kind === 'ended' || !read.atEnd) this.caughtUp = false;
      this.held = { read, ...(read.kind === 'ended' ? { dropped: ingester.restart() } : {}) };
    }
    const { read, dropped } = this.held;
    if (read.kind === 'events') {
      await ingester.pushAll(read.events);
      // At the end of what is written: what is complete goes now, not when a batch is full (but
      // for a streaming backlog); the next read is decoded while it is written.
      if (read.atEnd && !this.filling(ingester)) await ingester.flushAhead();
    } else if (read.kind === 'ended') {
      await ingester.flush();
      read.committed?.(dropped);
    }
    this.held = undefined;
    return false;
  }

  /** Whether the batch keeps filling rather than going now: see the class. */
  private filling(ingester: Ingester): boolean {
    return ingester.pendingBlocks >= STREAMING_BLOCKS && ingester.pendingMs < (this.opts.streamWaitMs ?? STREAM_WAIT_MS);
  }

  /**
   * Waits for more input for up to `ms`, or until stopped; whether it may have come (false: the
   * wait timed out). Not AbortSignal.any over the loop's signal, which lives as long as the
   * process: Node keeps every signal made from it (nodejs/node#54614).
   */
  private async moreWithin(ms: number): Promise<boolean> {
    if (this.wake.signal.aborted) return true;
    const wait = new AbortController();
    const stop = () => wait.abort();
    this.wake.signal.addEventListener('abort', stop, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      wait.abort();
    }, ms);
    try {
      await this.input.waitForMore(wait.signal);
    } finally {
      clearTimeout(timer);
      this.wake.signal.removeEventListener('abort', stop);
    }
    return !timedOut;
  }
}
