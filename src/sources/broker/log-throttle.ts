/**
 * Lets through up to `perWindow` lines of one kind per window and counts the rest; at the end of
 * a window that dropped some, `summary(dropped)` is called once. For lines that a peer can cause
 * at will (a client reconnecting in a loop), which must not flood the log.
 */
export class LogThrottle {
  private windowStart = -Infinity;
  private passed = 0;
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly perWindow: number,
    private readonly windowMs: number,
    private readonly summary: (dropped: number) => void,
  ) {}

  /** Whether this line is to be written (else it is counted in the window's summary). */
  admit(now = Date.now()): boolean {
    if (now - this.windowStart >= this.windowMs) {
      this.flush();
      this.windowStart = now;
      this.passed = 0;
    }
    if (this.passed < this.perWindow) {
      this.passed++;
      return true;
    }
    if (this.dropped++ === 0) this.timer = setTimeout(() => this.flush(), this.windowStart + this.windowMs - now).unref();
    return false;
  }

  /** Writes the summary of what was dropped, if anything (at the window's end, or at shutdown). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.dropped === 0) return;
    const dropped = this.dropped;
    this.dropped = 0;
    this.summary(dropped);
  }
}
