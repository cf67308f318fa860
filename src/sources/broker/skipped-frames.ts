import { isOurPayload, scanEnvelope, scannedEnvelope } from '../binary/decode-event.js';
import { PAYLOADS } from '../binary/schema.js';
import { TypeTally } from '../binary/type-tally.js';

/**
 * Tells which frames the broker's buffer files leave out: events of the kinds we skip, most of a
 * chain's bytes (three quarters of the medium demo chain's), which the applier would only count.
 * One is left out only where the applier could not have refused it: its envelope scans, its
 * version is 1, its chain is the configured one, and it belongs to the block that its
 * connection's last BeginBlock opened (its id begins with that block's height). Anything else is
 * kept, so that the applier names what is wrong with it at its place in the chain. What is left
 * out is counted by type (take()).
 */
export class SkippedFrames {
  /** The id prefix ("<height>-") of the block the last BeginBlock opened, until its EndBlock. */
  private openBlock: Buffer | undefined;
  private readonly tally = new TypeTally();
  /** Its own: frames arrive while the applier's decoder is paused between two reads of the shared one. */
  private readonly scanned = scannedEnvelope();

  /** @param chainId events of another chain are kept, for the applier to refuse; any chain when undefined. */
  constructor(private readonly chainId: string | undefined) {}

  /** A connection began: no block is open on it yet. */
  connectionBegan(): void {
    this.openBlock = undefined;
  }

  /** Whether `frame` (a BusEvent) is left out; the block markers are followed as they pass. */
  leavesOut(frame: Buffer): boolean {
    const scanned = this.scanned;
    if (!scanEnvelope(frame, 0, frame.length, scanned)) return false;
    const { payloadField, idStart, dash } = scanned;
    if (payloadField === PAYLOADS.beginBlock.field) {
      this.openBlock = Buffer.from(frame.subarray(idStart, dash + 1));
      return false;
    }
    if (payloadField === PAYLOADS.endBlock.field) {
      this.openBlock = undefined;
      return false;
    }
    if (isOurPayload(payloadField) || scanned.version !== 1) return false;
    if (this.chainId !== undefined && scanned.chainId !== this.chainId) return false;
    const open = this.openBlock;
    if (open === undefined || dash + 1 - idStart !== open.length || open.compare(frame, idStart, dash + 1) !== 0) return false;
    this.tally.add(scanned.type);
    return true;
  }

  /** The events left out since the last take, by type name. */
  take(): Map<string, number> {
    return this.tally.take().counts;
  }
}
