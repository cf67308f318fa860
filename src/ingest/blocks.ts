import type { ChainEvent, DecodedEvent } from '../sources/events.js';
import { InputError, type InputPosition } from '../sources/input-error.js';

/** A whole block: applied atomically with the checkpoint. */
export interface Block {
  height: bigint;
  /** Unix ns; from beginBlock, else from a timeUpdate, else the previous block's. */
  time: bigint;
  hash: string;
  events: ChainEvent[];
  /** Skipped event types and how often they occurred in this block. */
  skipped: Map<string, number>;
  /** Where its first event is in the input. */
  start: InputPosition;
}

/** What push returns for the events that complete no block (nearly all): no array made for each. */
const NO_BLOCKS: readonly Block[] = Object.freeze([]);

/**
 * Groups decoded events into blocks. With markers, a block runs from beginBlock to endBlock;
 * without them, consecutive events with the same height (the id prefix) form a block.
 * push() returns the blocks completed by an event; end() returns a last marker-less block.
 */
export class BlockAssembler {
  private current: (Block & { marked: boolean }) | undefined;
  private lastTime = 0n;

  push(e: DecodedEvent): readonly Block[] {
    const body = e.body;
    if (body.kind === 'beginBlock') {
      const done = this.current ? [this.finish()] : NO_BLOCKS;
      this.current = this.open(body.height, e.at, true, body.timestamp, body.hash);
      return done;
    }
    if (body.kind === 'endBlock') {
      const cur = this.current;
      if (!cur || cur.height !== body.height) {
        throw new InputError(
          e.at,
          e.id,
          'endBlock.height',
          `endBlock ${body.height} does not close the open block${cur ? ` ${cur.height}` : ''}`,
        );
      }
      return [this.finish()];
    }
    let done = NO_BLOCKS;
    if (this.current && this.current.height !== e.height) {
      if (this.current.marked) {
        throw new InputError(e.at, e.id, 'id', `event of height ${e.height} inside block ${this.current.height}`);
      }
      done = [this.finish()];
    }
    this.current ??= this.open(e.height, e.at, false, undefined, '');
    if (e.timeUpdate !== undefined && !this.current.marked) this.current.time = e.timeUpdate;
    const skipped = this.current.skipped;
    if (body.kind === 'skipped') skipped.set(body.type, (skipped.get(body.type) ?? 0) + 1);
    else if (body.kind === 'skippedRun') for (const [type, n] of body.counts) skipped.set(type, (skipped.get(type) ?? 0) + n);
    else this.current.events.push(body);
    return done;
  }

  /**
   * The input begins again (another file, or the same one rewritten): the block in progress is
   * dropped, whatever it is, since the rest of it will not come; returns where it began.
   */
  drop(): { height: bigint; at: InputPosition } | undefined {
    const cur = this.current;
    this.current = undefined;
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
    return { height, time: time ?? this.lastTime, hash, events: [], skipped: new Map(), start, marked };
  }

  private finish(): Block {
    const { marked: _marked, ...block } = this.current!;
    this.current = undefined;
    this.lastTime = block.time;
    return block;
  }
}
