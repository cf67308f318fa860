import { InputError } from '../input-error.js';

/**
 * No event line is anywhere near this long. Input without newlines (a binary file, one huge
 * JSON array) stops here with a clear error instead of filling memory.
 */
const MAX_LINE_BYTES = 128 * 2 ** 20;

/**
 * Splits bytes into numbered lines however the input is cut into chunks: the one line reader of
 * every NDJSON input, whether read to its end (a file, stdin) or followed as it grows.
 *
 * Lines end at "\n" (a "\r" before it is dropped). The chunks are split as bytes and each line
 * decoded once: node:readline took about a tenth of the ingest's CPU doing the same. A "\n" byte
 * never occurs inside a multi-byte UTF-8 character, so splitting bytes is safe. A line longer
 * than MAX_LINE_BYTES is an InputError, thrown once the lines before it have been taken.
 */
export class LineSplitter {
  /** The number of the last line handed out; lines are numbered from 1. */
  line = 0;
  /** The start of a line that earlier chunks cut, joined once its newline arrives. */
  private cut: Buffer[] = [];
  private cutBytes = 0;

  /** The lines that `chunk` completes, in order (lazily: the caller takes them one by one). */
  *push(chunk: Buffer): Generator<string> {
    let start = 0;
    let nl = chunk.indexOf(10);
    if (this.cutBytes > 0 && nl !== -1) {
      if (this.cutBytes + nl > MAX_LINE_BYTES) throw this.tooLong();
      const joined = Buffer.concat([...this.cut, chunk.subarray(0, nl)]);
      this.cut = [];
      this.cutBytes = 0;
      this.line++;
      yield lineText(joined, 0, joined.length);
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    for (; nl !== -1; nl = chunk.indexOf(10, start)) {
      this.line++;
      yield lineText(chunk, start, nl);
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.cut.push(chunk.subarray(start));
      this.cutBytes += chunk.length - start;
      if (this.cutBytes > MAX_LINE_BYTES) throw this.tooLong();
    }
  }

  /**
   * The end of a finished input: a last line without its newline is a line all the same. (A file
   * followed as it grows never ends: its last line waits for its newline.)
   */
  end(): string | undefined {
    if (this.cutBytes === 0) return undefined;
    const last = Buffer.concat(this.cut);
    this.cut = [];
    this.cutBytes = 0;
    this.line++;
    return lineText(last, 0, last.length);
  }

  private tooLong(): InputError {
    return new InputError(
      { line: this.line + 1 },
      undefined,
      undefined,
      `no newline within ${MAX_LINE_BYTES / 2 ** 20} MiB: not an event line`,
    );
  }
}

/** A line's text without its "\n" (at `end`) and a "\r" before it. */
function lineText(buf: Buffer, start: number, end: number): string {
  return buf.toString('utf8', start, end > start && buf[end - 1] === 13 ? end - 1 : end);
}
