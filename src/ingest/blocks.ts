import type { ChainEvent, DecodedEvent } from '../sources/events.js';
import { InputError, type InputPosition } from '../sources/input-error.js';

/** A whole block: applied atomically with the checkpoint. */
export interface Block {
  height: bigint;
  /** Unix ns; from beginBlock, else from a timeUpdate, else the previous block's. */
  time: bigint;
  hash: string;
  /** Its events' chain id; when they name none, the previous block's ('' when no event has named one). */
  chainId: string;
  events: ChainEvent[];
  /** Skipped event types and how often they occurred in this block. */
  skipped: Map<string, number>;
  /** Where its first event is in the input. */
  start: InputPosition;
}

/**
 * The default bound of a block's events of ours (--max-block-events): a block is held whole
 * until its end, so without a bound a core that never ended one would grow the heap until the
 * process died. A million events take some hundreds of MB; a real chain's blocks hold thousands.
 */
export const DEFAULT_MAX_BLOCK_EVENTS = 1_000_000;

/**
 * The default of --batch-events: while catching up, whole blocks are applied in one transaction
 * until they hold this many events (fewer commits; a live block is applied alone).
 */
export const DEFAULT_BATCH_EVENTS = 50_000;

/** What push returns for the events that complete no block (nearly all): no array made for each. */
const NO_BLOCKS: readonly Block[] = Object.freeze([]);

/**
 * Groups decoded events into blocks. With markers, a block runs from beginBlock to endBlock;
 * without them, consecutive events with the same height (the id prefix) form a block. Nothing
 * is ever taken for a whole block that may be part of one: a block cut short (a beginBlock
 * before its endBlock) is dropped, and once the input has markers, an event outside them stops it.
 * push() returns the blocks completed by an event; end() returns a last marker-less block.
 */
export class BlockAssembler {
  /** `maxEvents`: the events of ours a block may hold, kept in memory until its end; more are refused (InputError). */
  constructor(private readonly maxEvents = DEFAULT_MAX_BLOCK_EVENTS) {}

  private current: (Block & { marked: boolean }) | undefined;
  private lastTime = 0n;
  private lastChain = '';
  /** A beginBlock has been read since the input began: every event must then be inside a block. */
  private markers = false;

  push(e: DecodedEvent): readonly Block[] {
    // An endBlock belongs to the block it closes; any other event to the block it is put in.
    if (e.body.kind === 'endBlock') {
      this.noteChain(e);
      return this.take(e);
    }
    const done = this.take(e);
    this.noteChain(e);
    return done;
  }

  /** The open block's chain is its first event's that names one; an event naming another stops the input. */
  private noteChain(e: DecodedEvent): void {
    const chainId = e.chainId;
    const block = this.current;
    if (!chainId || !block || chainId === block.chainId) return;
    if (block.chainId !== '')
      throw new InputError(
        e.at,
        e.id,
        'chainId',
        `chain ${JSON.stringify(chainId)} inside block ${block.height} of chain ${JSON.stringify(block.chainId)}`,
      );
    block.chainId = chainId;
  }

  private take(e: DecodedEvent): readonly Block[] {
    const body = e.body;
    const cur = this.current;
    if (body.kind === 'beginBlock') {
      let done = NO_BLOCKS;
      if (cur?.marked) {
        // The open block never got its endBlock: the core stopped inside it and replays from
        // this block or an earlier one, so its part is dropped, never applied. A later height
        // would leave the open block missing for good.
        if (body.height > cur.height)
          throw new InputError(
            e.at,
            e.id,
            'beginBlock.height',
            `beginBlock ${body.height} while block ${cur.height} is open (no endBlock ${cur.height})`,
          );
        this.current = undefined;
      } else if (cur) {
        // Events without markers at this height would be taken for the whole block.
        if (cur.height === body.height)
          throw new InputError(
            e.at,
            e.id,
            'beginBlock.height',
            `beginBlock ${body.height} after events of block ${body.height} outside its markers`,
          );
        done = [this.finish()];
      }
      this.markers = true;
      this.current = this.open(body.height, e.at, true, body.timestamp, body.hash);
      return done;
    }
    if (body.kind === 'endBlock') {
      if (!cur?.marked || cur.height !== body.height) {
        throw new InputError(
          e.at,
          e.id,
          'endBlock.height',
          `endBlock ${body.height} does not close the open block${cur?.marked ? ` ${cur.height}` : ': no beginBlock opened it'}`,
        );
      }
      return [this.finish()];
    }
    let done = NO_BLOCKS;
    if (cur && cur.height !== e.height) {
      if (cur.marked) {
        throw new InputError(e.at, e.id, 'id', `event of height ${e.height} inside block ${cur.height}`);
      }
      done = [this.finish()];
    }
    if (!this.current && this.markers)
      throw new InputError(e.at, e.id, 'id', `event of height ${e.height} outside a block: the input has block markers`);
    this.current ??= this.open(e.height, e.at, false, undefined, '');
    if (e.timeUpdate !== undefined && !this.current.marked) this.current.time = e.timeUpdate;
    const skipped = this.current.skipped;
    if (body.kind === 'skipped') skipped.set(body.type, (skipped.get(body.type) ?? 0) + 1);
    else if (body.kind === 'skippedRun') for (const [type, n] of body.counts) skipped.set(type, (skipped.get(type) ?? 0) + n);
    else {
      const events = this.current.events;
      if (events.length >= this.maxEvents)
        throw new InputError(
          e.at,
          e.id,
          undefined,
          `block ${this.current.height} holds more than ${this.maxEvents.toLocaleString('en-US')} events of ours (--max-block-events): it is not applied`,
        );
      events.push(body);
    }
    return done;
  }

  /**
   * The input begins again (another file, or the same one rewritten): the block in progress is
   * dropped, whatever it is, since the rest of it will not come; returns where it began.
   */
  drop(): { height: bigint; at: InputPosition } | undefined {
    const cur = this.current;
    this.current = undefined;
    this.markers = false;
    return cur && { height: cur.height, at: cur.start };
  }

  /** At the end of the input: a block without markers is complete; one opened by beginBlock is not. */
  end(): { block?: Block; incomplete?: { height: bigint; at: InputPosition } } {
    const cur = this.current;
    if (!cur) return {};
    if (cur.marked) return { incomplete: { height: cur.height, at: cur.start } };
    return { block: this.finish() };
  }

  private open(height: bigint, start: InputPosition, marked: boolean, time: bigint | undefined, hash: string) {
    return { height, time: time ?? this.lastTime, hash, chainId: '', events: [], skipped: new Map(), start, marked };
  }

  private finish(): Block {
    const { marked: _marked, ...block } = this.current!;
    this.current = undefined;
    this.lastTime = block.time;
    if (block.chainId === '') block.chainId = this.lastChain;
    this.lastChain = block.chainId;
    return block;
  }
}
