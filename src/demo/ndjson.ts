// Writes BusEvent envelopes as NDJSON lines, block by block, into text chunks.

import { PAYLOAD_TYPES } from '../sources/events.js';
import { OTHER_TYPES, type OtherKinds } from './other-kinds.js';

/** Every payload key the demo writes: ours and the other kinds. */
const TYPES: Readonly<Record<string, string>> = { ...PAYLOAD_TYPES, ...OTHER_TYPES };

/**
 * Accumulates lines until a chunk is big enough to hand out. One event per line:
 * `{"id":"<height>-<seq>","block":"<HASH>","type":"...","version":1,"chainId":"...",
 * ["txHash":"<HASH>",]"<payloadKey>":{...}}`.
 */
export class NdjsonBlockWriter {
  /** Events (= lines) written so far, including those not yet taken. */
  events = 0;
  /** Events in chunks already taken. */
  takenEvents = 0;

  private parts: string[] = [];
  private size = 0;
  private pendingEvents = 0;

  private inBlock = false;
  private height = '';
  private seq = 0;
  /** `{"id":"<height>-` for the open block. */
  private idPrefix = '';
  /** `","block":"<hash>","type":"` for the open block. */
  private blockPart = '';
  /** Payload key → `BUS_EVENT_TYPE_...","version":1,"chainId":"...",` */
  private readonly typeHeads: Record<string, string>;
  /** Payload key → everything between the sequence number and the payload, for the open block. */
  private heads: Record<string, string> = {};
  private txHeads: Record<string, string> = {};
  private blockTime = '';
  private blockHash = '';

  constructor(
    chainId: string,
    private readonly chunkChars: number,
    private readonly others: OtherKinds,
  ) {
    const heads: Record<string, string> = {};
    for (const [key, type] of Object.entries(TYPES)) heads[key] = `${type}","version":1,"chainId":${JSON.stringify(chainId)},`;
    this.typeHeads = heads;
  }

  /** Opens a block: beginBlock then a timeUpdate at the block time. */
  beginBlock(height: number, timestamp: string, hash: string): void {
    if (this.inBlock) throw new Error('beginBlock inside an open block');
    this.inBlock = true;
    this.blockTime = timestamp;
    this.blockHash = hash;
    this.height = String(height);
    this.seq = 0;
    this.idPrefix = flat(`{"id":"${this.height}-`);
    this.blockPart = `","block":"${hash}","type":"`;
    this.heads = {};
    this.txHeads = {};
    this.event('beginBlock', `{"height":"${this.height}","timestamp":"${timestamp}","hash":"${hash}"}`);
    this.event('timeUpdate', `{"timestamp":"${timestamp}"}`);
  }

  /** Closes the block: the events of other kinds that go with it (see OtherKinds), then endBlock. */
  endBlock(): void {
    for (const [key, payload] of this.others.forBlock(this.seq - 2, this.blockTime)) this.event(key, payload, this.blockHash);
    this.event('endBlock', `{"height":"${this.height}"}`);
    this.inBlock = false;
  }

  /** Events so far in the open block, markers included. */
  get blockEvents(): number {
    return this.seq;
  }

  /** Appends one event of the open block; `payload` is the payload's JSON text. */
  event(key: string, payload: string, txHash?: string): void {
    if (!this.inBlock) throw new Error(`${key} outside a block`);
    let line: string;
    if (txHash === undefined) {
      const head = this.heads[key] ?? flat(`${this.blockPart}${this.typeHeads[key]}"${key}":`);
      this.heads[key] = head;
      line = `${this.idPrefix}${this.seq}${head}${payload}}\n`;
    } else {
      const head = this.txHeads[key] ?? flat(`${this.blockPart}${this.typeHeads[key]}"txHash":"`);
      this.txHeads[key] = head;
      line = `${this.idPrefix}${this.seq}${head}${txHash}","${key}":${payload}}\n`;
    }
    this.seq++;
    this.parts.push(line);
    this.size += line.length;
    this.pendingEvents++;
    this.events++;
  }

  /** True when a chunk of at least `chunkChars` is waiting. */
  get ready(): boolean {
    return this.size >= this.chunkChars;
  }

  get pending(): boolean {
    return this.size > 0;
  }

  /** Hands out everything written since the last take (whole lines). */
  take(): string {
    const chunk = this.parts.join('');
    this.parts = [];
    this.size = 0;
    this.takenEvents += this.pendingEvents;
    this.pendingEvents = 0;
    return chunk;
  }
}

/**
 * The same (ASCII) text as one flat string. Strings built by concatenation are trees in V8;
 * a piece reused in every line of a block is cheaper to copy when flat.
 */
function flat(s: string): string {
  return Buffer.from(s, 'latin1').toString('latin1');
}
