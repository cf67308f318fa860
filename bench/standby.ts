import { percentile } from './load.js';
import { withClient } from './stores.js';

/** A PostgreSQL hot standby as the benchmark serves it: caught up first, and what its head poll costs. */

const headOf = (url: string) =>
  withClient(url, async (c) => (await c.query<{ h: string }>('SELECT height::text AS h FROM chain_head')).rows[0]?.h);

/** Waits until the standby's database shows the primary's chain head (a minute at most). */
export async function waitForStandby(primaryUrl: string, standbyUrl: string): Promise<void> {
  const top = await headOf(primaryUrl);
  for (let i = 0; (await headOf(standbyUrl)) !== top; i++) {
    if (i > 600) throw new Error('the standby did not catch up in 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The standby's head poll (src/db/chain-head-watch.ts): round trips from a client, and the server's own planning and execution time. */
export async function standbyPollCost(url: string): Promise<string> {
  const { ROLE_COLUMNS } = await import('../src/db/server-role.js');
  const sql = `SELECT chain_head_state() AS state, ${ROLE_COLUMNS}`;
  return withClient(url, async (c) => {
    for (let i = 0; i < 200; i++) await c.query(sql);
    const times: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const t = performance.now();
      await c.query(sql);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    let server = 0;
    for (let i = 0; i < 500; i++) {
      const plan = (await c.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`)).rows[0]['QUERY PLAN'][0] as Record<string, number>;
      server += plan['Execution Time']! + plan['Planning Time']!;
    }
    return (
      `The standby's head poll: round trip p50 ${percentile(times, 50).toFixed(3)} ms, p99 ${percentile(times, 99).toFixed(3)} ms; ` +
      `planning and execution in the server ${(server / 500).toFixed(3)} ms.`
    );
  });
}
