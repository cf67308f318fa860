import type { Edge, PageInfo } from '../contract/message.js';

/**
 * What an operation answers, whatever door asked: a page of a list (contract §4) or one message,
 * with the chain head it was read at. The store renders the rows' JSON (proto3 JSON as the
 * gateway writes it: stored per row, or made by the page statement), so a page holds that text,
 * and the REST door sends it nearly as it is (responseJson). Other doors read the values
 * (edges(), value()), parsed from the same text: one rendering, one set of rules.
 */

/** The chain head an answer was read at: its X-Block-Height and X-Block-Timestamp. */
export interface ChainHead {
  height: string;
  time: string;
}

/** A page's edges kept by the row cache (RowCache.get), in display order. */
export interface KeptEdges {
  /** Each edge's text. */
  readonly each: readonly Buffer[];
  /** The same bytes in runs of adjacent edges (their commas inside), to be joined by commas: copied a run at a time. */
  readonly runs: readonly Buffer[];
}

/** Edges given one text each: each its own run. */
export const keptEdges = (each: readonly Buffer[]): KeptEdges => ({ each, runs: each });

/**
 * A page's edges as JSON text (`{"node":…,"cursor":"…"}` each), in display order: joined by
 * commas as one string (from the store), or kept by the row cache.
 */
export type EdgesText = string | KeptEdges;

/**
 * What joins two edges. A node holds it only inside a JSON string, where its quotes are escaped
 * (no message has a list of objects whose first field is `node`), so it finds edge boundaries.
 */
export const EDGE_SEPARATOR = ',{"node":';

const CURSOR_KEY = '"cursor":"';
const QUOTE = 0x22;
const COMMA = 0x2c;

/** The cursor of the edge that ends before `end` (edges end with `"cursor":"…"}`). */
function cursorBefore(edges: string, end: number): string {
  const at = edges.lastIndexOf(CURSOR_KEY, end - 1) + CURSOR_KEY.length;
  return edges.slice(at, end - 2);
}

/** The cursor of one edge's text: base64, so the quote that opens it is the last before the closing `"}`. */
function cursorOf(edge: Buffer): string {
  return edge.toString('latin1', edge.lastIndexOf(QUOTE, edge.length - 3) + 1, edge.length - 2);
}

/** The first and last cursors of the edges, '' when there are none. */
function endCursors(edges: EdgesText): [string, string] {
  if (typeof edges !== 'string') {
    const { each } = edges;
    return each.length === 0 ? ['', ''] : [cursorOf(each[0]!), cursorOf(each[each.length - 1]!)];
  }
  if (edges.length === 0) return ['', ''];
  const firstEnd = edges.indexOf(EDGE_SEPARATOR);
  return [cursorBefore(edges, firstEnd < 0 ? edges.length : firstEnd), cursorBefore(edges, edges.length)];
}

export class PageResult<Node = unknown> {
  readonly pageInfo: PageInfo;
  private parsed: Edge<Node>[] | undefined;

  constructor(
    /** The response message's field that holds the connection, e.g. referralSets. */
    readonly key: string,
    readonly edgesText: EdgesText,
    hasNextPage: boolean,
    hasPreviousPage: boolean,
    readonly head: ChainHead | null,
  ) {
    const [startCursor, endCursor] = endCursors(edgesText);
    this.pageInfo = { hasNextPage, hasPreviousPage, startCursor, endCursor };
  }

  /** The edges as values (the nodes' proto3 JSON), parsed on first use. */
  edges(): Edge<Node>[] {
    if (this.parsed === undefined) {
      const text = typeof this.edgesText === 'string' ? this.edgesText : this.edgesText.each.join(',');
      this.parsed = JSON.parse(`[${text}]`) as Edge<Node>[];
    }
    return this.parsed;
  }

  /**
   * The response message as JSON, `{"<key>":{"edges":[…],"pageInfo":{…}}}`, written straight
   * into one Buffer (from `alloc`): joining strings first would copy the whole page once more.
   */
  responseJson(alloc: (size: number) => Buffer = Buffer.allocUnsafe): Buffer {
    const { hasNextPage, hasPreviousPage, startCursor, endCursor } = this.pageInfo;
    // The head and tail are ASCII (a field name, flags and base64 cursors): a character a byte.
    const head = `{"${this.key}":{"edges":[`;
    const tail = `],"pageInfo":{"hasNextPage":${hasNextPage},"hasPreviousPage":${hasPreviousPage},"startCursor":"${startCursor}","endCursor":"${endCursor}"}}}`;
    const edges = this.edgesText;
    if (typeof edges === 'string') {
      const body = alloc(head.length + Buffer.byteLength(edges) + tail.length);
      let at = body.write(head, 0, 'latin1');
      at += body.write(edges, at);
      body.write(tail, at, 'latin1');
      return body;
    }
    const { runs } = edges;
    let size = head.length + tail.length + Math.max(0, runs.length - 1);
    for (const run of runs) size += run.length;
    const body = alloc(size);
    let at = body.write(head, 0, 'latin1');
    for (let i = 0; i < runs.length; i++) {
      if (i > 0) body[at++] = COMMA;
      body.set(runs[i]!, at);
      at += runs[i]!.length;
    }
    body.write(tail, at, 'latin1');
    return body;
  }
}

/** What an operation's answer weighs: its text's length (a page's edges, a message). */
export function textLengthOf(result: unknown): number {
  if (result instanceof ItemResult) return result.json.length;
  if (!(result instanceof PageResult)) return 0;
  const edges = result.edgesText;
  if (typeof edges === 'string') return edges.length;
  let length = 0;
  for (const run of edges.runs) length += run.length;
  return length;
}

/** One message (not a page), as the store rendered it. */
export class ItemResult<Message = unknown> {
  constructor(
    readonly json: string,
    readonly head: ChainHead | null,
  ) {}

  value(): Message {
    return JSON.parse(this.json) as Message;
  }

  responseJson(): Buffer {
    return Buffer.from(this.json);
  }
}
