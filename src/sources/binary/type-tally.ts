import { typeName } from './decode-event.js';

/** Types below this are counted in an array; the few others (a newer chain's) in a map. */
const TYPES_IN_ARRAY = 1024;

/** Counts events by BusEventType number without an object per event: most of a chain is counted, not decoded. */
export class TypeTally {
  private readonly counts = new Uint32Array(TYPES_IN_ARRAY);
  /** Types counted since the last take, in the order first seen. */
  private readonly types: number[] = [];
  private readonly otherCounts = new Map<number, number>();

  add(type: number): void {
    if (type < TYPES_IN_ARRAY) {
      const n = this.counts[type]!;
      if (n === 0) this.types.push(type);
      this.counts[type] = n + 1;
    } else this.otherCounts.set(type, (this.otherCounts.get(type) ?? 0) + 1);
  }

  /** The counts since the last take, by type name, and their sum; the tally starts afresh. */
  take(): { counts: Map<string, number>; events: number } {
    const counts = new Map<string, number>();
    let events = 0;
    for (const t of this.types) {
      const n = this.counts[t]!;
      counts.set(typeName(t), n);
      events += n;
      this.counts[t] = 0;
    }
    this.types.length = 0;
    for (const [t, n] of this.otherCounts) {
      counts.set(typeName(t), n);
      events += n;
    }
    this.otherCounts.clear();
    return { counts, events };
  }
}
