import type { ReadModel } from '../../db/read-models.js';
import type { Queryable } from '../../db/store.js';
import type { ChainEvent } from '../../sources/events.js';
import type { Block } from '../blocks.js';

/** Truncates Unix ns to whole microseconds, as the reference stores timestamps. */
export const toMicros = (ns: bigint) => ns - (ns % 1000n);

export type EventOf<K extends ChainEvent['kind']> = Extract<ChainEvent, { kind: K }>;

/** A function for each event kind a projection cares about, given the events of that kind and their block. */
export type EventHandlers = { [K in ChainEvent['kind']]?: (e: EventOf<K>, block: Block) => void };

/**
 * One read model, built a batch of whole blocks at a time inside the batch's transaction (a
 * fresh instance per batch; see applyBlocks). Catching up is fast because each batch reads the
 * stored state it needs once, for just the keys its events touch, folds the events over that
 * state in memory, and writes the result with one bulk statement per table. The result is the
 * same as applying the events one by one.
 */
export interface Projection {
  /** The read model it writes: changed by a batch holding any event it folds. */
  readonly model: ReadModel;
  /** Notes the stored keys an event will read, before anything is folded: preload reads only those. */
  readonly touches?: EventHandlers;
  /** Reads the stored state of the keys noted. */
  preload?(tx: Queryable): Promise<void>;
  /** Folds an event into the batch's changes. Every projection sees each event in chain order. */
  readonly folds: EventHandlers;
  /**
   * Writes the batch's changes; `last` is the batch's last block. The projections write at once
   * (applyBlocks), so each writes and reads its own tables only.
   */
  write(tx: Queryable, last: Block): Promise<void>;
}

/** What a projection may do with another's overlay: have keys preloaded, and read them. */
export interface OverlayReader<V> {
  want(key: string): void;
  get(key: string): V | undefined;
}

/** Where an overlay's stored values are: a table keyed by a bytea id column. */
export interface OverlaySource<V, Row> {
  table: string;
  key: string;
  /** The other columns, as selected (their names are Row's keys). */
  columns: string;
  value(row: Row): V;
}

/**
 * Stored state that later events of a batch read (each referee's set, each party's team, each
 * game's scope): preloaded for the keys wanted, then updated in chain order. The keys set are
 * what its projection writes back.
 */
export class Overlay<V, Row = unknown> implements OverlayReader<V> {
  private readonly values = new Map<string, V | undefined>();
  private readonly wanted = new Set<string>();
  /** Keys set by this batch's events; undefined values are removals. */
  readonly changed = new Set<string>();

  constructor(private readonly source: OverlaySource<V, Row>) {}

  want(key: string): void {
    this.wanted.add(key);
  }

  async preload(tx: Queryable): Promise<void> {
    if (this.wanted.size === 0) return;
    const { table, key, columns, value } = this.source;
    const rows = await tx.query<Row & { key: string }>(
      `SELECT encode(${key}, 'hex') AS key, ${columns}
         FROM ${table} WHERE ${key} IN (SELECT decode(x, 'hex') FROM unnest($1::text[]) AS x)`,
      [[...this.wanted]],
    );
    for (const row of rows) this.values.set(row.key, value(row));
  }

  get(key: string): V | undefined {
    return this.values.get(key);
  }

  set(key: string, value: V | undefined): void {
    this.values.set(key, value);
    this.changed.add(key);
  }
}
