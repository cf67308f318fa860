import { invalidPagination } from '../contract/errors.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../contract/pagination.js';
import { CursorError } from './cursor.js';

/**
 * The page a request asks for (contract §4). Shared by every operation: each supplies its sort
 * key, its cursor codec and its SQL; this module owns the arithmetic of directions and limits.
 */
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

function checkLimit(n: number | undefined): void {
  if (n !== undefined && (n < 1 || n > MAX_PAGE_SIZE)) throw invalidPagination(`pagination limit must be in range 0-${MAX_PAGE_SIZE}`);
}

/**
 * Validates pagination and decodes the cursor in use, throwing the contract's "invalid
 * pagination" errors in the reference's order: both cursors, then the cursor, then the limit.
 * Precedence: `first` makes a forward page (`last` and `before` ignored), else `last` a backward
 * one (`after` ignored), else the cursor given. A field that precedence ignores is not validated
 * (contract §7: `first=2&last=0` is a forward page of 2 rows).
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
  const given = forward ? p.first : p.last;
  checkLimit(given);
  return { direction: forward ? 'forward' : 'backward', limit: given ?? DEFAULT_PAGE_SIZE, cursor, newestFirst: p.newestFirst ?? true };
}

/**
 * How to fetch a page over a sort key in SQL. The display order is the key ascending, or
 * descending with newestFirst. Fetch `limit + 1` rows in `fetchOrder` strictly beyond the cursor
 * (`beyond`); `boundary` selects the rows on the other side of the cursor, including it, whose
 * existence answers the page's other has-more flag.
 */
export interface SqlPlan {
  fetchOrder: 'ASC' | 'DESC';
  /** The order walking outwards from the cursor on the other side. */
  probeOrder: 'ASC' | 'DESC';
  beyond: '>' | '<';
  boundary: '<=' | '>=';
  fetchLimit: number;
}

export function sqlPlan(req: PageRequest<unknown>): SqlPlan {
  // Walking towards larger keys: forward in ascending display, or backward in descending display.
  const ascending = (req.direction === 'forward') !== req.newestFirst;
  return ascending
    ? { fetchOrder: 'ASC', probeOrder: 'DESC', beyond: '>', boundary: '<=', fetchLimit: req.limit + 1 }
    : { fetchOrder: 'DESC', probeOrder: 'ASC', beyond: '<', boundary: '>=', fetchLimit: req.limit + 1 };
}

/** A row comparison over a composite key, e.g. `(created_at, id) > ($1, $2)`. */
export function keyCompare(columns: readonly string[], op: string, values: readonly string[]): string {
  return `(${columns.join(', ')}) ${op} (${values.join(', ')})`;
}
