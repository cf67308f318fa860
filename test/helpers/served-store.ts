import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { Store } from '../../src/db/store.js';
import { runCli } from './cli.js';
import { type ServeProcess, startServe } from './serve.js';
import { startServer } from './server.js';
import { createTestStore, type Dataset, type StoreKind, type TestStore } from './stores.js';

type Server = Awaited<ReturnType<typeof startServer>>;

/** What a suite's setup gives its tests; read it inside tests, after `before` has run. */
export interface ServedStore {
  ts: TestStore;
  store: Store;
  /** The HTTP server, unless the suite asked for none. */
  server: Server;
  url: string;
}

export interface ServedStoreOptions {
  /** A fixture dataset the store starts with (a copy of its template, ingested once by the CLI). */
  dataset?: Dataset;
  /** Event input to ingest with the real CLI first: a file path, or NDJSON text on stdin; and more arguments. */
  ingest?: ({ file: string } | { stdin: string }) & { args?: string[] };
  /** Rows written to the opened store before the server starts (read models filled directly). */
  fill?: (store: Store) => Promise<void>;
  /** Whether to start an HTTP server over the store (default true), and its options. */
  server?: false | Parameters<typeof startServer>[1];
}

/**
 * The setup most component suites share: a store of their own on `kind`, with a fixture dataset
 * or filled by the CLI, opened, and served over HTTP on a free port; closed and dropped after the suite. Registers the
 * suite's before/after hooks and returns the object they fill.
 */
export function useServedStore(kind: StoreKind, opts: ServedStoreOptions = {}): ServedStore {
  const ctx = {} as ServedStore;
  before(async () => {
    ctx.ts = await createTestStore(kind, { dataset: opts.dataset });
    if (opts.ingest) {
      const res =
        'file' in opts.ingest
          ? await runCli(['ingest', opts.ingest.file, ...(opts.ingest.args ?? []), ...ctx.ts.args])
          : await runCli(['ingest', '-', ...(opts.ingest.args ?? []), ...ctx.ts.args], { stdin: opts.ingest.stdin });
      assert.equal(res.code, 0, res.stderr);
    }
    ctx.store = await ctx.ts.open();
    await opts.fill?.(ctx.store);
    if (opts.server !== false) {
      ctx.server = await startServer(ctx.store, opts.server ?? {});
      ctx.url = ctx.server.url;
    }
  });
  after(async () => {
    await ctx.server?.close();
    await ctx.store?.close();
    await ctx.ts?.drop();
  });
  return ctx;
}

/**
 * A real `serve` process over a store of its own on `kind`, seeded with the demo chain; stopped
 * and dropped after the suite. Registers the suite's before/after hooks and returns the object
 * they fill.
 */
export function useDemoServe(kind: StoreKind): { ts: TestStore; serve: ServeProcess } {
  const ctx = {} as { ts: TestStore; serve: ServeProcess };
  before(async () => {
    ctx.ts = await createTestStore(kind);
    ctx.serve = await startServe([...ctx.ts.args, '--demo-on-empty', 'true', '--log-level', 'warn']);
  });
  after(async () => {
    await ctx.serve?.stop();
    await ctx.ts?.drop();
  });
  return ctx;
}
