import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { DecodedEvent } from './events.js';
import { InputError } from './input-error.js';
import { createDecoder, detectFormat, type EventDecoder } from './input.js';

/** Bytes read per step while catching up; bounds memory whatever the file's size. */
const CHUNK_BYTES = 1 << 20;

/**
 * The file's first bytes, kept and compared at every read: a core that truncates the file and
 * writes it again up to or past the old size between two reads leaves the same inode and no
 * smaller size; only its first record (another block, another sequence) tells the new file from
 * the old.
 */
const HEAD_BYTES = 256;

export type GrowingFileRead =
  /** The file does not exist (yet). */
  | { kind: 'absent' }
  /** Nothing was appended since the last read. */
  | { kind: 'unchanged' }
  /** The file shrank, is another file or was written again from its start: the next read starts again from its first byte. */
  | { kind: 'replaced' }
  /** Bytes were read: the events of the lines they complete, and whether they reach the end of the file. */
  | { kind: 'appended'; events: Iterator<DecodedEvent>; atEnd: boolean };

/**
 * A file read as `tail -f` reads it, through the same decoder as a finished input: NDJSON or an
 * event file (the core's `[Broker.File]`), told by its first byte. Only complete lines or records
 * are decoded: a last line without its newline, or a record cut short, waits for the rest, since
 * the writer may be in the middle of it. Take all the events of a read before the next.
 *
 * The file is read with synchronous calls: it is local and was just written (its bytes are in
 * the page cache), so a read takes microseconds, while each asynchronous call is a round trip
 * through libuv's thread pool and a turn of a busy event loop. The five of a read (stat, open,
 * the head, the new bytes, close) took 50 to 90 ms on a loaded machine, between a live block's
 * last frame and its transaction (bench/broker.ts).
 */
export class GrowingFile {
  private offset = 0;
  private inode: number | undefined;
  /** The first bytes read (up to HEAD_BYTES). */
  private head = Buffer.alloc(0);
  /** Created at the first byte, which tells the format. */
  private decoder: EventDecoder | undefined;

  constructor(readonly path: string) {}

  /** Reads what was appended since the last read, up to CHUNK_BYTES. */
  read(): GrowingFileRead {
    const info = statSync(this.path, { throwIfNoEntry: false });
    if (!info) return { kind: 'absent' };
    if ((this.inode !== undefined && info.ino !== this.inode) || info.size < this.offset) return this.restart();
    this.inode = info.ino;
    if (this.head.length === 0 && info.size === this.offset) return { kind: 'unchanged' };
    // One open per read: the head is compared and the new bytes read through the same handle.
    const fd = openSync(this.path, 'r');
    let buffer: Buffer;
    let bytesRead: number;
    try {
      if (this.head.length > 0 && !this.sameHead(fd)) return this.restart();
      if (info.size === this.offset) return { kind: 'unchanged' };
      const length = Math.min(CHUNK_BYTES, info.size - this.offset);
      buffer = Buffer.alloc(length);
      bytesRead = readSync(fd, buffer, 0, length, this.offset);
    } finally {
      closeSync(fd);
    }
    // Reads follow each other from byte 0, so the head grows with them until it is full.
    if (this.head.length < HEAD_BYTES)
      this.head = Buffer.concat([this.head, buffer.subarray(0, Math.min(bytesRead, HEAD_BYTES - this.head.length))]);
    if (this.decoder === undefined) {
      const format = detectFormat(buffer[0]!);
      if (format === 'gzip')
        throw new InputError(
          { offset: 0, file: this.path },
          undefined,
          undefined,
          'a gzipped file cannot be followed as it grows: ingest it',
        );
      this.decoder = createDecoder(format, this.path);
    }
    this.offset += bytesRead;
    // Only the new bytes are split: a long partial line is not scanned again at every read.
    return { kind: 'appended', events: this.decoder.push(buffer.subarray(0, bytesRead)), atEnd: this.offset >= info.size };
  }

  /** Whether the file still starts with the bytes first read from it. */
  private sameHead(fd: number): boolean {
    const head = Buffer.alloc(this.head.length);
    const bytesRead = readSync(fd, head, 0, head.length, 0);
    return bytesRead === head.length && head.equals(this.head);
  }

  /** The file was replaced, truncated or rewritten: the next read starts again from its first byte. */
  private restart(): GrowingFileRead {
    this.offset = 0;
    this.inode = undefined;
    this.head = Buffer.alloc(0);
    this.decoder = undefined;
    return { kind: 'replaced' };
  }
}
