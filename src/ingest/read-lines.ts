import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

export interface LineSource {
  lines: AsyncIterable<string>;
  /** Bytes read so far, for progress. */
  bytesRead(): number;
  /** Size of the input when known (a regular file). */
  totalBytes: number | undefined;
}

/**
 * Streams the lines of a file, or of stdin for "-": memory stays flat however big the input.
 * Nothing is opened until iteration starts, so no line is read before anyone listens.
 */
export function readLines(path: string): LineSource {
  const totalBytes = path === '-' ? undefined : statSync(path).size;
  let bytes = 0;
  async function* lines(): AsyncGenerator<string> {
    const stream: Readable = path === '-' ? process.stdin : createReadStream(path, { highWaterMark: 1 << 20 });
    stream.on('data', (chunk: Buffer | string) => {
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    });
    const rl = createInterface({ input: stream, crlfDelay: Infinity });
    try {
      yield* rl;
    } finally {
      rl.close();
      if (path !== '-') stream.destroy();
    }
  }
  return { lines: lines(), bytesRead: () => bytes, totalBytes };
}
