import { createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { lineTooLong, MAX_LINE_BYTES } from './decode.js';

export interface LineSource {
  lines: AsyncIterable<string>;
  /** Bytes read so far, for progress. */
  bytesRead(): number;
  /** Size of the input when known (a regular file). */
  totalBytes: number | undefined;
}

/** A line's text without its "\n" (at `end`) and a "\r" before it. */
function lineText(buf: Buffer, start: number, end: number): string {
  return buf.toString('utf8', start, end > start && buf[end - 1] === 13 ? end - 1 : end);
}

/**
 * Streams the lines of a file, or of stdin for "-": memory stays flat however big the input.
 * Nothing is opened until iteration starts, so no line is read before anyone listens.
 *
 * Lines end at "\n" (a "\r" before it is dropped). The chunks are split as bytes and each line
 * decoded once: node:readline took about a tenth of the ingest's CPU doing the same. A line
 * longer than MAX_LINE_BYTES is an IngestInputError.
 */
export function readLines(path: string): LineSource {
  const totalBytes = path === '-' ? undefined : statSync(path).size;
  let bytes = 0;
  async function* lines(): AsyncGenerator<string> {
    const stream: Readable = path === '-' ? process.stdin : createReadStream(path, { highWaterMark: 1 << 20 });
    let lineNo = 0;
    // The start of a line that earlier chunks cut, joined once its newline arrives (a "\n" byte
    // never occurs inside a multi-byte UTF-8 character, so splitting bytes is safe).
    let cut: Buffer[] = [];
    let cutBytes = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer | string>) {
        const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        bytes += buf.length;
        let start = 0;
        let nl = buf.indexOf(10);
        if (cutBytes > 0 && nl !== -1) {
          if (cutBytes + nl > MAX_LINE_BYTES) throw lineTooLong(lineNo + 1);
          const line = Buffer.concat([...cut, buf.subarray(0, nl)]);
          lineNo++;
          yield lineText(line, 0, line.length);
          cut = [];
          cutBytes = 0;
          start = nl + 1;
          nl = buf.indexOf(10, start);
        }
        for (; nl !== -1; nl = buf.indexOf(10, start)) {
          lineNo++;
          yield lineText(buf, start, nl);
          start = nl + 1;
        }
        if (start < buf.length) {
          cut.push(buf.subarray(start));
          cutBytes += buf.length - start;
          if (cutBytes > MAX_LINE_BYTES) throw lineTooLong(lineNo + 1);
        }
      }
      if (cutBytes > 0) {
        const line = Buffer.concat(cut);
        yield lineText(line, 0, line.length);
      }
    } finally {
      if (path !== '-') stream.destroy();
    }
  }
  return { lines: lines(), bytesRead: () => bytes, totalBytes };
}
