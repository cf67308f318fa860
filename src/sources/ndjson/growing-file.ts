import { open, stat } from 'node:fs/promises';
import type { DecodedEvent } from '../events.js';
import { NdjsonDecoder } from './decoder.js';

/** Bytes read per step while catching up; bounds memory whatever the file's size. */
const CHUNK_BYTES = 1 << 20;

export type GrowingFileRead =
  /** The file does not exist (yet). */
  | { kind: 'absent' }
  /** Nothing was appended since the last read. */
  | { kind: 'unchanged' }
  /** The file shrank or is another file: the next read starts again from its first byte. */
  | { kind: 'replaced' }
  /** Bytes were read: the events of the lines they complete, and whether they reach the end of the file. */
  | { kind: 'appended'; events: Iterator<DecodedEvent>; atEnd: boolean };

/**
 * An NDJSON file read as `tail -f` reads it, through the same line splitter and decoder as a
 * finished input. Only complete lines are decoded: a last line without its newline waits for it,
 * since the writer may be in the middle of it. Take all the events of a read before the next.
 */
export class GrowingNdjsonFile {
  private offset = 0;
  private inode: number | undefined;
  private decoder = new NdjsonDecoder();

  constructor(readonly path: string) {}

  /** Reads what was appended since the last read, up to CHUNK_BYTES. */
  async read(): Promise<GrowingFileRead> {
    const info = await stat(this.path).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (!info) return { kind: 'absent' };
    if ((this.inode !== undefined && info.ino !== this.inode) || info.size < this.offset) {
      this.offset = 0;
      this.inode = undefined;
      this.decoder = new NdjsonDecoder();
      return { kind: 'replaced' };
    }
    this.inode = info.ino;
    if (info.size === this.offset) return { kind: 'unchanged' };

    const length = Math.min(CHUNK_BYTES, info.size - this.offset);
    const buffer = Buffer.alloc(length);
    const handle = await open(this.path, 'r');
    let bytesRead: number;
    try {
      ({ bytesRead } = await handle.read(buffer, 0, length, this.offset));
    } finally {
      await handle.close();
    }
    this.offset += bytesRead;
    // Only the new bytes are split: a long partial line is not scanned again at every read.
    return { kind: 'appended', events: this.decoder.push(buffer.subarray(0, bytesRead)), atEnd: this.offset >= info.size };
  }
}
