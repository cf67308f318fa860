import { invalidPagination } from '../contract/errors.js';
import { JsonText } from '../contract/json.js';
import { CursorError } from './cursor.js';

/**
 * The page a request asks for, and the page it gets back (contract §4). Shared by every
 * operation: each supplies its sort key, its cursor codec and its SQL; this module owns the
 * arithmetic of directions, limits, boundaries and pageInfo.
 */
export const DEFAULT_PAGE_SIZE = 1000;
export const MAX_PAGE_SIZE = 5000;

export interface PaginationParams {
  first?: number | undefined;
  after?: string | undefined;
  last?: number | undefined;
  before?: string | undefined;
  newestFirst?: boolean | undefined;
}

export interface PageRequest<Position> {
  /** forward: the rows after the cursor in display order; backward: the rows before it. */
  direction: 'forward' | 'backward';
  limit: number;
  cursor: Position | null;
  newestFirst: boolean;
}

/**
 * Validates pagination and decodes the cursor in use (the reference's order: both cursors,
 * then the cursor, then the limits), throwing the contract's "invalid pagination" errors.
 */
export function pageRequest<Position>(p: PaginationParams, decode: (cursor: string) => Position): PageRequest<Position> {
  if (p.after !== undefined && p.before !== undefined) throw invalidPagination('cannot set both a before and after cursor');
  const forward = p.first !== undefined || (p.last === undefined && p.before === undefined);
  const which = forward ? 'after' : 'before';
  const raw = forward ? p.after : p.before;
  let cursor: Position | null = null;
  if (raw !== undefined) {
    try {
      cursor = decode(raw);
    } catch (err) {
      if (err instanceof CursorError) throw invalidPagination(`failed to decode ${which} cursor: ${err.message}`);
      throw err;
    }
  }
  for (const n of [p.first, p.last]) {
    if (n !== undefined && (n < 1 || n > MAX_PAGE_SIZE)) throw invalidPagination(`pagination limit must be in range 0-${MAX_PAGE_SIZE}`);
  }
  const limit = (forward ? p.first : p.last) ?? DEFAULT_PAGE_SIZE;
  return { direction: forward ? 'forward' : 'backward', limit, cursor, newestFirst: p.newestFirst ?? true };
}

/**
 * How to fetch a page over a sort key in SQL. The display order is the key ascending, or
 * descending with newestFirst. Fetch `limit + 1` rows in `fetchOrder` strictly beyond the cursor
 * (`beyond`); `boundary` selects the rows on the other side of the cursor, including it, whose
 * existence answers the page's other has-more flag.
 */
export interface SqlPlan {
  fetchOrder: 'ASC' | 'DESC';
  beyond: '>' | '<';
  boundary: '<=' | '>=';
  fetchLimit: number;
}

export function sqlPlan(req: PageRequest<unknown>): SqlPlan {
  // Walking towards larger keys: forward in ascending display, or backward in descending display.
  const ascending = (req.direction === 'forward') !== req.newestFirst;
  return ascending
    ? { fetchOrder: 'ASC', beyond: '>', boundary: '<=', fetchLimit: req.limit + 1 }
    : { fetchOrder: 'DESC', beyond: '<', boundary: '>=', fetchLimit: req.limit + 1 };
}

/**
 * Turns fetched rows (in fetch order, up to limit + 1) into the page in display order, as the
 * response body's JSON text `{"<key>":{"edges":[{"node":…,"cursor":…},…],"pageInfo":{…}}}`.
 * `otherSide` says whether any row lies on the other side of the cursor (false without one).
 *
 * The text is written directly from the rows: for a 1,000-row page that is most of the request's
 * work in the process, and this spares building a node object per row and walking it again in
 * JSON.stringify. `toEdge` gives a row's node as Go-style JSON text (see jsonString) and its
 * cursor (base64: nothing to escape).
 */
export function pageJson<Row>(
  key: string,
  req: PageRequest<unknown>,
  rows: Row[],
  otherSide: boolean,
  toEdge: (row: Row) => { node: string; cursor: string },
): JsonText {
  const more = rows.length > req.limit;
  const n = more ? req.limit : rows.length;
  const backward = req.direction === 'backward';
  let edges = '';
  let startCursor = '';
  let endCursor = '';
  for (let i = 0; i < n; i++) {
    const { node, cursor } = toEdge(rows[backward ? n - 1 - i : i]!);
    edges += `${i === 0 ? '' : ','}{"node":${node},"cursor":"${cursor}"}`;
    if (i === 0) startCursor = cursor;
    endCursor = cursor;
  }
  const [hasNextPage, hasPreviousPage] = backward ? [otherSide, more] : [more, otherSide];
  return new JsonText(
    `{"${key}":{"edges":[${edges}],"pageInfo":{"hasNextPage":${hasNextPage},"hasPreviousPage":${hasPreviousPage},` +
      `"startCursor":"${startCursor}","endCursor":"${endCursor}"}}}`,
  );
}

/** A row comparison over a composite key, e.g. `(created_at, id) > ($1, $2)`. */
export function keyCompare(columns: readonly string[], op: string, placeholders: readonly string[]): string {
  return `(${columns.join(', ')}) ${op} (${placeholders.join(', ')})`;
}
