import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { StoreUnavailableError, type Store } from '../db/store.js';
import type { WriterWork } from '../db/writer-lock.js';
import { BufferFiles, type Segment } from '../sources/broker/buffer-files.js';
import { LogThrottle } from '../sources/broker/log-throttle.js';
import { PairListener } from '../sources/broker/pair-listener.js';
import type { BinaryEvent } from '../sources/binary/decode-event.js';
import type { DecodedEvent } from '../sources/events.js';
import { GrowingFile } from '../sources/growing-file.js';
import { InputError } from '../sources/input-error.js';
import { Ingester, type IngestOptions } from './ingest.js';

/** Refused connections logged one by one per minute; the rest are counted in one line. */
const REFUSALS_LOGGED_PER_MINUTE = 10;

/** How long the applier waits before trying an unavailable store again. */
const STORE_RETRY_MS = 500;

export interface BrokerOptions extends Pick<IngestOptions, 'batchEvents' | 'onApplied'> {
  host: string;
  port: number;
  /** Folder of the buffer files. */
  bufferDir: string;
  /** Events of another chain are refused; any chain when undefined. */
  chainId: string | undefined;
  /** Told of every chunk of frames received (metrics). */
  onReceived?: (frames: number, bytes: number) => void;
  logger: Logger;
}

/** What /readyz says of the broker socket. */
export interface BrokerStatus {
  kind: 'broker';
  /** The address listened on (or asked for, before listening). */
  listen: string;
  /** connected: a core is connected; waiting: for a core (or for the writer lock); stopped: see error. */
  state: 'connected' | 'waiting' | 'stopped';
  peer?: string;
  error?: string;
  /** Height of the last BeginBlock received. */
  heightReceived: string | null;
}

/**
 * `serve --broker-listen`: stands in for the data-node's socket. A Vega core connects (nanomsg
 * PAIR v0), every frame is written to a buffer file as it arrives (BufferFiles), and the store
 * is fed from the buffer files block by block (BufferApplier) under the writer lock. The socket
 * never waits for the store: while the store is slow or away, or the lock is held elsewhere,
 * frames pile up on disk and are applied later. Bad input (a height gap, another chain, another
 * version) stops the source: the core is disconnected and not listened for until a restart,
 * which reads the buffer files again.
 */
export class BrokerSource {
  readonly buffer: BufferFiles;
  private readonly listener: PairListener;
  private address: string;
  private listening: Promise<void> | undefined;
  private peer: string | undefined;
  private error: string | undefined;
  private readonly log: Logger;
  /** A peer can be refused in a loop: the refusals are logged one by one up to a bound per minute. */
  private readonly refusals: LogThrottle;

  constructor(private readonly opts: BrokerOptions) {
    this.log = opts.logger;
    this.refusals = new LogThrottle(REFUSALS_LOGGED_PER_MINUTE, 60_000, (refused) =>
      this.log.warn({ refused }, 'broker: more connections refused in the last minute, not logged one by one'),
    );
    this.address = `${opts.host}:${opts.port}`;
    this.buffer = new BufferFiles(opts.bufferDir);
    this.listener = new PairListener({
      connected: (peer) => {
        this.peer = peer;
        this.buffer.connectionBegan();
        this.log.info({ peer }, 'broker: core connected');
        return {
          frames: (bodies, bytes) => {
            try {
              this.buffer.append(bodies);
            } catch (err) {
              // A full disk, say: what cannot be kept must not be taken from the core.
              this.fail(`cannot write the buffer files in ${this.opts.bufferDir}: ${(err as Error).message}`);
              return;
            }
            this.opts.onReceived?.(bodies.length, bytes);
          },
          closed: (reason) => {
            this.peer = undefined;
            this.buffer.connectionEnded();
            if (reason === undefined) this.log.info({ peer }, 'broker: core disconnected');
            else this.log.warn({ peer, reason }, 'broker: core disconnected');
          },
        };
      },
      refused: (peer, reason) => {
        if (this.refusals.admit()) this.log.warn({ peer, reason }, 'broker: connection refused');
      },
    });
  }

  /** Listens for the core, once (later calls wait for the first). A failure to listen stops the source. */
  listen(): Promise<void> {
    this.listening ??= this.listener.listen(this.opts.host, this.opts.port).then(
      (address) => {
        this.address = address;
        this.log.info({ address, bufferDir: this.opts.bufferDir }, 'broker: listening for the core');
      },
      (err: Error) => this.fail(`cannot listen on ${this.address}: ${err.message}`),
    );
    return this.listening;
  }

  /** Feeds the store from the buffer files until stopped (or the source stops). */
  applyTo(store: Store): WriterWork {
    if (this.error !== undefined) return { stop: async () => {} };
    const applier = new BufferApplier(store, this.buffer, this.opts, (err) => this.fail(err));
    applier.start();
    return applier;
  }

  status(): BrokerStatus {
    const state = this.error !== undefined ? 'stopped' : this.peer !== undefined ? 'connected' : 'waiting';
    return {
      kind: 'broker',
      listen: this.address,
      state,
      ...(this.peer !== undefined ? { peer: this.peer } : {}),
      ...(this.error !== undefined ? { error: this.error } : {}),
      heightReceived: this.buffer.heightReceived?.toString() ?? null,
    };
  }

  /** The address listened on. */
  get listenAddress(): string {
    return this.address;
  }

  /** Stops listening and drops the core; the buffer files stay for the next start. */
  async close(): Promise<void> {
    if (this.listening) await this.listener.close();
    this.refusals.flush();
    this.buffer.close();
  }

  /** Stops the source for good (until a restart): the reason goes to the log and /readyz. */
  fail(error: string): void {
    if (this.error !== undefined) return;
    this.error = error;
    this.log.error({ err: error }, 'broker: stopped; fix the cause and restart (the buffer files are read again)');
    void this.close();
  }
}

/**
 * Applies the buffer files, oldest first, each as an event file that may still grow: complete
 * records are decoded, complete blocks applied (a transaction per batch while catching up, per
 * read once caught up). A file is removed once it is finished and applied. A block a finished
 * file leaves open (the connection ended inside it) is dropped, and so are events at the start
 * of a file before its first BeginBlock (the rest of a block begun on a lost connection): a
 * block is applied whole or not at all. A kill -9 at any point loses nothing applied: the
 * checkpoint commits with each block, and a file is removed only after its blocks committed,
 * so a restart reads the files left and skips what is at or below the checkpoint.
 */
class BufferApplier implements WriterWork {
  private stopping = false;
  private readonly wake = new AbortController();
  private loop: Promise<void> | undefined;
  private ingester: Ingester | undefined;
  private file: { segment: Segment; reader: GrowingFile; begun: boolean; dropped: number } | undefined;
  /** Records read and not yet pushed: a failed transaction interrupts them, and the reader has moved past them. */
  private unread: { events: Iterator<DecodedEvent>; atEnd: boolean } | undefined;
  private storeDown = false;

  constructor(
    private readonly store: Store,
    private readonly buffer: BufferFiles,
    private readonly opts: BrokerOptions,
    private readonly fail: (error: string) => void,
  ) {}

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake.abort();
    // Ends the wait for the buffer (a wait of its own, not a race against a promise that lives
    // until shutdown, which would keep one reaction per wait).
    this.buffer.interrupt();
    await this.loop;
  }

  private async run(): Promise<void> {
    const log = this.opts.logger;
    while (!this.stopping) {
      let progressed = false;
      const version = this.buffer.version;
      try {
        progressed = await this.step();
        if (this.storeDown) {
          this.storeDown = false;
          log.info('broker: store available again: applying');
        }
      } catch (err) {
        if (err instanceof StoreUnavailableError) {
          if (!this.storeDown) log.warn({ err: err.message }, 'broker: store unavailable: frames wait in the buffer files');
          this.storeDown = true;
          await sleep(STORE_RETRY_MS, undefined, { signal: this.wake.signal }).catch(() => {});
          continue;
        }
        // An InputError names the buffer file and the byte.
        this.fail(
          err instanceof InputError
            ? `refused: ${err.message}`
            : `applying failed: ${this.file?.segment.path ?? this.opts.bufferDir}: ${(err as Error).message}`,
        );
        return;
      }
      if (!progressed && !this.stopping && this.buffer.version === version) {
        await this.buffer.changed();
      }
    }
  }

  /** Applies what the oldest buffer file has; false when there was nothing new. */
  private async step(): Promise<boolean> {
    if (!this.ingester) {
      this.ingester = await Ingester.open(this.store, {
        batchEvents: this.opts.batchEvents,
        onApplied: this.opts.onApplied,
        refuseGaps: true,
      });
    }
    const ingester = this.ingester;
    // A failed transaction's blocks go first; nothing new is read until they are applied.
    if (ingester.hasPending) {
      await ingester.resync();
      await ingester.flush();
    }
    const segment = this.buffer.oldest();
    if (!segment) return false;
    if (this.file?.segment.number !== segment.number) {
      this.file = { segment, reader: new GrowingFile(segment.path), begun: false, dropped: 0 };
    }
    const file = this.file;
    // Whether it is finished is read before its end is: what is appended meanwhile is not missed.
    const finished = segment.finished;
    if (this.unread) {
      await this.consume(file, ingester);
      return true;
    }
    const read = await file.reader.read();
    if (read.kind === 'absent' || read.kind === 'replaced')
      throw new Error(`the buffer file was ${read.kind === 'absent' ? 'removed' : 'replaced'} while it was read`);
    if (read.kind === 'appended') {
      this.unread = read;
      await this.consume(file, ingester);
      return true;
    }
    if (!finished) return false;
    const summary = await ingester.end();
    if (file.dropped > 0)
      this.opts.logger.warn(
        { file: segment.path, events: file.dropped },
        'broker: events before the first BeginBlock of a connection dropped (the rest of a block begun on a lost connection)',
      );
    if (summary.incomplete)
      this.opts.logger.warn(
        { file: segment.path, height: summary.incomplete.height.toString() },
        'broker: a block left open by the end of its connection: not applied',
      );
    this.buffer.remove(segment.number);
    this.file = undefined;
    // The next file is another connection's (or begins a block): a fresh assembler.
    this.ingester = undefined;
    return true;
  }

  /** Pushes the records read, applying full batches, and everything once caught up. */
  private async consume(file: NonNullable<BufferApplier['file']>, ingester: Ingester): Promise<void> {
    const { events, atEnd } = this.unread!;
    try {
      for (let next = events.next(); !next.done; next = events.next()) {
        if (this.push(file, next.value) && ingester.batchFull) await ingester.flush();
      }
    } catch (err) {
      // The blocks completed before the bad input are whole: keep them.
      if (err instanceof InputError) await ingester.flush();
      throw err;
    }
    this.unread = undefined;
    if (atEnd) await ingester.flush();
  }

  /**
   * Checks an event as the data-node checks what its core sends (version 1, the configured
   * chain), and hands it to the ingester unless it precedes the file's first BeginBlock; whether
   * it was.
   */
  private push(file: NonNullable<BufferApplier['file']>, event: DecodedEvent): boolean {
    // A buffer file is an event file: its events are binary ones, with their envelope.
    const { version, chainId } = event as BinaryEvent;
    if (version !== 1) throw new InputError(event.at, event.id, 'version', `version ${version}: only version 1 is known`);
    const expected = this.opts.chainId;
    if (expected !== undefined && chainId !== expected) {
      throw new InputError(
        event.at,
        event.id,
        'chainId',
        `chain ${JSON.stringify(chainId)}, not the configured ${JSON.stringify(expected)} (--chain-id)`,
      );
    }
    if (!file.begun && event.body.kind !== 'beginBlock') {
      file.dropped++;
      return false;
    }
    file.begun = true;
    this.ingester!.push(event);
    return true;
  }
}
