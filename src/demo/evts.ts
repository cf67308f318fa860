// The demo chain as an event file: the NDJSON lines' events encoded with our schema.

import { encodeBusEvent, eventRecord } from '../sources/binary/encode-event.js';
import { OTHER_PAYLOADS } from './other-kinds.js';

/** The output formats of `epochview demo`. */
export const DEMO_FORMATS = ['ndjson', 'evts', 'evts.gz'] as const;
export type DemoFormat = (typeof DEMO_FORMATS)[number];

export function isDemoFormat(name: string): name is DemoFormat {
  return (DEMO_FORMATS as readonly string[]).includes(name);
}

/**
 * NDJSON text chunks (whole lines) → event-file chunks, record for record: what a core's
 * `[Broker.File]` would hold for the same events, sequence numbers from 1.
 */
export function* eventFileChunks(ndjson: Iterable<string>): Generator<Buffer> {
  let sequence = 0n;
  for (const text of ndjson) {
    const records: Buffer[] = [];
    for (const line of text.split('\n')) {
      if (line === '') continue;
      records.push(eventRecord(++sequence, encodeBusEvent(JSON.parse(line) as Record<string, unknown>, OTHER_PAYLOADS)));
    }
    yield Buffer.concat(records);
  }
}
