import type { Logger } from 'pino';
import type { Store } from '../db/store.js';
import type { WriterWork } from '../db/writer-lock.js';
import { BufferFiles, type Segment } from '../sources/broker/buffer-files.js';
import { LogThrottle } from '../sources/broker/log-throttle.js';
import { PairListener } from '../sources/broker/pair-listener.js';
import type { BinaryEvent } from '../sources/binary/decode-event.js';
import type { DecodedEvent } from '../sources/events.js';
import { GrowingFile } from '../sources/growing-file.js';
import { InputError } from '../sources/input-error.js';
import { GrowingIngest, type DroppedBlock, type GrowingInput, type GrowingRead } from './growing.js';
import type { IngestOptions } from './ingest.js';

/**
 * Refused connections, and accepted ones (with their end), logged one by one per minute; the rest
 * are counted in one line at the minute's end. A peer can connect in a loop, refused (a second
 * core, a port scanner) or not (a core that restarts at once, a flapping network).
 */
const REFUSALS_LOGGED_PER_MINUTE = 10;
const CONNECTIONS_LOGGED_PER_MINUTE = 10;

/** How long the applier waits before trying an unavailable store again. */
const STORE_RETRY_MS = 500;

const IDLE: GrowingRead = { kind: 'idle' };

export interface BrokerOptions extends Pick<IngestOptions, 'batchEvents' | 'maxBlockEvents' | 'onApplied'> {
  host: string;
  port: number;
  /** Folder of the buffer files. */
  bufferDir: string;
  /** Events of another chain are refused; any chain when undefined. */
  chainId: string | undefined;
  /** Told of every chunk of frames received, and of the events of kinds we skip that it left out of the buffer (metrics). */
  onReceived?: (frames: number, bytes: number, skipped: ReadonlyMap<string, number>) => void;
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
 * is fed from the buffer files (BufferInput, applied by GrowingIngest) under the writer lock.
 * The socket never waits for the store: while the store is slow or away, or the lock is held
 * elsewhere, frames pile up on disk and are applied later. Bad input (a height gap, another chain, another
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
  /** Peers can connect in a loop: refusals and connections are logged one by one up to a bound per minute. */
  private readonly refusals: LogThrottle;
  private readonly connections: LogThrottle;

  constructor(private readonly opts: BrokerOptions) {
    this.log = opts.logger;
    this.refusals = new LogThrottle(REFUSALS_LOGGED_PER_MINUTE, 60_000, (refused) =>
      this.log.warn({ refused }, 'broker: more connections refused in the last minute, not logged one by one'),
    );
    this.connections = new LogThrottle(CONNECTIONS_LOGGED_PER_MINUTE, 60_000, (connections) =>
      this.log.warn({ connections }, 'broker: more connections of a core in the last minute, not logged one by one'),
    );
    this.address = `${opts.host}:${opts.port}`;
    this.buffer = new BufferFiles(opts.bufferDir, { chainId: opts.chainId });
    this.listener = new PairListener({
      connected: (peer) => {
        this.peer = peer;
        this.buffered(() => this.buffer.connectionBegan());
        // A connection not logged is not logged when it ends either: it is counted.
        const logged = this.connections.admit();
        if (logged) this.log.info({ peer }, 'broker: core connected');
        return {
          frames: (bodies, bytes) => {
            if (this.buffered(() => this.buffer.append(bodies))) this.opts.onReceived?.(bodies.length, bytes, this.buffer.takeSkipped());
          },
          closed: (reason) => {
            this.peer = undefined;
            this.buffered(() => this.buffer.connectionEnded());
            if (!logged) return;
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
    if (this.listening === undefined) {
      // The files as the writer before this one left them (this process a hot spare sharing the folder).
      this.buffer.reload();
      this.listening = this.listener.listen(this.opts.host, this.opts.port).then(
        (address) => {
          this.address = address;
          this.log.info({ address, bufferDir: this.opts.bufferDir }, 'broker: listening for the core');
        },
        (err: Error) => this.fail(`cannot listen on ${this.address}: ${err.message}`),
      );
    }
    return this.listening;
  }

  /** Feeds the store from the buffer files until stopped (or the source stops). */
  applyTo(store: Store): WriterWork {
    if (this.error !== undefined) return { stop: async () => {} };
    const input = new BufferInput(this.buffer, this.opts);
    const applier = new GrowingIngest(store, input, {
      label: 'broker',
      logger: this.log,
      retryMs: STORE_RETRY_MS,
      batchEvents: this.opts.batchEvents,
      maxBlockEvents: this.opts.maxBlockEvents,
      onApplied: this.opts.onApplied,
      // As the data-node does with its socket.
      refuseGaps: true,
      // An InputError names the buffer file and the byte.
      onStopped: (err) =>
        this.fail(err instanceof InputError ? `refused: ${err.message}` : `applying failed: ${input.path}: ${(err as Error).message}`),
    });
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
    this.connections.flush();
    this.buffer.close();
  }

  /** Stops the source for good (until a restart): the reason goes to the log and /readyz. */
  fail(error: string): void {
    if (this.error !== undefined) return;
    this.error = error;
    this.log.error({ err: error }, 'broker: stopped; fix the cause and restart (the buffer files are read again)');
    this.close().catch((err: unknown) => this.log.error({ err }, 'broker: the buffer files could not be closed'));
  }

  /**
   * Work on the buffer files, which may fail (a full disk, an I/O error at a write or a close):
   * then what cannot be kept must not be taken from the core, and the source stops. Whether it did.
   */
  private buffered(work: () => void): boolean {
    try {
      work();
      return true;
    } catch (err) {
      this.fail(`cannot write the buffer files in ${this.opts.bufferDir}: ${(err as Error).message}`);
      return false;
    }
  }
}

/**
 * The buffer files as a growing input, oldest first, each an event file that may still grow
 * (GrowingIngest applies them as it applies a followed file). A file is removed once it is
 * finished and its blocks are committed. A block a finished file leaves open (the connection
 * ended inside it) is dropped, and so are events at the start of a file before its first
 * BeginBlock (the rest of a block begun on a lost connection): a block is applied whole or not at
 * all. A kill -9 at any point loses nothing applied: the checkpoint commits with each block, and a
 * file is removed only after its blocks committed, so a restart reads the files left and skips
 * what is at or below the checkpoint.
 */
class BufferInput implements GrowingInput {
  private file: { segment: Segment; reader: GrowingFile; begun: boolean; dropped: number } | undefined;
  /** The buffer's version when the last read began: a change since means there is more to read. */
  private version = -1;

  constructor(
    private readonly buffer: BufferFiles,
    private readonly opts: BrokerOptions,
  ) {}

  /** The buffer file being read, for errors. */
  get path(): string {
    return this.file?.segment.path ?? this.opts.bufferDir;
  }

  async read(): Promise<GrowingRead> {
    this.version = this.buffer.version;
    const segment = this.buffer.oldest();
    if (!segment) return IDLE;
    if (this.file?.segment.number !== segment.number) {
      this.file = { segment, reader: new GrowingFile(segment.path), begun: false, dropped: 0 };
    }
    const file = this.file;
    // Whether it is finished is read before its end is: what is appended meanwhile is not missed.
    const finished = segment.finished;
    const read = file.reader.read();
    if (read.kind === 'absent' || read.kind === 'replaced')
      throw new Error(`the buffer file was ${read.kind === 'absent' ? 'removed' : 'replaced'} while it was read`);
    if (read.kind === 'appended') return { kind: 'events', events: this.checked(file, read.events), atEnd: read.atEnd };
    if (!finished) return IDLE;
    return { kind: 'ended', committed: (open) => this.consumed(file, open) };
  }

  async waitForMore(signal: AbortSignal): Promise<void> {
    if (signal.aborted || this.buffer.version !== this.version) return;
    // A wait of its own, ended by the next append, the end of a connection, or the stop.
    const interrupt = () => this.buffer.interrupt();
    signal.addEventListener('abort', interrupt, { once: true });
    try {
      await this.buffer.changed();
    } finally {
      signal.removeEventListener('abort', interrupt);
    }
  }

  /** A finished file whose blocks are committed: removed; what it could not apply is logged. */
  private consumed(file: NonNullable<BufferInput['file']>, open: DroppedBlock | undefined): void {
    const path = file.segment.path;
    if (file.dropped > 0)
      this.opts.logger.warn(
        { file: path, events: file.dropped },
        'broker: events before the first BeginBlock of a connection dropped (the rest of a block begun on a lost connection)',
      );
    if (open)
      this.opts.logger.warn(
        { file: path, height: open.height.toString() },
        'broker: a block left open by the end of its connection: not applied',
      );
    this.buffer.remove(file.segment.number);
    this.file = undefined;
  }

  /**
   * The events of a read, checked as the data-node checks what its core sends (the configured
   * chain; the decoder has refused other versions than 1), less those before the file's first
   * BeginBlock.
   */
  private *checked(file: NonNullable<BufferInput['file']>, events: Iterator<DecodedEvent>): Generator<DecodedEvent> {
    for (let next = events.next(); !next.done; next = events.next()) {
      const event = next.value;
      // A buffer file is an event file: its events are binary ones, with their envelope.
      const { chainId } = event as BinaryEvent;
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
        file.dropped += event.body.kind === 'skippedRun' ? event.body.events : 1;
        continue;
      }
      file.begun = true;
      yield event;
    }
  }
}
