// Quiet blocks: blocks without events of ours (a time update and events of other kinds only), put
// between the demo's blocks so that only a given share of the chain's blocks carries events of
// ours, as on a real chain (295 of 5,002 blocks in the real fixture smoketest_to_block_5000).

/**
 * Decides how many quiet blocks go before each of the demo's blocks so that, at every point of
 * the chain, the blocks with events of ours are the share asked of the blocks so far (rounded
 * up: the first block is the demo's). Counting the blocks as they close keeps the share right
 * when one of the demo's blocks turns out to hold none of ours.
 */
export class QuietSchedule {
  private blocks = 0;
  private withOurs = 0;

  constructor(readonly share: number) {
    if (!(share > 0 && share <= 1)) throw new RangeError(`the share of blocks with events of ours must be in (0, 1], got ${share}`);
  }

  /** Quiet blocks to write before the next block of the demo's. */
  before(): number {
    let quiet = 0;
    // The next block carries ours once the share of the blocks up to it calls for one more.
    while (this.withOurs >= wanted(this.blocks + quiet + 1, this.share)) quiet++;
    this.blocks += quiet;
    return quiet;
  }

  /** One of the demo's blocks closed, with events of ours or without. */
  closed(withOurs: boolean): void {
    this.blocks++;
    if (withOurs) this.withOurs++;
  }

  /** Blocks written so far, and those with events of ours. */
  get counts(): { blocks: number; withOurs: number } {
    return { blocks: this.blocks, withOurs: this.withOurs };
  }
}

/** Blocks with events of ours wanted among the first `blocks`: ⌈blocks · share⌉ (a hair below, for 0.1 · 10 = 1.0000000000000002). */
function wanted(blocks: number, share: number): number {
  return Math.ceil(blocks * share - 1e-9);
}

/**
 * The times (Unix ns, as text) of `n` quiet blocks between two blocks' times: evenly spread,
 * never before the first nor after the second.
 */
export function quietTimes(after: string, before: string, n: number): string[] {
  const a = BigInt(after);
  const gap = BigInt(before) - a;
  return Array.from({ length: n }, (_, j) => String(a + (gap * BigInt(j + 1)) / BigInt(n + 1)));
}
