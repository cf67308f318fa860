import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { StoreUnavailableError, type Store } from '../db/store.js';
import type { DecodedEvent } from '../sources/events.js';
import { InputError } from '../sources/input-error.js';
import { GrowingFile } from '../sources/growing-file.js';
import { Ingester, type IngestOptions } from './ingest.js';

export interface FollowOptions extends Pick<IngestOptions, 'batchEvents' | 'onApplied'> {
  /** How often to look for new bytes once caught up, in ms. */
  pollMs: number;
  logger: Logger;
}

/** What /readyz says of a followed file. */
export interface FollowStatus {
  kind: 'file';
  path: string;
  /**
   * waiting: for the writer lock (another process writes) or for the file to exist; reading: the
   * file has bytes not applied yet; caught-up: every complete block is applied, new bytes are
   * polled for; store-unavailable: retried every poll; stopped: see error (a restart reads on).
   */
  state: 'waiting' | 'reading' | 'caught-up' | 'store-unavailable' | 'stopped';
  error?: string;
}

/**
 * `serve --follow FILE`: ingests a growing NDJSON or event file (the core's `[Broker.File]`) as
 * `tail -f` reads it, through the same Ingester as `ingest`. Only complete lines or records are
 * decoded (a partial last line waits for its newline, a partial record for its rest), and only
 * complete blocks are applied: a block opened by beginBlock at its endBlock,
 * a block without markers when the next height begins. Each step applies what it completed in
 * one transaction, so readers (on PGlite too) never see half a block.
 *
 * The file may not exist yet; when it shrinks or is replaced (another inode) it is read again
 * from the start, the checkpoint skipping what is already applied. While the store is
 * unavailable the completed blocks stay queued and are retried every poll; nothing more is read
 * meanwhile. Bad input stops following (the server goes on answering) with an error log naming
 * the line or byte offset, the event and the field.
 */
export class FileFollower {
  private stopping = false;
  private readonly wake = new AbortController();
  private loop: Promise<void> | undefined;
  private ingester: Ingester | undefined;
  private readonly file: GrowingFile;
  /** Events read and not yet pushed (a failed transaction interrupts them). */
  private unread: { events: Iterator<DecodedEvent>; atEnd: boolean } | undefined;
  private storeDown = false;
  private caughtUp = false;
  private absent = true;
  private error: string | undefined;

  constructor(
    private readonly store: Store,
    readonly path: string,
    private readonly opts: FollowOptions,
  ) {
    this.file = new GrowingFile(path);
  }

  /** What /readyz says of this follower (state changes as each read ends). */
  status(): FollowStatus {
    const state =
      this.error !== undefined
        ? 'stopped'
        : this.storeDown
          ? 'store-unavailable'
          : this.absent
            ? 'waiting'
            : this.caughtUp
              ? 'caught-up'
              : 'reading';
    return { kind: 'file', path: this.path, state, ...(this.error !== undefined ? { error: this.error } : {}) };
  }

  /** Starts following in the background. */
  start(): void {
    this.loop ??= this.run();
  }

  /** Stops following; resolves once the step in progress (a transaction, say) has ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const log = this.opts.logger;
    log.info({ file: this.path }, 'following');
    while (!this.stopping) {
      let progressed = false;
      try {
        progressed = await this.step();
        if (this.storeDown) {
          this.storeDown = false;
          log.info({ file: this.path }, 'store available again: following');
        }
      } catch (err) {
        if (err instanceof StoreUnavailableError) {
          if (!this.storeDown) log.warn({ err: err.message, file: this.path }, 'store unavailable: retrying every poll');
          this.storeDown = true;
        } else if (err instanceof InputError) {
          this.error = `bad input: ${err.message}`;
          log.error(
            { err: err.message, file: this.path, checkpoint: this.ingester?.height?.toString() ?? null },
            'bad input: stopped following',
          );
          return;
        } else {
          this.error = `follow failed: ${(err as Error).message}`;
          log.error({ err, file: this.path }, 'follow failed: stopped following');
          return;
        }
      }
      if (!progressed && !this.stopping) await sleep(this.opts.pollMs, undefined, { signal: this.wake.signal }).catch(() => {});
    }
  }

  /** One read of new bytes (and their blocks applied); false when there was nothing new. */
  private async step(): Promise<boolean> {
    if (!this.ingester) {
      this.ingester = await Ingester.open(this.store, { batchEvents: this.opts.batchEvents, onApplied: this.opts.onApplied });
      this.opts.logger.info(
        { file: this.path, checkpoint: this.ingester.height?.toString() ?? null },
        'follow: continuing after the checkpoint',
      );
    }
    // What a failed transaction left (its blocks, the events after it) goes first; nothing new
    // is read until it is applied.
    if (this.ingester.hasPending) {
      await this.ingester.resync();
      await this.ingester.flush();
    }
    if (this.unread) {
      await this.consume();
      return true;
    }
    const read = await this.file.read();
    this.absent = read.kind === 'absent';
    switch (read.kind) {
      case 'absent':
        return false;
      case 'unchanged':
        if (!this.caughtUp) {
          this.caughtUp = true;
          this.opts.logger.info({ file: this.path, height: this.ingester.height?.toString() ?? null }, 'follow: caught up');
        }
        return false;
      case 'replaced':
        this.opts.logger.warn({ file: this.path }, 'follow: the file was replaced or truncated; reading it again from the start');
        // A new ingester continues after the checkpoint; the block it was assembling is read again.
        this.ingester = undefined;
        this.caughtUp = false;
        return true;
      case 'appended':
        this.unread = read;
        await this.consume();
        return true;
    }
  }

  /** Pushes the events read, applying full batches, and everything once caught up. */
  private async consume(): Promise<void> {
    const ingester = this.ingester!;
    const { events, atEnd } = this.unread!;
    try {
      for (let next = events.next(); !next.done; next = events.next()) {
        ingester.push(next.value);
        if (ingester.batchFull) await ingester.flush();
      }
    } catch (err) {
      // The blocks completed before the bad input are whole: keep them.
      if (err instanceof InputError) await ingester.flush();
      throw err;
    }
    this.unread = undefined;
    // Caught up (for now): apply what is complete. While catching up, batches stay large.
    if (atEnd) await ingester.flush();
  }
}
