import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Store } from '../db/store.js';
import { GrowingFile } from '../sources/growing-file.js';
import { InputError } from '../sources/input-error.js';
import { GrowingIngest, type GrowingInput, type GrowingRead } from './growing.js';
import type { IngestOptions } from './ingest.js';

export interface FollowOptions extends Pick<IngestOptions, 'batchEvents' | 'maxBlockEvents' | 'onApplied'> {
  /** How often to look for new bytes once caught up (and to retry an unavailable store), in ms. */
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

const IDLE: GrowingRead = { kind: 'idle' };

/** The followed file as a growing input: read as `tail -f` reads it, polled every pollMs once caught up. */
class FollowedFile implements GrowingInput {
  private readonly file: GrowingFile;
  /** The file did not exist at the last read. */
  absent = true;

  constructor(
    path: string,
    private readonly pollMs: number,
    private readonly logger: Logger,
  ) {
    this.file = new GrowingFile(path);
  }

  async read(): Promise<GrowingRead> {
    const read = this.file.read();
    this.absent = read.kind === 'absent';
    switch (read.kind) {
      case 'absent':
      case 'unchanged':
        return IDLE;
      case 'replaced':
        this.logger.warn('follow: the file was replaced or truncated; reading it again from the start');
        return { kind: 'ended' };
      case 'appended':
        return { kind: 'events', events: read.events, atEnd: read.atEnd };
    }
  }

  waitForMore(signal: AbortSignal): Promise<void> {
    return sleep(this.pollMs, undefined, { signal }).catch(() => {});
  }
}

/**
 * `serve --follow FILE`: ingests a growing NDJSON or event file (the core's `[Broker.File]`) as
 * `tail -f` reads it, through the loop of growing inputs (GrowingIngest). Only complete lines or
 * records are decoded (a partial last line waits for its newline, a partial record for its
 * rest), and only complete blocks are applied: a block opened by beginBlock at its endBlock, a
 * block without markers when the next height begins. Readers (on PGlite too) never see half a
 * block.
 *
 * The file may not exist yet. When it shrinks, is replaced (another inode) or is written again
 * from its start (a core restart truncates it and may write past the old size between two
 * polls: its first bytes differ), it is read again from the start: the complete blocks read from
 * the old file are applied, the block in progress is dropped, and the checkpoint skips what is
 * already applied. Bad input stops following (the server goes on answering) with an error log
 * naming the line or byte offset, the event and the field.
 */
export class FileFollower {
  private readonly input: FollowedFile;
  private readonly loop: GrowingIngest;
  private readonly logger: Logger;
  private error: string | undefined;

  constructor(
    store: Store,
    readonly path: string,
    opts: FollowOptions,
  ) {
    const logger = opts.logger.child({ file: path });
    this.logger = logger;
    this.input = new FollowedFile(path, opts.pollMs, logger);
    this.loop = new GrowingIngest(store, this.input, {
      label: 'follow',
      logger,
      retryMs: opts.pollMs,
      batchEvents: opts.batchEvents,
      maxBlockEvents: opts.maxBlockEvents,
      onApplied: opts.onApplied,
      onStopped: (err, checkpoint) => {
        if (err instanceof InputError) {
          this.error = `bad input: ${err.message}`;
          logger.error({ err: err.message, checkpoint: checkpoint?.toString() ?? null }, 'bad input: stopped following');
        } else {
          this.error = `follow failed: ${(err as Error).message}`;
          logger.error({ err }, 'follow failed: stopped following');
        }
      },
    });
  }

  /** What /readyz says of this follower (state changes as each read ends). */
  status(): FollowStatus {
    const state = this.loop.state;
    // No file yet: not caught up with anything, waiting for it.
    const shown = this.input.absent && (state === 'reading' || state === 'caught-up') ? 'waiting' : state;
    return { kind: 'file', path: this.path, state: shown, ...(this.error !== undefined ? { error: this.error } : {}) };
  }

  /** Starts following in the background. */
  start(): void {
    this.logger.info('following');
    this.loop.start();
  }

  /** Stops following; resolves once the step in progress (a transaction, say) has ended. */
  stop(): Promise<void> {
    return this.loop.stop();
  }
}
