/**
 * A transaction's statements as ingestion sends them: the projections do not wait for one
 * another (applyBlocks), so that one builds its parameters while the server runs another's. A
 * connection runs one statement at a time, so they wait here, in the order sent, rather than in
 * pg's own queue, which warns at every use and goes in pg 9.
 */
export class InOrder {
  private previous: Promise<unknown> = Promise.resolve();

  /** Runs `send` once every statement sent before has ended, failed or not. */
  run<T>(send: () => Promise<T>): Promise<T> {
    const result = this.previous.then(send);
    this.previous = result.catch(() => {});
    return result;
  }
}
