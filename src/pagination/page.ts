import { invalidPagination } from '../http/errors.js';
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

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string;
  endCursor: string;
}

export interface Edge<Node> {
  node: Node;
  cursor: string;
}

/**
 * Turns fetched rows (in fetch order, up to limit + 1) into a page in display order.
 * `otherSide` says whether any row lies on the other side of the cursor (false without one).
 */
export function assemblePage<Row, Node>(
  req: PageRequest<unknown>,
  rows: Row[],
  otherSide: boolean,
  toEdge: (row: Row) => Edge<Node>,
): { edges: Edge<Node>[]; pageInfo: PageInfo } {
  const more = rows.length > req.limit;
  const kept = more ? rows.slice(0, req.limit) : rows;
  if (req.direction === 'backward') kept.reverse();
  const edges = kept.map(toEdge);
  const [hasNextPage, hasPreviousPage] = req.direction === 'forward' ? [more, otherSide] : [otherSide, more];
  return {
    edges,
    pageInfo: {
      hasNextPage,
      hasPreviousPage,
      startCursor: edges[0]?.cursor ?? '',
      endCursor: edges[edges.length - 1]?.cursor ?? '',
    },
  };
}

/** A row comparison over a composite key, e.g. `(created_at, id) > ($1, $2)`. */
export function keyCompare(columns: readonly string[], op: string, placeholders: readonly string[]): string {
  return `(${columns.join(', ')}) ${op} (${placeholders.join(', ')})`;
}
