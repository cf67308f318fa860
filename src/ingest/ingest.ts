import type { Store } from '../db/store.js';
import { applyBlocks, countEvents } from './apply.js';
import { BlockAssembler, type Block } from './blocks.js';
import { decodeLine, IngestInputError } from './decode.js';

export interface IngestProgress {
  height: bigint | null;
  events: number;
  blocks: number;
  seconds: number;
}

export interface IngestOptions {
  /** Flush a transaction once this many events are pending (whole blocks only). */
  batchEvents?: number;
  /** Called about once a second while ingesting. */
  onProgress?: (p: IngestProgress) => void;
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
  incomplete?: { height: bigint; line: number };
}

export async function readCheckpoint(store: Store): Promise<bigint | null> {
  const rows = await store.query<{ height: string }>('SELECT height::text FROM chain_head');
  return rows[0] ? BigInt(rows[0].height) : null;
}

/**
 * Ingests bus-event lines into the store. Whole blocks are applied atomically together with the
 * checkpoint, several blocks per transaction while catching up. Blocks at or below the
 * checkpoint are skipped, so running the same input again changes nothing and a run that
 * failed resumes where it stopped. On bad input, the blocks before the bad one are committed
 * and an IngestInputError naming line, event and field is thrown.
 */
export async function ingestLines(store: Store, lines: AsyncIterable<string>, opts: IngestOptions = {}): Promise<IngestSummary> {
  const batchEvents = opts.batchEvents ?? 20_000;
  const started = performance.now();
  let checkpoint = await readCheckpoint(store);
  const summary: IngestSummary = { blocksApplied: 0, blocksSkipped: 0, applied: new Map(), skipped: new Map(), lastHeight: checkpoint, seconds: 0 };
  const assembler = new BlockAssembler();
  let pending: Block[] = [];
  let pendingEvents = 0;
  let appliedEvents = 0;
  let lastReport = started;

  const flush = async () => {
    if (pending.length === 0) return;
    const blocks = pending;
    pending = [];
    pendingEvents = 0;
    await store.transaction((tx) => applyBlocks(tx, blocks));
    for (const [name, n] of countEvents(blocks)) {
      const [map, key] = name.startsWith('skipped:') ? [summary.skipped, name.slice(8)] : [summary.applied, name];
      map.set(key, (map.get(key) ?? 0) + n);
      if (map === summary.applied) appliedEvents += n;
    }
    summary.blocksApplied += blocks.length;
    summary.lastHeight = blocks[blocks.length - 1]!.height;
  };

  const accept = async (block: Block) => {
    if (checkpoint !== null && block.height <= checkpoint) {
      summary.blocksSkipped++;
      return;
    }
    checkpoint = block.height;
    pending.push(block);
    pendingEvents += block.events.length + 1;
    if (pendingEvents >= batchEvents) await flush();
  };

  let lineNo = 0;
  try {
    for await (const text of lines) {
      lineNo++;
      if (text.trim() === '') continue;
      for (const event of decodeLine(text, lineNo)) {
        for (const block of assembler.push(event)) await accept(block);
      }
      if (opts.onProgress) {
        const now = performance.now();
        if (now - lastReport >= 1000) {
          lastReport = now;
          opts.onProgress({ height: checkpoint, events: appliedEvents + pendingEvents, blocks: summary.blocksApplied + pending.length, seconds: (now - started) / 1000 });
        }
      }
    }
    const end = assembler.end();
    if (end.block) await accept(end.block);
    if (end.incomplete) summary.incomplete = end.incomplete;
    await flush();
  } catch (err) {
    // Keep every whole block read before the bad input; the block in progress is dropped.
    if (err instanceof IngestInputError) await flush();
    throw err;
  }
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}
