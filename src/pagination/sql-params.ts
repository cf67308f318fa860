import type { SqlParam } from '../db/store.js';

/**
 * The parameters of one statement, and the placeholders that refer to them, typed where they
 * are used: `params.id(hex)` is `decode($3, 'hex')`, `params.bigint(n)` is `$4::bigint`. Equal
 * values of one type share a placeholder, so a statement that names the team five times passes it
 * once. No placeholder is ever numbered by hand.
 */
export class SqlParams {
  readonly values: SqlParam[] = [];
  private readonly seen = new Map<string, string>();

  private ref(key: string, value: SqlParam, render: (n: number) => string): string {
    let sql = this.seen.get(key);
    if (sql === undefined) {
      this.values.push(value);
      sql = render(this.values.length);
      this.seen.set(key, sql);
    }
    return sql;
  }

  /** An id given as lowercase hex, as bytea. */
  id(hex: string): string {
    return this.ref(`id:${hex}`, hex, (n) => `decode($${n}, 'hex')`);
  }

  bigint(v: bigint | number): string {
    return this.ref(`bigint:${v}`, String(v), (n) => `$${n}::bigint`);
  }

  text(v: string): string {
    return this.ref(`text:${v}`, v, (n) => `$${n}::text`);
  }
}
