import { PGlite, type Transaction } from '@electric-sql/pglite';
import { mkdirSync } from 'node:fs';
import { inspect } from 'node:util';
import { parentPort } from 'node:worker_threads';
import { WireStatements } from './pglite-wire.js';

/**
 * The embedded store's own thread: PGlite (PostgreSQL compiled to WebAssembly) runs here, so its
 * SQL never blocks the event loop that answers HTTP. PgliteStore (pglite-store.ts) talks to it
 * with the messages below; every call has an id, and its reply carries the same id.
 *
 * A transaction cannot cross the thread boundary as a callback, so it is a session: `begin`
 * opens one (PGlite's transaction, which holds its one connection until it ends, so no other
 * statement runs in between) and replies with its id; `query` messages naming that id run in
 * it; `end` commits (or rolls back) and replies once PGlite has done so.
 *
 * The thread outlives a store: `open` starts PGlite on a folder (replying `opened` or `failed`),
 * the calls run on it until `close`, and then another `open` may follow. A process that opens
 * stores one after another (the tests do, hundreds of times) reuses the thread (PgliteStore keeps
 * it): PGlite then starts in about a quarter of the CPU time it takes in a new thread, whose
 * code V8 has still to load and compile.
 */
export type ThreadCall =
  | { op: 'query'; sql: string; params: readonly unknown[]; tx?: number }
  | { op: 'exec'; sql: string }
  | { op: 'begin' }
  | { op: 'end'; tx: number; commit: boolean }
  | { op: 'listen'; channel: string; listener: number }
  | { op: 'unlisten'; listener: number }
  | { op: 'close' };

/** An error as it crosses the boundary: its message, name and PostgreSQL's fields (code, detail, …). */
export interface ThreadError {
  message: string;
  name: string;
  fields: Record<string, string | number | boolean>;
}

export type ThreadMessage =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: ThreadError }
  | { notify: number; payload: string }
  | { opened: true }
  | { failed: ThreadError };

/** What the thread is sent: a store to open (a folder, or 'memory://'), or a call on the open one. */
export type ThreadRequest = { open: string } | { id: number; call: ThreadCall };

/**
 * PGlite's WebAssembly also throws what is not an Error: Emscripten's ExitStatus (`name`,
 * `message`, `status`) when its PostgreSQL exits. Its own message and fields are kept, so the log
 * says what happened rather than `[object Object]`; anything else is shown as inspect() shows it.
 */
export function toThreadError(err: unknown): ThreadError {
  const e = (typeof err === 'object' && err !== null ? err : {}) as Record<string, unknown>;
  const fields: ThreadError['fields'] = {};
  for (const [k, v] of Object.entries(e))
    if (['string', 'number', 'boolean'].includes(typeof v)) fields[k] = v as string | number | boolean;
  const message = err instanceof Error || typeof e.message === 'string' ? String(e.message) : typeof err === 'string' ? err : inspect(err);
  return { message, name: typeof e.name === 'string' ? e.name : 'Error', fields };
}

/** Thrown inside PGlite's transaction callback to roll it back. */
const ROLLBACK = Symbol('rollback');

interface OpenTx {
  tx: Transaction;
  end(commit: boolean): Promise<void>;
}

type Perform = (call: ThreadCall) => Promise<unknown>;

/** PGlite started on `dataDir`, and what performs the calls on it. */
async function open(port: NonNullable<typeof parentPort>, dataDir: string): Promise<Perform> {
  if (dataDir !== 'memory://') mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir === 'memory://' ? undefined : dataDir);
  const txs = new Map<number, OpenTx>();
  const listeners = new Map<number, { channel: string; stop: () => Promise<void> }>();
  const notify = (listener: number, payload: string) => port.postMessage({ notify: listener, payload } satisfies ThreadMessage);
  // PGlite hands its listeners what its own calls hear; the statements here hear the rest.
  const wire = new WireStatements(db, (channel, payload) => {
    for (const [listener, l] of listeners) if (l.channel === channel) notify(listener, payload);
  });
  let nextTx = 1;

  const begin = (): Promise<number> =>
    new Promise((opened, failed) => {
      const id = nextTx++;
      let decide!: (commit: boolean) => void;
      const decided = new Promise<boolean>((resolve) => (decide = resolve));
      const done = db
        .transaction(async (tx) => {
          txs.set(id, {
            tx,
            end: (commit) => {
              decide(commit);
              return done;
            },
          });
          opened(id);
          if (!(await decided)) throw ROLLBACK;
        })
        .catch((err: unknown) => {
          if (err !== ROLLBACK) throw err;
        })
        .finally(() => txs.delete(id));
      done.catch(failed); // BEGIN itself failed: nothing was opened.
    });

  const perform = async (call: ThreadCall): Promise<unknown> => {
    switch (call.op) {
      case 'query': {
        const tx = call.tx === undefined ? undefined : txs.get(call.tx)?.tx;
        if (call.tx !== undefined && !tx) throw new Error(`transaction ${call.tx} is not open`);
        return wire.query(call.sql, call.params, tx);
      }
      case 'exec':
        await db.exec(call.sql);
        return undefined;
      case 'begin':
        return begin();
      case 'end': {
        const open = txs.get(call.tx);
        if (!open) throw new Error(`transaction ${call.tx} is not open`);
        return open.end(call.commit);
      }
      case 'listen':
        listeners.set(call.listener, {
          channel: call.channel,
          stop: await db.listen(call.channel, (payload) => notify(call.listener, payload)),
        });
        return undefined;
      case 'unlisten':
        if (!db.closed) await listeners.get(call.listener)?.stop();
        listeners.delete(call.listener);
        return undefined;
      case 'close':
        if (!db.closed) await db.close();
        return undefined;
    }
  };

  return perform;
}

function run(port: NonNullable<typeof parentPort>): void {
  let perform: Perform | undefined;
  port.on('message', (m: ThreadRequest) => {
    if ('open' in m) {
      perform = undefined;
      open(port, m.open).then(
        (opened) => {
          perform = opened;
          port.postMessage({ opened: true } satisfies ThreadMessage);
        },
        (err: unknown) => port.postMessage({ failed: toThreadError(err) } satisfies ThreadMessage),
      );
      return;
    }
    const { id, call } = m;
    (perform ? perform(call) : Promise.reject(new Error('no store is open in this thread')))
      .then((value) => port.postMessage({ id, ok: true, value } satisfies ThreadMessage))
      // A failed call, or a result that cannot be copied across.
      .catch((err: unknown) => port.postMessage({ id, ok: false, error: toThreadError(err) } satisfies ThreadMessage));
  });
}

if (parentPort) run(parentPort);
