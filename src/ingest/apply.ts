import type { Queryable } from '../db/store.js';
import type { ChainEvent } from '../sources/events.js';
import type { Block } from './blocks.js';
import { batchProjections } from './projections/index.js';
import type { EventHandlers } from './projections/projection.js';

/**
 * Applies a batch of whole blocks to the read models inside the caller's transaction: every
 * projection notes the keys the batch's events touch, preloads them, folds the events in chain
 * order, and writes its rows (see Projection).
 */
export async function applyBlocks(tx: Queryable, blocks: readonly Block[]): Promise<void> {
  const last = blocks[blocks.length - 1];
  if (!last) return;
  const projections = batchProjections();
  forEachEvent(blocks, projections.map((p) => p.touches));
  for (const p of projections) await p.preload?.(tx);
  forEachEvent(blocks, projections.map((p) => p.folds));
  for (const p of projections) await p.write(tx, last);
}

type Handler = (e: ChainEvent) => void;

/** Calls, for each event in order, the handlers of its kind, in the order the projections come. */
function forEachEvent(blocks: readonly Block[], handlers: (EventHandlers | undefined)[]): void {
  const byKind = new Map<string, Handler[]>();
  for (const h of handlers) {
    for (const [kind, f] of Object.entries(h ?? {}) as [string, Handler][]) byKind.set(kind, [...(byKind.get(kind) ?? []), f]);
  }
  for (const block of blocks) {
    for (const e of block.events) {
      const fs = byKind.get(e.kind);
      if (fs) for (const f of fs) f(e);
    }
  }
}
