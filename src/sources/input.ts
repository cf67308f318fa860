import { createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';

/** A finished input's bytes, with how far reading has come. */
export interface ByteInput {
  chunks: AsyncIterable<Buffer>;
  /** Bytes read so far, for progress. */
  bytesRead(): number;
  /** Size of the input when known (a regular file). */
  totalBytes: number | undefined;
}

/**
 * Streams a file, or stdin for "-", in chunks of up to 1 MiB: memory stays flat however big the
 * input. Nothing is opened until iteration starts, so no byte is read before anyone listens.
 */
export function readInput(path: string): ByteInput {
  const totalBytes = path === '-' ? undefined : statSync(path).size;
  let bytes = 0;
  async function* chunks(): AsyncGenerator<Buffer> {
    const stream: Readable = path === '-' ? process.stdin : createReadStream(path, { highWaterMark: 1 << 20 });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      yield chunk;
    }
  }
  return { chunks: chunks(), bytesRead: () => bytes, totalBytes };
}
