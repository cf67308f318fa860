import { closeSync, createReadStream, openSync, readdirSync, readSync, statSync, type Dirent, type Stats } from 'node:fs';
import { join } from 'node:path';
import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { BinaryDecoder } from './binary/decoder.js';
import { prescannedEvents } from './binary/prescan.js';
import { inOneBatch, type DecodedEvent, type EventBatches } from './events.js';
import { InputError, inFile } from './input-error.js';
import { NdjsonDecoder } from './ndjson/decoder.js';

/** The event formats, told apart by their first bytes. */
export type EventFormat = 'ndjson' | 'evts';

/** Bytes → events, however the bytes are cut into chunks (NdjsonDecoder, BinaryDecoder). */
export interface EventDecoder {
  /** The events of what `chunk` completes; take them all before the next push. */
  push(chunk: Buffer): Generator<DecodedEvent>;
  /** The end of a finished input. */
  end(): Generator<DecodedEvent>;
}

/**
 * What a non-empty input holds, from its first byte: gzip starts 1f 8b; NDJSON with "{" (or
 * blank space, a byte order mark); anything else is an event file, whose records start with
 * their size (a first byte of 0 for any record under 16 MiB; "{" would mean 2 GiB).
 */
export function detectFormat(first: number): EventFormat | 'gzip' {
  if (first === 0x1f) return 'gzip';
  if (first === 0x7b || first === 0x20 || first === 0x0a || first === 0x0d || first === 0x09 || first === 0xef) return 'ndjson';
  return 'evts';
}

export function createDecoder(format: EventFormat, file?: string): EventDecoder {
  return format === 'ndjson' ? new NdjsonDecoder(file) : new BinaryDecoder(file);
}

/** A finished input's events, with how far reading has come. */
export interface EventInput {
  batches: EventBatches;
  /** Bytes read so far (of the files as stored), for progress. */
  bytesRead(): number;
  /** Size of the input when known (files). */
  totalBytes: number | undefined;
  /** Entries of a directory not read, that are neither files nor folders (a FIFO, a dangling link), each with why. */
  notRead: string[];
}

/**
 * The events of a file, of every file of a directory (in name order), or of stdin for "-":
 * NDJSON, an event file or a gzipped event file, each told by its bytes, not its name. Files are
 * streamed in chunks of up to 1 MiB, so memory stays flat however big the input; nothing is
 * opened until iteration starts. An event file (not gzipped) is read and scanned by a worker
 * thread (binary/prescan.ts). Positions in errors and events name the file (not stdin's).
 */
export function readEvents(path: string): EventInput {
  const notRead: string[] = [];
  const files = path === '-' ? [path] : statSync(path).isDirectory() ? filesOf(path, notRead) : [path];
  const totalBytes = path === '-' ? undefined : files.reduce((n, f) => n + statSync(f).size, 0);
  let bytes = 0;
  const count = async function* (chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of chunks) {
      bytes += chunk.length;
      yield chunk;
    }
  };
  async function* events(): AsyncGenerator<readonly DecodedEvent[]> {
    for (const file of files) {
      if (file !== '-' && isEventFile(file)) {
        yield* prescannedEvents(file, (n) => {
          bytes += n;
        });
        continue;
      }
      const stream = file === '-' ? process.stdin : createReadStream(file, { highWaterMark: 1 << 20 });
      yield* fileEvents(count(stream as AsyncIterable<Buffer>), file === '-' ? undefined : file);
    }
  }
  return { batches: events(), bytesRead: () => bytes, totalBytes, notRead };
}

/** Whether a file is an event file, not gzipped, by its first byte (detectFormat); an empty one is not. */
function isEventFile(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const first = Buffer.alloc(1);
    return readSync(fd, first, 0, 1, 0) === 1 && detectFormat(first[0]!) === 'evts';
  } finally {
    closeSync(fd);
  }
}

/**
 * The files of a directory, in name order, links to files included (an archive linked in from
 * elsewhere). Folders are not read; any other entry is added to `notRead` with what it is,
 * since a file the operator meant to ingest must not go unread without a word.
 */
function filesOf(dir: string, notRead: string[]): string[] {
  const files: string[] = [];
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    const what = entry.isSymbolicLink() ? linked(path) : entry;
    if (typeof what === 'string') notRead.push(`${path}: ${what}`);
    else if (what.isFile()) files.push(path);
    else if (!what.isDirectory()) notRead.push(`${path}: ${kindOf(what)}, not a file`);
  }
  return files;
}

/** What a link leads to, or why it leads nowhere. */
function linked(path: string): Stats | string {
  try {
    return statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'a link to nothing' : `a link that cannot be followed (${code})`;
  }
}

/** What a directory entry that is neither a file nor a folder is, in words. */
function kindOf(e: Stats | Dirent): string {
  return e.isFIFO() ? 'a FIFO' : e.isSocket() ? 'a socket' : 'a device';
}

/** The events of one input's bytes, its format detected from them; a gzipped one is inflated first. */
async function* fileEvents(chunks: AsyncIterable<Buffer>, file: string | undefined): AsyncGenerator<readonly DecodedEvent[]> {
  try {
    let bytes = await peeked(chunks);
    if (!bytes) return;
    let inflated = 0;
    if (detectFormat(bytes.first[0]!) === 'gzip') {
      const gunzip = createGunzip();
      // A read error of the file reaches the loop below through the gunzip stream.
      pipeline(Readable.from(bytes.chunks), gunzip, () => {});
      bytes = await peeked(
        (async function* () {
          try {
            for await (const chunk of gunzip as AsyncIterable<Buffer>) {
              inflated += chunk.length;
              yield chunk;
            }
          } catch (err) {
            const reason =
              (err as NodeJS.ErrnoException).code === 'Z_BUF_ERROR'
                ? 'the gzip stream is truncated'
                : `not a valid gzip stream (${(err as Error).message})`;
            throw new InputError({ offset: inflated }, undefined, undefined, reason);
          }
        })(),
      );
      if (!bytes) return;
    }
    const format = detectFormat(bytes.first[0]!);
    const decoder = createDecoder(format === 'gzip' ? 'evts' : format, file);
    for await (const chunk of bytes.chunks) yield* inOneBatch(decoder.push(chunk));
    yield* inOneBatch(decoder.end());
  } catch (err) {
    throw file !== undefined && err instanceof InputError ? inFile(err, file) : err;
  }
}

/** The first non-empty chunk, and all chunks from it on; undefined for an empty input. */
async function peeked(chunks: AsyncIterable<Buffer>): Promise<{ first: Buffer; chunks: AsyncIterable<Buffer> } | undefined> {
  const it = chunks[Symbol.asyncIterator]();
  let next = await it.next();
  while (!next.done && next.value.length === 0) next = await it.next();
  if (next.done) return undefined;
  const first = next.value;
  async function* all(): AsyncGenerator<Buffer> {
    try {
      yield first;
      for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
    } finally {
      // A consumer that stops early (bad input) closes the stream under it: the file, or stdin.
      await it.return?.();
    }
  }
  return { first, chunks: all() };
}
