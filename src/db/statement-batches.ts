import { StoreTimeoutError, StoreUnavailableError, type SqlParam, type Until } from './store.js';

/** Runs one statement (with its parameters) on a connection of the store, given up at `until`. */
export type RunStatement = <Row extends object>(sql: string, params: readonly SqlParam[], until: Until) => Promise<Row[]>;

/** The most statements of one text run as one. */
const MAX_BATCH = 64;

/** Batches of one statement text in flight at once on a PostgreSQL server (`--statement-slots`), unless set. */
export const DEFAULT_STATEMENT_SLOTS = 2;

/** How a store batches queryRow's statements: slots (0: each alone; the embedded store has its own), and who is told of each batch. */
export interface Batching {
  slots?: number | undefined;
  onBatch?: (members: number) => void;
}

/** When a text's statements are cheap, and how long a batch may take (see StatementBatches). */
export interface BatchTuning {
  /** Statements costing less than this per member (a moving average) run one batch at a time. */
  cheapMemberMs: number;
  /** A batch takes about this long at most, by its text's cost per member: the rest wait for the next. */
  batchBudgetMs: number;
  /**
   * Statements of a cheap text waiting that start another batch beside the one running (see
   * mayStart); Infinity: never. Fewer cost more than they save (8 did not help referee lookups at
   * c=32 on mainnet; 16 gave 0% to +11%, by round).
   */
  secondBatchQuorum: number;
}

const DEFAULT_TUNING: BatchTuning = { cheapMemberMs: 0.5, batchBudgetMs: 20, secondBatchQuorum: 16 };

/**
 * The embedded store's tuning: its thread runs one statement at a time, so a second batch of a
 * cheap text only splits the first (50-row pages at c=32 on medium did 13% to 21% less with it).
 */
export const ONE_THREAD_TUNING: BatchTuning = { ...DEFAULT_TUNING, secondBatchQuorum: Infinity };

/** Texts whose cost is remembered while none of their statements runs. */
const MAX_TEXTS = 1000;

/** The column a batched statement numbers its members by (1-based, in the batch's order). */
const MEMBER = 'epochview_batch_member';

interface Waiter {
  params: readonly SqlParam[];
  until: Until;
  resolve(row: object | undefined): void;
  reject(err: unknown): void;
}

/** A statement text's state: its batches in flight, its statements waiting, what a member costs. */
interface Text {
  running: number;
  waiting: Waiter[];
  /** Unknown until its first statement ends (cheap until then). */
  memberMs: number | undefined;
}

/**
 * One-row statements of one text (an operation's page statement of one shape) run together
 * while others of that text are in flight: at most `slots` batches of a text run at once, and
 * statements arriving meanwhile wait; when a batch ends, all that wait (up to MAX_BATCH) run as
 * one statement, each member's parameters a row of arrays unnested beside it:
 *
 *   SELECT b.member::int AS member, s.* FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS b(p1, p2, member)
 *     CROSS JOIN LATERAL (<the text, $n read as b.pn>) AS s
 *
 * (The member number is an int, not ORDINALITY's bigint: the embedded store runs prepared only
 * statements whose columns it reads in place (pglite-wire.ts), and a bigint sent every batch
 * through PGlite's query(), parsed again each time: PGlite's 50-row pages and lookups at c=32
 * did ×1.18 to ×1.49 once it ran them prepared.)
 *
 * Under load, a small page's or a lookup's cost is mostly per statement: protocol messages and
 * socket writes in the process, a backend's wakeup, snapshot and executor start in the server. A
 * batch pays them once for its members (measured on the 2-core machine: a referee lookup at c=32
 * went from 6,300 to 11,000 req/s). A text whose statements are cheap runs one batch at a time,
 * which makes the batches largest; a costly one (a big team's page) up to `slots` at once, so
 * that the server's cores share its work, in batches of bounded time (BatchTuning). A statement
 * arriving when its text has a free slot runs at once: at low load nothing waits for a batch to
 * fill. The members of a batch read one snapshot, so each answer is still the store's at one head.
 *
 * Parameters travel as text (the texts cast them where they use them; see SqlParams); texts
 * with array parameters or none run alone.
 *
 * Deadlines (Until): a statement whose caller has stopped waiting when its batch starts is left
 * out of it; a batch is given up at the latest deadline of its members (none if one has none), so
 * that it stops only once nobody waits for it. A batch that fails on SQL runs its members one by one,
 * so that each gets its own answer or its own error; one that finds the server away or runs past
 * the statement timeout fails them all with that error.
 */
export class StatementBatches {
  private readonly texts = new Map<string, Text>();
  private readonly batchTexts = new Map<string, string>();

  constructor(
    private readonly run: RunStatement,
    private readonly slots: number,
    /** Told of each batch of two or more, with its member count. */
    private readonly onBatch: (members: number) => void = () => {},
    private readonly tuning: BatchTuning = DEFAULT_TUNING,
    /** Milliseconds, for a member's cost (a test's own clock makes costs exact). */
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The first row of a statement (undefined if it answers none). */
  queryRow<Row extends object>(sql: string, params: readonly SqlParam[], until?: Until): Promise<Row | undefined> {
    if (params.length === 0 || params.some((p) => Array.isArray(p))) return this.run<Row>(sql, params, until).then((rows) => rows[0]);
    const text = this.textOf(sql);
    return new Promise<object | undefined>((resolve, reject) => {
      text.waiting.push({ params, until, resolve, reject });
      if (this.mayStart(text)) this.start(sql, text);
    }) as Promise<Row | undefined>;
  }

  private textOf(sql: string): Text {
    let text = this.texts.get(sql);
    if (!text) {
      text = { running: 0, waiting: [], memberMs: undefined };
      this.texts.set(sql, text);
    }
    return text;
  }

  private slotsOf(text: Text): number {
    return (text.memberMs ?? 0) < this.tuning.cheapMemberMs ? 1 : this.slots;
  }

  /**
   * Whether another batch of the text may start now: while it has a free slot, or, for a text
   * known to be cheap, when a batch's worth waits (BatchTuning.secondBatchQuorum) and the server has a
   * slot free: the process then answers one batch while the server runs the next.
   */
  private mayStart(text: Text): boolean {
    if (text.running < this.slotsOf(text)) return true;
    const knownCheap = text.memberMs !== undefined && text.memberMs < this.tuning.cheapMemberMs;
    return knownCheap && text.running < this.slots && text.waiting.length >= this.tuning.secondBatchQuorum;
  }

  /** The text's waiting statements run, as one; when they are done, those waiting meanwhile. */
  private start(sql: string, text: Text): void {
    this.dropLate(text);
    if (text.waiting.length === 0) return;
    const members = text.waiting.splice(0, Math.max(1, Math.min(MAX_BATCH, Math.floor(this.tuning.batchBudgetMs / (text.memberMs ?? 0)))));
    text.running++;
    const started = this.now();
    void this.runBatch(sql, members).finally(() => {
      const memberMs = (this.now() - started) / members.length;
      text.memberMs = text.memberMs === undefined ? memberMs : text.memberMs + (memberMs - text.memberMs) / 8;
      text.running--;
      while (text.waiting.length > 0 && this.mayStart(text)) this.start(sql, text);
      // Kept while idle for its cost, unless the texts are many (not the operations' few shapes).
      if (text.running === 0 && this.texts.size > MAX_TEXTS) this.texts.delete(sql);
    });
  }

  /** Rejects the waiting statements whose callers have stopped waiting (their doors answered already). */
  private dropLate(text: Text): void {
    const now = this.now();
    let kept = 0;
    for (const w of text.waiting) {
      if (w.until !== undefined && w.until <= now) w.reject(new StoreTimeoutError('the deadline passed before the statement ran'));
      else text.waiting[kept++] = w;
    }
    text.waiting.length = kept;
  }

  private async runBatch(sql: string, members: Waiter[]): Promise<void> {
    const alone = (m: Waiter) =>
      this.run(sql, m.params, m.until).then(
        (rows) => m.resolve(rows[0]),
        (err: unknown) => m.reject(err),
      );
    if (members.length === 1) return alone(members[0]!);
    this.onBatch(members.length);
    const count = members[0]!.params.length;
    const columns = Array.from({ length: count }, (_, i) => members.map((m) => textOf(m.params[i] ?? null)));
    let rows: Record<string, unknown>[];
    try {
      rows = await this.run<Record<string, unknown>>(this.batchText(sql, count), columns, latest(members));
    } catch (err) {
      // A server that is away, or a batch past the statement timeout, would fail them alone too.
      if (err instanceof StoreUnavailableError || err instanceof StoreTimeoutError) for (const m of members) m.reject(err);
      else await Promise.all(members.map(alone));
      return;
    }
    const answered: (object | undefined)[] = new Array(members.length);
    for (const row of rows) {
      const i = (row[MEMBER] as number) - 1;
      delete row[MEMBER];
      answered[i] ??= row;
    }
    for (const [i, m] of members.entries()) m.resolve(answered[i]);
  }

  /** The batched form of a text with `count` parameters. */
  private batchText(sql: string, count: number): string {
    let text = this.batchTexts.get(sql);
    if (text === undefined) {
      const names = Array.from({ length: count }, (_, i) => `p${i + 1}`);
      const arrays = names.map((_, i) => `$${i + 1}::text[]`);
      const inner = sql.replace(/\$(\d+)/g, (_, n: string) => `b.p${n}`);
      text = `SELECT b.${MEMBER}::int AS ${MEMBER}, s.* FROM unnest(${arrays.join(', ')}) WITH ORDINALITY AS b(${[...names, MEMBER].join(', ')})
        CROSS JOIN LATERAL (${inner}) AS s`;
      if (this.batchTexts.size < MAX_TEXTS) this.batchTexts.set(sql, text);
    }
    return text;
  }
}

/** The latest deadline of a batch's members: none if one of them has none. */
function latest(members: readonly Waiter[]): Until {
  let until = -Infinity;
  for (const m of members) {
    if (m.until === undefined) return undefined;
    until = Math.max(until, m.until);
  }
  return until;
}

function textOf(value: SqlParam): string | null {
  return value === null ? null : String(value);
}
