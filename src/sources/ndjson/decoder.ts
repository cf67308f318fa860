import { inOneBatch, type DecodedEvent } from '../events.js';
import { decodeLine } from './decode-line.js';
import { LineSplitter } from './lines.js';

/**
 * NDJSON bytes → decoded events, in input order, however the bytes are cut into chunks. Lines
 * are decoded as their events are taken, so the events before a bad line are all handed out
 * before its InputError is thrown. Blank lines are counted but hold no events.
 */
export class NdjsonDecoder {
  private readonly lines = new LineSplitter();

  /** `file`: named in the events' positions. */
  constructor(private readonly file?: string) {}

  /** The events of the lines `chunk` completes. Take them all before the next push. */
  *push(chunk: Buffer): Generator<DecodedEvent> {
    for (const text of this.lines.push(chunk)) yield* this.decode(text);
  }

  /** The end of a finished input: the events of a last line without its newline. */
  *end(): Generator<DecodedEvent> {
    const text = this.lines.end();
    if (text !== undefined) yield* this.decode(text);
  }

  private decode(text: string): DecodedEvent[] {
    return text.trim() === '' ? [] : decodeLine(text, this.lines.line, this.file);
  }
}

/** The events of a finished NDJSON input (a file, stdin, the demo generator's text), in order. */
export async function* ndjsonBatches(
  chunks: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
): AsyncGenerator<readonly DecodedEvent[]> {
  const decoder = new NdjsonDecoder();
  for await (const chunk of chunks) yield* inOneBatch(decoder.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  yield* inOneBatch(decoder.end());
}
