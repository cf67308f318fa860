import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Store } from '../db/store.js';
import type { DecodedEvent, EventBatches } from '../sources/events.js';
import { InputError, type InputPosition } from '../sources/input-error.js';
import { applyBlocks } from './apply.js';
import { BlockAssembler, type Block, DEFAULT_BATCH_EVENTS } from './blocks.js';

export interface IngestProgress {
  height: bigint | null;
  events: number;
  blocks: number;
  seconds: number;
}

export interface IngestOptions {
  /** Flush a transaction once this many events are pending (whole blocks only). */
  batchEvents?: number;
  /** Events of ours one block may hold (BlockAssembler); more are an InputError. */
  maxBlockEvents?: number;
  /** Called about once a second while ingesting. */
  onProgress?: (p: IngestProgress) => void;
  /** Called after each committed transaction, with what it applied (metrics). */
  onApplied?: (batch: AppliedBatch) => void;
  /**
   * Refuse a block that is not the next height after the checkpoint (InputError), as the
   * data-node does with the broker socket; an empty store takes whatever height comes first.
   */
  refuseGaps?: boolean;
}

/** What one committed transaction applied. */
export interface AppliedBatch {
  blocks: number;
  /** Applied events per kind. */
  applied: Map<string, number>;
  /** Skipped events per type. */
  skipped: Map<string, number>;
  lastHeight: bigint;
}

export interface IngestSummary {
  blocksApplied: number;
  /** Blocks at or below the checkpoint (already applied), not applied again. */
  blocksSkipped: number;
  /** Applied events per kind. */
  applied: Map<string, number>;
  /** Skipped (not consumed) events per type. */
  skipped: Map<string, number>;
  lastHeight: bigint | null;
  seconds: number;
  /** A block opened by beginBlock whose endBlock never came: not applied. */
  incomplete?: { height: bigint; at: InputPosition };
}

/**
 * Applied events between two vacuums while ingesting (see Ingester.maintain): of the tables
 * whose rows are updated all the time (small, so this is quick), and, less often, with ANALYZE,
 * of the growing tables too.
 */
const VACUUM_UPDATED_EVENTS = 100_000;
const MAINTENANCE_EVENTS = 1_000_000;

/**
 * Events of the kinds we skip count toward a full batch (batchFull) this many to one. The store
 * writes nothing for them, but decoding them takes time, which the transaction of the batch
 * before overlaps only once a batch is cut: a stretch of a real chain, mostly quiet blocks and
 * other kinds, would otherwise be decoded whole before its one transaction starts.
 */
const SKIPPED_PER_BATCH_EVENT = 10;

/** A block's weight toward a full batch: its events of ours, itself, and its skipped events (see SKIPPED_PER_BATCH_EVENT). */
function batchWeight(b: Block): number {
  let skipped = 0;
  for (const n of b.skipped.values()) skipped += n;
  return b.events.length + 1 + Math.floor(skipped / SKIPPED_PER_BATCH_EVENT);
}

/** Events decoded between two turns of the event loop while ingesting (see Ingester.pushAll). */
const EVENTS_PER_TURN = 200;

/**
 * Small tables whose rows ingestion keeps updating: each active party's and team's span every
 * epoch, set sizes, the head, the read models' versions, each team's games, the parties' team
 * history, the referral program, the assets. Every read model's table is in one of these lists
 * (test/ingest/maintenance.test.ts): one left out is never analyzed where no autovacuum runs
 * (PGlite, or a server with it off), and its pages are planned as if it were empty.
 */
const UPDATED_TABLES = [
  'chain_head',
  'read_model_versions',
  'referral_sets',
  'teams',
  'team_members',
  'game_scopes',
  'team_parties',
  'team_stats_spans',
  'team_games',
  'team_membership_history',
  'referral_program',
  'assets',
];
/**
 * Tables that grow with the chain while some of their rows are updated (a referee moving to
 * another set, the summaries of the epoch in progress): vacuumed with the periodic maintenance
 * only, since a vacuum of a table with dead rows reads all its indexes.
 */
const GROWING_TABLES = ['referral_set_referees', 'epoch_reward_summaries', 'team_party_games'];
/**
 * The big tables, rows inserted: ingestion reads them by key only, so it needs neither their
 * statistics nor their vacuum, which read them whole (seconds each at mainnet size). They are
 * maintained each time the events applied have doubled and at the end of an ingest, so the work
 * stays in proportion to the data instead of growing with its square.
 */
const INSERTED_TABLES = [
  'team_member_stats',
  'team_epochs',
  'team_epoch_stats',
  'referral_set_epochs',
  'referral_set_referee_stats',
  'referral_generated_rewards',
];

/** Every read model's table, in one of the lists above. */
export const MAINTAINED_TABLES: readonly string[] = [...UPDATED_TABLES, ...GROWING_TABLES, ...INSERTED_TABLES];

/** Events applied per kind and skipped per type, summed over the blocks. */
function countEvents(blocks: readonly Block[]): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (k: string, n: number) => counts.set(k, (counts.get(k) ?? 0) + n);
  for (const b of blocks) {
    for (const e of b.events) add(e.kind, 1);
    for (const [type, n] of b.skipped) add(`skipped:${type}`, n);
  }
  return counts;
}

export async function readCheckpoint(store: Store): Promise<bigint | null> {
  return (await readHead(store)).height;
}

/** The last applied block's height and the store's chain ('' until an input names one). */
async function readHead(store: Store): Promise<{ height: bigint | null; chainId: string }> {
  const rows = await store.query<{ height: string; chain_id: string | null }>('SELECT height::text, chain_id FROM chain_head');
  return { height: rows[0] ? BigInt(rows[0].height) : null, chainId: rows[0]?.chain_id ?? '' };
}

/**
 * Incremental ingestion: push() decoded events as they come, flush() to apply the complete
 * blocks queued so far. Whole blocks are applied atomically together with the checkpoint, several
 * blocks per transaction while catching up; blocks at or below the checkpoint are skipped.
 * Used by ingestEvents (a whole input) and by the loop of growing inputs (GrowingIngest: a
 * followed file, the broker socket's buffer files).
 */
export class Ingester {
  readonly summary: IngestSummary;
  private readonly assembler: BlockAssembler;
  private readonly batchEvents: number;
  private pending: Block[] = [];
  /** When the oldest queued block was queued (performance.now()). */
  private pendingSince = 0;
  private pendingEvents = 0;
  /** What the queued blocks weigh toward a full batch (batchWeight). */
  private pendingWeight = 0;
  private appliedEvents = 0;
  private ended = false;
  /** Events pushed by pushAll since it last let the event loop turn. */
  private eventsThisTurn = 0;
  /** The transaction started by flushAhead, while the caller decodes the next batch. */
  private writing: Promise<void> | undefined;
  private writingEvents = 0;
  /** Applied events since the read models were last vacuumed and analyzed, and since the updated tables were vacuumed. */
  private sinceMaintenance = 0;
  private sinceVacuum = 0;
  /** Events applied when INSERTED_TABLES were last maintained. */
  private insertedMaintainedAt = 0;

  private constructor(
    private readonly store: Store,
    private checkpoint: bigint | null,
    /** The store's chain, or the first the input named ('' while none is known). */
    private chainId: string,
    private readonly opts: IngestOptions,
  ) {
    this.batchEvents = opts.batchEvents ?? DEFAULT_BATCH_EVENTS;
    this.assembler = new BlockAssembler(opts.maxBlockEvents);
    this.summary = { blocksApplied: 0, blocksSkipped: 0, applied: new Map(), skipped: new Map(), lastHeight: checkpoint, seconds: 0 };
  }

  /** An ingester continuing after the store's checkpoint. */
  static async open(store: Store, opts: IngestOptions = {}): Promise<Ingester> {
    const head = await readHead(store);
    return new Ingester(store, head.height, head.chainId, opts);
  }

  /**
   * Queues the blocks an event completes; applies nothing by itself (see batchFull and flush).
   * Throws InputError when the event does not fit its block; the blocks queued before it are
   * still complete and may be flushed.
   */
  push(event: DecodedEvent): void {
    for (const block of this.assembler.push(event)) this.accept(block);
  }

  /**
   * Pushes events, starting a transaction each time a batch is full (flushAhead), so that the
   * next batch is decoded while the store writes this one. When a transaction fails its error is
   * thrown with `events` part-way: the events not pushed yet are still in it, to be pushed once
   * the failure is dealt with. `onTurn` is called at each turn of the event loop (progress).
   */
  async pushAll(events: Iterator<DecodedEvent>, onTurn?: () => void): Promise<void> {
    for (let next = events.next(); !next.done; next = events.next()) {
      this.push(next.value);
      if (this.batchFull) await this.flushAhead();
      // Input buffered by the source is decoded without a turn of the event loop, so the store's
      // replies to the transaction in flight (flushAhead) would only be read when the buffer
      // runs dry: one statement per chunk of input (1 MB) decoded, which left the writes far
      // behind the decoding (and, in serve, kept requests waiting as long).
      if (++this.eventsThisTurn < EVENTS_PER_TURN) continue;
      this.eventsThisTurn = 0;
      await nextTurn();
      onTurn?.();
    }
  }

  /** Whether enough events are queued for a transaction. */
  get batchFull(): boolean {
    return this.pendingWeight >= this.batchEvents;
  }

  /** Complete blocks queued, not yet applied. */
  get pendingBlocks(): number {
    return this.pending.length;
  }

  /** How long the oldest queued block has waited for its transaction, in ms (0 when none is queued). */
  get pendingMs(): number {
    return this.pending.length === 0 ? 0 : performance.now() - this.pendingSince;
  }

  /** The height of the last block accepted (queued or applied). */
  get height(): bigint | null {
    return this.checkpoint;
  }

  /** Events and blocks accepted so far (applied and queued), for progress. */
  get progress(): { events: number; blocks: number } {
    return {
      events: this.appliedEvents + this.writingEvents + this.pendingEvents,
      blocks: this.summary.blocksApplied + this.pending.length,
    };
  }

  /**
   * Applies every queued block in one transaction with the checkpoint. When it fails the blocks
   * stay queued, so a later flush (after resync) can apply them. A transaction started by
   * flushAhead is waited for first (and its failure thrown).
   */
  async flush(): Promise<void> {
    await this.settle();
    if (this.pending.length > 0) await this.apply();
  }

  /**
   * Starts applying the queued blocks and returns without waiting for the transaction, so that
   * the caller decodes the next batch while the store writes this one: decoding and writing
   * take about equal time when catching up, and overlapping them nearly doubles the rate. At
   * most one transaction is in flight (this first waits for the previous one, throwing its
   * failure), so batches commit in order and each one's preload sees the one before; memory
   * holds two batches at most.
   */
  async flushAhead(): Promise<void> {
    await this.settle();
    if (this.pending.length === 0) return;
    const writing = this.apply();
    // Its failure is thrown by the next settle(); until then it is not unhandled.
    writing.catch(() => {});
    this.writing = writing;
  }

  /** Waits for the transaction started by flushAhead, if any; throws its failure. */
  async settle(): Promise<void> {
    const writing = this.writing;
    this.writing = undefined;
    if (writing) await writing;
  }

  /**
   * VACUUM (ANALYZE) of all the read models when at least `minEvents` were applied since the
   * big inserted tables were last maintained (the end of an ingest). Catching up updates some
   * rows every epoch (each active party's span in team_parties, set sizes, summaries): without
   * vacuum their tables and indexes bloat (team_parties reached 300 MB for 68k rows on the
   * mainnet demo chain), and pages stop fitting in the cache. A server's autovacuum may be off
   * or slow to start, and the embedded store has none at all. The planner also needs statistics
   * of tables that were empty when ingestion started.
   */
  async maintain(minEvents = MAINTENANCE_EVENTS): Promise<void> {
    await this.settle();
    if (this.appliedEvents - this.insertedMaintainedAt >= minEvents) await this.vacuum(true);
  }

  /** VACUUM (ANALYZE) of the read models; of the big inserted ones when asked or once the events applied have doubled. */
  private async vacuum(withInserted: boolean): Promise<void> {
    this.sinceMaintenance = 0;
    this.sinceVacuum = 0;
    const tables = [...UPDATED_TABLES, ...GROWING_TABLES];
    if (withInserted || this.appliedEvents >= 2 * this.insertedMaintainedAt) {
      this.insertedMaintainedAt = this.appliedEvents;
      tables.push(...INSERTED_TABLES);
    }
    await this.store.exec(`VACUUM (ANALYZE) ${tables.join(', ')}`);
  }

  /** Applies all queued blocks in one transaction; on failure they are queued again, in front. */
  private async apply(): Promise<void> {
    const blocks = this.pending;
    const since = this.pendingSince;
    this.pending = [];
    this.writingEvents = this.pendingEvents;
    this.pendingEvents = 0;
    this.pendingWeight = 0;
    try {
      await this.store.transaction((tx) => applyBlocks(tx, blocks));
    } catch (err) {
      this.pending = blocks.concat(this.pending);
      this.pendingSince = since;
      this.countPending();
      throw err;
    } finally {
      this.writingEvents = 0;
    }
    const batch: AppliedBatch = {
      blocks: blocks.length,
      applied: new Map(),
      skipped: new Map(),
      lastHeight: blocks[blocks.length - 1]!.height,
    };
    for (const [name, n] of countEvents(blocks)) {
      const [key, map, total] = name.startsWith('skipped:')
        ? [name.slice(8), batch.skipped, this.summary.skipped]
        : [name, batch.applied, this.summary.applied];
      map.set(key, n);
      total.set(key, (total.get(key) ?? 0) + n);
      if (map === batch.applied) this.appliedEvents += n;
    }
    this.summary.blocksApplied += blocks.length;
    this.summary.lastHeight = batch.lastHeight;
    this.opts.onApplied?.(batch);
    for (const n of batch.applied.values()) {
      this.sinceMaintenance += n;
      this.sinceVacuum += n;
    }
    // Not maintain(): that waits for the transaction in flight, which may be this one.
    if (this.sinceMaintenance >= MAINTENANCE_EVENTS) await this.vacuum(false);
    else if (this.sinceVacuum >= VACUUM_UPDATED_EVENTS) {
      this.sinceVacuum = 0;
      await this.store.exec(`VACUUM ${UPDATED_TABLES.join(', ')}`);
    }
  }

  /**
   * After a failed flush: the transaction may have committed all the same (the connection was
   * lost at COMMIT), so re-read the checkpoint and drop queued blocks at or below it.
   */
  async resync(): Promise<void> {
    const stored = await readCheckpoint(this.store);
    if (stored === null) return;
    this.pending = this.pending.filter((b) => b.height > stored);
    this.countPending();
  }

  /**
   * The input begins again (another file, or the same one rewritten from its start): the block
   * in progress is dropped (its rest will not come) and returned; complete blocks stay queued.
   * Events pushed next go to a new block.
   */
  restart(): { height: bigint; at: InputPosition } | undefined {
    return this.assembler.drop();
  }

  /** End of input: a last block without markers is complete; applies everything queued. */
  async end(): Promise<IngestSummary> {
    if (!this.ended) {
      this.ended = true;
      const end = this.assembler.end();
      if (end.block) this.accept(end.block);
      if (end.incomplete) this.summary.incomplete = end.incomplete;
    }
    await this.flush();
    return this.summary;
  }

  private accept(block: Block): void {
    // Before the checkpoint is compared: another chain's heights start again from 1, and would
    // be skipped as applied, then mixed with this chain's above the head.
    if (block.chainId !== this.chainId && block.chainId !== '') {
      if (this.chainId !== '')
        throw new InputError(
          block.start,
          undefined,
          'chainId',
          `block ${block.height} is of chain ${JSON.stringify(block.chainId)}, the store's is ${JSON.stringify(this.chainId)}: a store holds one chain (give another a store of its own)`,
        );
      this.chainId = block.chainId;
    }
    // On height alone, not the hash: a real network's stream holds the same height twice with
    // two hashes (block 1 of the real fixture), so another hash there is no sign of a fork.
    if (this.checkpoint !== null && block.height <= this.checkpoint) {
      this.summary.blocksSkipped++;
      return;
    }
    if (this.opts.refuseGaps && this.checkpoint !== null && block.height !== this.checkpoint + 1n) {
      throw new InputError(
        block.start,
        undefined,
        'height',
        `block ${block.height} follows block ${this.checkpoint}: a height gap (blocks ${this.checkpoint + 1n} to ${block.height - 1n} are missing)`,
      );
    }
    this.checkpoint = block.height;
    if (this.pending.length === 0) this.pendingSince = performance.now();
    this.pending.push(block);
    this.pendingEvents += block.events.length + 1;
    this.pendingWeight += batchWeight(block);
  }

  private countPending(): void {
    this.pendingEvents = this.pending.reduce((n, b) => n + b.events.length + 1, 0);
    this.pendingWeight = this.pending.reduce((n, b) => n + batchWeight(b), 0);
  }
}

/**
 * Ingests the events of a finished input (see sources/) into the store. Whole blocks are applied
 * atomically together with the checkpoint, several blocks per transaction while catching up.
 * Blocks at or below the checkpoint are skipped, so running the same input again changes nothing
 * and a run that failed resumes where it stopped. On bad input, the blocks before the bad one
 * are committed and the source's InputError (naming where, the event and the field) is thrown.
 */
export async function ingestEvents(store: Store, batches: EventBatches, opts: IngestOptions = {}): Promise<IngestSummary> {
  const started = performance.now();
  const ingester = await Ingester.open(store, opts);
  let lastReport = started;
  const report = () => {
    const now = performance.now();
    if (opts.onProgress && now - lastReport >= 1000) {
      lastReport = now;
      opts.onProgress({ height: ingester.height, ...ingester.progress, seconds: (now - started) / 1000 });
    }
  };
  try {
    for await (const batch of batches) await ingester.pushAll(batch.values(), report);
    await ingester.end();
    // Statistics for the planner after a sizeable catch-up (small inputs skip this).
    await ingester.maintain(MAINTENANCE_EVENTS / 10);
  } catch (err) {
    // Keep every whole block read before the bad input; the block in progress is dropped.
    if (err instanceof InputError) await ingester.flush();
    throw err;
  }
  ingester.summary.seconds = (performance.now() - started) / 1000;
  return ingester.summary;
}
