import { open, stat } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { StoreUnavailableError, type Store } from '../db/store.js';
import { IngestInputError, lineTooLong, MAX_LINE_BYTES } from './decode.js';
import { Ingester, type IngestOptions } from './ingest.js';

export interface FollowOptions extends Pick<IngestOptions, 'batchEvents' | 'onApplied'> {
  /** How often to look for new lines once caught up, in ms. */
  pollMs: number;
  logger: Logger;
}

/** Bytes read per step while catching up; bounds memory whatever the file's size. */
const CHUNK_BYTES = 1 << 20;

/**
 * `serve --follow FILE`: ingests a growing NDJSON file as `tail -f` reads it, through the same
 * Ingester as `ingest`. Only complete lines are decoded (a partial last line waits for its
 * newline), and only complete blocks are applied: a block opened by beginBlock at its endBlock,
 * a block without markers when the next height begins. Each step applies what it completed in
 * one transaction, so readers (on PGlite too) never see half a block.
 *
 * The file may not exist yet; when it shrinks or is replaced (another inode) it is read again
 * from the start, the checkpoint skipping what is already applied. While the store is
 * unavailable the completed blocks stay queued and are retried every poll; nothing more is read
 * meanwhile. Bad input stops following (the server goes on answering) with an error log naming
 * the line, the event and the field.
 */
export class FileFollower {
  private stopping = false;
  private readonly wake = new AbortController();
  private loop: Promise<void> | undefined;
  private ingester: Ingester | undefined;
  private offset = 0;
  private inode: number | undefined;
  private decoder = new StringDecoder('utf8');
  private partial = '';
  /** Complete lines read and not yet pushed (a failed transaction interrupts them). */
  private lines: string[] = [];
  private next = 0;
  private size = 0;
  private storeDown = false;
  private caughtUp = false;

  constructor(
    private readonly store: Store,
    readonly path: string,
    private readonly opts: FollowOptions,
  ) {}

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
        } else if (err instanceof IngestInputError) {
          log.error({ err: err.message, file: this.path, checkpoint: this.ingester?.height?.toString() ?? null }, 'bad input: stopped following');
          return;
        } else {
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
      this.opts.logger.info({ file: this.path, checkpoint: this.ingester.height?.toString() ?? null }, 'follow: continuing after the checkpoint');
    }
    // What a failed transaction left (its blocks, the lines after it) goes first; nothing new is
    // read until it is applied.
    if (this.ingester.hasPending) {
      await this.ingester.resync();
      await this.ingester.flush();
    }
    if (this.next < this.lines.length) {
      await this.consume();
      return true;
    }
    const info = await stat(this.path).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (!info) return false;
    if ((this.inode !== undefined && info.ino !== this.inode) || info.size < this.offset) {
      this.opts.logger.warn({ file: this.path }, 'follow: the file was replaced or truncated; reading it again from the start');
      this.restart();
      return true;
    }
    this.inode = info.ino;
    this.size = info.size;
    if (info.size === this.offset) {
      if (!this.caughtUp) {
        this.caughtUp = true;
        this.opts.logger.info({ file: this.path, height: this.ingester.height?.toString() ?? null }, 'follow: caught up');
      }
      return false;
    }

    const length = Math.min(CHUNK_BYTES, info.size - this.offset);
    const buffer = Buffer.alloc(length);
    const handle = await open(this.path, 'r');
    let bytesRead: number;
    try {
      ({ bytesRead } = await handle.read(buffer, 0, length, this.offset));
    } finally {
      await handle.close();
    }
    this.offset += bytesRead;
    // Only the new text is split: a long partial line is not scanned again at every read.
    const lines = this.decoder.write(buffer.subarray(0, bytesRead)).split('\n');
    lines[0] = this.partial + lines[0]!;
    this.partial = lines.pop()!;
    this.lines = lines;
    this.next = 0;
    await this.consume();
    // (Characters, at most as many as its bytes.)
    if (this.partial.length > MAX_LINE_BYTES) {
      await this.ingester.flush();
      throw lineTooLong(this.ingester.linesPushed + 1);
    }
    return true;
  }

  /** Pushes the complete lines read, applying full batches, and everything once caught up. */
  private async consume(): Promise<void> {
    const ingester = this.ingester!;
    while (this.next < this.lines.length) {
      const line = this.lines[this.next++]!;
      try {
        ingester.push(line);
      } catch (err) {
        // The blocks completed before the bad line are whole: keep them.
        if (err instanceof IngestInputError) await ingester.flush();
        throw err;
      }
      if (ingester.batchFull) await ingester.flush();
    }
    // Caught up (for now): apply what is complete. While catching up, batches stay large.
    if (this.offset >= this.size) await ingester.flush();
  }

  private restart(): void {
    this.ingester = undefined;
    this.offset = 0;
    this.inode = undefined;
    this.decoder = new StringDecoder('utf8');
    this.partial = '';
    this.lines = [];
    this.next = 0;
    this.caughtUp = false;
  }
}
