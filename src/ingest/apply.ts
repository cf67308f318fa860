import type { ReadModel } from '../db/read-models.js';
import type { Queryable } from '../db/store.js';
import type { ChainEvent } from '../sources/events.js';
import type { Block } from './blocks.js';
import { batchProjections } from './projections/index.js';
import type { EventHandlers, Projection } from './projections/projection.js';

/**
 * Applies a batch of whole blocks to the read models inside the caller's transaction: every
 * projection notes the keys the batch's events touch, preloads them, folds the events in chain
 * order, and writes its rows (see Projection). The read models it changed get the batch's last
 * height as their version, before the chain head is written (its trigger announces both).
 */
export async function applyBlocks(tx: Queryable, blocks: readonly Block[]): Promise<void> {
  const last = blocks[blocks.length - 1];
  if (!last) return;
  const projections = batchProjections();
  forEachEvent(
    blocks,
    projections.map((p) => p.touches),
  );
  for (const p of projections) await p.preload?.(tx);
  forEachEvent(
    blocks,
    projections.map((p) => p.folds),
  );
  await recordVersions(tx, changedModels(blocks, projections), last.height);
  await writeTogether(tx, projections, last);
}

/**
 * Every projection's writes at once: each waits on its own statements only, so that one builds
 * its parameters while the store runs another's statement. They write their own tables, so how
 * one's statements fall among another's does not matter. All of them have ended before this
 * returns or throws, so none can send a statement after the caller's rollback. The error thrown
 * is the first to arrive: the statements after a failed one fail only because it did.
 */
async function writeTogether(tx: Queryable, projections: readonly Projection[], last: Block): Promise<void> {
  let first: { error: unknown } | undefined;
  await Promise.all(
    projections.map((p) =>
      p.write(tx, last).catch((error: unknown) => {
        first ??= { error };
      }),
    ),
  );
  if (first) throw first.error;
}

/**
 * The read models of the projections that fold any event of the blocks. A fold may leave its
 * model as it was (an epoch's start, a reward outside every team): the version then moves all
 * the same, which only costs cached answers, never keeps a stale one.
 */
function changedModels(blocks: readonly Block[], projections: readonly Projection[]): ReadModel[] {
  const kinds = new Set<string>();
  for (const b of blocks) for (const e of b.events) kinds.add(e.kind);
  return [...new Set(projections.filter((p) => Object.keys(p.folds).some((k) => kinds.has(k))).map((p) => p.model))];
}

async function recordVersions(tx: Queryable, models: readonly ReadModel[], height: bigint): Promise<void> {
  if (models.length === 0) return;
  await tx.query(
    `INSERT INTO read_model_versions (model, height) SELECT m, $2 FROM unnest($1::text[]) AS m
     ON CONFLICT (model) DO UPDATE SET height = excluded.height`,
    [models, String(height)],
  );
}

type Handler = (e: ChainEvent, block: Block) => void;

/** Calls, for each event in order, the handlers of its kind, in the order the projections come. */
function forEachEvent(blocks: readonly Block[], handlers: (EventHandlers | undefined)[]): void {
  const byKind = new Map<string, Handler[]>();
  for (const h of handlers) {
    for (const [kind, f] of Object.entries(h ?? {}) as [string, Handler][]) byKind.set(kind, [...(byKind.get(kind) ?? []), f]);
  }
  for (const block of blocks) {
    for (const e of block.events) {
      const fs = byKind.get(e.kind);
      if (fs) for (const f of fs) f(e, block);
    }
  }
}
