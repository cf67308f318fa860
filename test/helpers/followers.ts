import { appendFileSync, copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blockLines } from './events.js';
import { eventually, startServe, type ServeProcess } from './serve.js';
import { get } from './server.js';
import { createTestStore, type StoreKind, type TestStore } from './stores.js';

/** Two `serve --follow` processes, each on a store of its own following its own copy of one chain. */
export interface Followers {
  a: ServeProcess;
  b: ServeProcess;
  /** The height both have applied. */
  height: number;
  /** Appends a block of these payloads at the next height to both files; resolves once both applied it. */
  append(payloads: Record<string, unknown>[]): Promise<void>;
  /** Stops both and drops their stores. */
  close(): Promise<void>;
}

async function blockHeight(url: string): Promise<string | null> {
  const res = await get(`${url}/readyz`);
  return res.status === 200 ? (res.body as { blockHeight: string | null }).blockHeight : null;
}

/** The last height of an NDJSON file of blocks (its last endBlock). */
function lastHeight(file: string): number {
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  return Number((JSON.parse(lines[lines.length - 1]!) as { endBlock: { height: string } }).endBlock.height);
}

/**
 * Starts the two followers of `chain` (an NDJSON file of blocks), copied into `dir`, each with
 * its own serve arguments, and resolves once both applied the whole chain.
 */
export async function followTwice(kind: StoreKind, chain: string, dir: string, args: [a: string[], b: string[]]): Promise<Followers> {
  const stores: TestStore[] = [];
  const serves: ServeProcess[] = [];
  const close = async () => {
    for (const s of serves) await s.stop();
    for (const s of stores) await s.drop();
  };
  try {
    const files = ['a', 'b'].map((side) => join(dir, `${kind}-${side}.ndjson`));
    for (const [i, file] of files.entries()) {
      copyFileSync(chain, file);
      const store = await createTestStore(kind);
      stores.push(store);
      serves.push(
        await startServe([...store.args, '--follow', file, '--log-level', 'warn', ...args[i]!], { EPOCHVIEW_FOLLOW_POLL_MS: '50' }),
      );
    }
    const both = async (height: number) =>
      (await blockHeight(serves[0]!.url)) === String(height) && (await blockHeight(serves[1]!.url)) === String(height);
    const followers: Followers = {
      a: serves[0]!,
      b: serves[1]!,
      height: lastHeight(chain),
      async append(payloads) {
        const height = ++followers.height;
        // Made once: blockLines gives each block a later timestamp than the last.
        const lines = `${blockLines(height, payloads).join('\n')}\n`;
        for (const f of files) appendFileSync(f, lines);
        await eventually(`block ${height} applied`, () => both(height));
      },
      close,
    };
    await eventually('the chain ingested', () => both(followers.height), 120_000);
    return followers;
  } catch (err) {
    await close();
    throw err;
  }
}
