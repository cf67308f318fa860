import { open } from 'node:fs/promises';
import { decodeBusEvent, type BinaryEvent } from '../binary/decode-event.js';
import { EventRecordReader } from '../binary/records.js';
import { InputError } from '../input-error.js';

/** Bytes read per step; bounds memory whatever a file's size. */
const CHUNK_BYTES = 1 << 20;

export type BufferRead =
  /** Nothing was appended since the last read. */
  | { kind: 'unchanged' }
  /** The events of the records the new bytes complete, and whether they reach the end of the file. */
  | { kind: 'appended'; events: Iterator<BinaryEvent>; atEnd: boolean };

/**
 * One buffer file read as it grows: complete records are decoded (a partial record at the end
 * waits, the receiver may be writing it), and each event is checked as the data-node checks
 * what its core sends: `version` 1, and the configured chain. Take all the events of a read
 * before the next.
 */
export class BufferFileReader {
  private offset = 0;
  private readonly records = new EventRecordReader();

  constructor(
    readonly path: string,
    private readonly chainId: string | undefined,
  ) {}

  async read(): Promise<BufferRead> {
    const handle = await open(this.path, 'r');
    try {
      const { size } = await handle.stat();
      if (size <= this.offset) return { kind: 'unchanged' };
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - this.offset));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
      this.offset += bytesRead;
      return { kind: 'appended', events: this.decode(buffer.subarray(0, bytesRead)), atEnd: this.offset >= size };
    } finally {
      await handle.close();
    }
  }

  private *decode(chunk: Buffer): Generator<BinaryEvent> {
    for (const r of this.records.push(chunk)) {
      const event = decodeBusEvent(r.buf, r.start, r.end, { offset: r.offset });
      if (event.version !== 1) throw new InputError(event.at, event.id, 'version', `version ${event.version}: only version 1 is known`);
      if (this.chainId !== undefined && event.chainId !== this.chainId) {
        throw new InputError(event.at, event.id, 'chainId', `chain ${JSON.stringify(event.chainId)}, not the configured ${JSON.stringify(this.chainId)} (--chain-id)`);
      }
      yield event;
    }
  }
}
