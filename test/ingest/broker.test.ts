/**
 * `epochview serve --broker-listen`: a Vega core's broker socket, played by libnanomsg (Perl
 * NanoMsg::Raw, test/helpers/nanomsg-peer.pl) in a process of its own, on both stores.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { WRITER_LOCK_KEY } from '../../src/db/writer-lock.js';
import { demoChain } from '../../src/demo/chain.js';
import { OTHER_PAYLOADS } from '../../src/demo/other-kinds.js';
import { encodeBusEvent, eventRecord } from '../../src/sources/binary/encode-event.js';
import { EventRecordReader } from '../../src/sources/binary/records.js';
import { runCli } from '../helpers/cli.js';
import { dumpReadModels } from '../helpers/dump.js';
import { blockLines, hex, refereeJoined, setCreated } from '../helpers/events.js';
import { eventually, sample, startServe, type ServeProcess } from '../helpers/serve.js';
import type { ReferralSetsBody } from '../helpers/bodies.js';
import { brokerPort, Core, killCores } from '../helpers/nanomsg-core.js';
import { get } from '../helpers/server.js';
import { createTestStore, STORE_KINDS } from '../helpers/stores.js';

const CHAIN = 'test-chain';
const tmp = mkdtempSync(join(tmpdir(), 'epochview-broker-'));
after(() => {
  killCores();
  rmSync(tmp, { recursive: true, force: true });
});
let files = 0;

/** Bus events (parsed JSON lines) as an event file, encoded as the demo encodes them; the peer script sends from it. */
function eventFile(events: Record<string, unknown>[]): string {
  const records = events.map((e, i) => eventRecord(BigInt(i + 1), encodeBusEvent({ version: 1, chainId: CHAIN, ...e }, OTHER_PAYLOADS)));
  const path = join(tmp, `send-${files++}.evts`);
  writeFileSync(path, Buffer.concat(records));
  return path;
}

const id = (height: number, n: number) => height.toString(16).padStart(60, '0') + n.toString(16).padStart(4, '0');

/** An event of a kind we skip. */
const ACCOUNT = { type: 'BUS_EVENT_TYPE_ACCOUNT', account: { balance: '1' } };

/** Block `height`: `sets` referral sets (two by default), each joined by one referee, and an event of a kind we skip after the first. */
function block(height: number, sets = 2): Record<string, unknown>[] {
  const set = (n: number) => [setCreated(id(height, n), hex('ab')), refereeJoined(id(height, n), id(height, n + 100), '1')];
  const payloads = [...set(1), ACCOUNT];
  for (let n = 2; n <= sets; n++) payloads.push(...set(n));
  return blockLines(height, payloads).map((l) => JSON.parse(l) as Record<string, unknown>);
}
const EVENTS_PER_BLOCK = block(1).length;

function blocks(from: number, to: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let h = from; h <= to; h++) out.push(...block(h));
  return out;
}

interface Ready {
  blockHeight: string | null;
  source: { kind: string; listen: string; state: string; peer?: string; error?: string; heightReceived: string | null };
}

async function readyz(url: string): Promise<Ready> {
  const res = await get(`${url}/readyz`);
  assert.equal(res.status, 200, res.text);
  return res.body as Ready;
}

/** serve --broker-listen on a free port; resolves with the port once it listens for the core. */
async function serveBroker(args: string[], bufferDir: string): Promise<{ serve: ServeProcess; port: number }> {
  const serve = await startServe([...args, '--broker-listen', '127.0.0.1:0', '--broker-buffer-dir', bufferDir, '--log-level', 'info']);
  return { serve, port: await brokerPort(serve.url) };
}

async function metric(url: string, series: string): Promise<number | undefined> {
  return sample((await get(`${url}/metrics`)).text, series);
}

/** Referral sets as the API lists them, and the height of the answer. */
async function view(url: string): Promise<{ height: number | null; sets: { id: string; totalMembers: string }[] }> {
  const res = await get(`${url}/api/v2/referral-sets?pagination.first=1000`);
  assert.equal(res.status, 200, res.text);
  const h = res.headers.get('x-block-height');
  return { height: h === null ? null : Number(h), sets: (res.body as ReferralSetsBody).referralSets.edges.map((e) => e.node) };
}

/** Whole blocks only: blocks 1..height, two sets each with two members. */
async function assertWholeBlocks(url: string, height: number): Promise<void> {
  const v = await view(url);
  assert.equal(v.height, height);
  assert.equal(v.sets.length, 2 * height);
  for (const s of v.sets) assert.equal(s.totalMembers, '2');
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const logged = (serve: ServeProcess, msg: string) => serve.logs().filter((l) => l.msg === msg);

for (const kind of STORE_KINDS) {
  describe(`serve --broker-listen on ${kind}`, () => {
    test('blocks over one connection; a disconnect inside a block, then a reconnect that sends it again', {
      timeout: 120_000,
    }, async () => {
      const ts = await createTestStore(kind);
      const bufferDir = join(tmp, `buffer-${kind}-1`);
      const { serve, port } = await serveBroker(ts.args, bufferDir);
      try {
        // An empty store, not seeded with the demo; no core yet.
        assert.deepEqual(await view(serve.url), { height: null, sets: [] });
        assert.deepEqual((await readyz(serve.url)).source, {
          kind: 'broker',
          listen: `127.0.0.1:${port}`,
          state: 'waiting',
          heightReceived: null,
        });
        assert.match(serve.stdout(), /listening for a Vega core's broker socket on 127\.0\.0\.1:/);

        const core = new Core(port);
        await core.send(eventFile(blocks(1, 5)));
        await eventually('blocks 1-5', async () => (await view(serve.url)).height === 5);
        await assertWholeBlocks(serve.url, 5);
        const ready = await readyz(serve.url);
        assert.equal(ready.source.state, 'connected');
        assert.match(ready.source.peer!, /^127\.0\.0\.1:\d+$/);
        assert.equal(ready.source.heightReceived, '5');
        assert.equal(ready.blockHeight, '5');

        // Half of block 6, then the connection ends: nothing of block 6 is applied.
        const six = block(6);
        await core.send(eventFile(six.slice(0, 3)));
        await eventually(
          'frames of block 6',
          async () => (await metric(serve.url, 'epochview_broker_frames_received_total')) === 5 * EVENTS_PER_BLOCK + 3,
        );
        await core.close();
        await eventually('the disconnect', async () => (await readyz(serve.url)).source.state === 'waiting');
        await eventually(
          'the open block dropped',
          () => logged(serve, 'broker: a block left open by the end of its connection: not applied').length === 1,
        );
        await assertWholeBlocks(serve.url, 5);
        assert.equal(logged(serve, 'broker: a block left open by the end of its connection: not applied')[0]!.height, '6');

        // The core comes back and sends block 6 again, whole, and more.
        const again = new Core(port);
        await again.send(eventFile(blocks(6, 8)));
        await eventually('blocks 6-8', async () => (await view(serve.url)).height === 8);
        await assertWholeBlocks(serve.url, 8);

        const m = (await get(`${serve.url}/metrics`)).text;
        assert.equal(sample(m, 'epochview_broker_frames_received_total'), 8 * EVENTS_PER_BLOCK + 3);
        assert.equal(sample(m, 'epochview_broker_connected'), 1);
        assert.equal(sample(m, 'epochview_broker_height_received'), 8);
        assert.equal(sample(m, 'epochview_ingest_blocks_total'), 8);
        assert.equal(sample(m, 'epochview_ingest_last_height'), 8);
        assert.equal(sample(m, 'epochview_broker_lag_blocks'), 0);
        assert.ok(sample(m, 'epochview_broker_received_bytes_total')! > 8 * EVENTS_PER_BLOCK * 8);
        // The skipped kind is counted as it arrives (the half of block 6 sent had none), and left out of the buffer files.
        assert.equal(sample(m, 'epochview_broker_skipped_events_total{type="BUS_EVENT_TYPE_ACCOUNT"}'), 8);
        assert.equal(sample(m, 'epochview_ingest_skipped_events_total{type="BUS_EVENT_TYPE_ACCOUNT"}'), undefined);
        // The first connection's file is consumed and removed; the second's is still written.
        assert.deepEqual(readdirSync(bufferDir), ['000000000002.bevt']);
        const buffered = [...new EventRecordReader().push(readFileSync(join(bufferDir, '000000000002.bevt')))];
        assert.equal(buffered.length, 3 * (EVENTS_PER_BLOCK - 1));
        assert.equal(sample(m, 'epochview_broker_buffered_bytes'), statSync(join(bufferDir, '000000000002.bevt')).size);
        await again.close();
        assert.equal(await serve.stop(), 0);
      } finally {
        await serve.stop();
        await ts.drop();
      }
    });

    test('buffer files left by an earlier process are applied many blocks per transaction; once caught up, a block from the core goes alone', {
      timeout: 120_000,
    }, async () => {
      const ts = await createTestStore(kind);
      const bufferDir = join(tmp, `buffer-${kind}-backlog`);
      mkdirSync(bufferDir);
      // 2,000 blocks, more than one read of the file (1 MiB). A block counts its 4 events and 1:
      // batches of 1,000 events are 200 blocks.
      copyFileSync(eventFile(blocks(1, 2000)), join(bufferDir, '000000000001.bevt'));
      assert.ok(statSync(join(bufferDir, '000000000001.bevt')).size > 2 ** 20);
      const { serve, port } = await serveBroker([...ts.args, '--batch-events', '1000'], bufferDir);
      try {
        const applied = async () => {
          const m = (await get(`${serve.url}/metrics`)).text;
          return { blocks: sample(m, 'epochview_ingest_blocks_total'), transactions: sample(m, 'epochview_ingest_transactions_total') };
        };
        await eventually('the buffer file applied and removed', () => readdirSync(bufferDir).length === 0);
        assert.deepEqual(await applied(), { blocks: 2000, transactions: 10 });
        const core = new Core(port);
        await core.send(eventFile(blocks(2001, 2001)));
        await eventually('block 2001', async () => (await applied()).blocks === 2001);
        await core.send(eventFile(blocks(2002, 2002)));
        await eventually('block 2002', async () => (await applied()).blocks === 2002);
        assert.deepEqual(await applied(), { blocks: 2002, transactions: 12 });
        assert.equal((await readyz(serve.url)).blockHeight, '2002');
        await core.close();
        assert.equal(await serve.stop(), 0);
      } finally {
        await serve.stop();
        await ts.drop();
      }
    });

    test('a second peer and a wrong protocol header are refused and logged; the first peer goes on', { timeout: 120_000 }, async () => {
      const ts = await createTestStore(kind);
      const { serve, port } = await serveBroker(ts.args, join(tmp, `buffer-${kind}-2`));
      try {
        const core = new Core(port);
        await core.send(eventFile(blocks(1, 2)));
        await eventually('blocks 1-2', async () => (await view(serve.url)).height === 2);

        // A second PAIR peer (libnanomsg again): refused while the first is connected.
        const second = new Core(port);
        await eventually('the second peer refused', () => logged(serve, 'broker: connection refused').length > 0);
        second.kill();
        // libnanomsg retries a refused connection: no attempt of it is left once it has exited.
        await second.exited;
        const refusal = logged(serve, 'broker: connection refused')[0]!;
        assert.match(String(refusal.reason), /^a peer is connected already \(127\.0\.0\.1:\d+\): PAIR has one peer at a time$/);
        assert.equal(refusal.level, 40);

        // Not PAIR v0: a PUB socket's header (protocol 0x0020). epochview sends its own first.
        const refusedBefore = logged(serve, 'broker: connection refused').length;
        await core.close();
        await eventually('the disconnect', async () => (await readyz(serve.url)).source.state === 'waiting');
        const heard = await new Promise<Buffer>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', () => socket.write(Buffer.from([0, 0x53, 0x50, 0, 0, 0x20, 0, 0])));
          let got = Buffer.alloc(0);
          socket.on('data', (d) => (got = Buffer.concat([got, d])));
          socket.on('close', () => resolve(got));
          socket.on('error', reject);
        });
        assert.equal(heard.toString('hex'), '0053500000100000');
        // A retry of the second peer accepted just before it exited may be refused (and logged) late.
        const WRONG_HEADER = 'protocol 0x0020, not PAIR v0 (0x0010)';
        const refusedAfter = () =>
          logged(serve, 'broker: connection refused')
            .slice(refusedBefore)
            .map((r) => String(r.reason));
        await eventually('the wrong header refused', () => refusedAfter().includes(WRONG_HEADER));
        for (const reason of refusedAfter())
          if (reason !== WRONG_HEADER)
            assert.match(reason, /^a peer is connected already \(127\.0\.0\.1:\d+\): PAIR has one peer at a time$/);

        // The core connects again and goes on.
        const back = new Core(port);
        await back.send(eventFile(blocks(1, 4)));
        await eventually('blocks 3-4', async () => (await view(serve.url)).height === 4);
        await assertWholeBlocks(serve.url, 4);
        await back.close();
      } finally {
        await serve.stop();
        await ts.drop();
      }
    });

    test("a height gap, another chain (configured, or the store's), another version and a block over --max-block-events are refused: a clear error in the log and /readyz, nothing after it applied", {
      timeout: 240_000,
    }, async () => {
      // The store's chain and a block's size are the applier's checks (Ingester), the same on both stores: on one of them.
      const cases = ['gap', 'chain', 'version', ...(kind === STORE_KINDS.at(-1) ? (['store chain', 'block size'] as const) : [])] as const;
      for (const bad of cases) {
        const ts = await createTestStore(kind);
        // Without --chain-id, the chain of the first blocks is the store's.
        const chainArgs = bad === 'store chain' ? [] : ['--chain-id', CHAIN];
        // Blocks of 4 events of ours pass; block 3 of the 'block size' case holds 6.
        const sizeArgs = bad === 'block size' ? ['--max-block-events', '4'] : [];
        const { serve, port } = await serveBroker(
          [...ts.args, ...chainArgs, ...sizeArgs],
          join(tmp, `buffer-${kind}-3-${bad.replace(' ', '-')}`),
        );
        try {
          const core = new Core(port);
          const after =
            bad === 'gap'
              ? blocks(4, 5)
              : bad === 'block size'
                ? [...block(3, 3), ...block(4)]
                : blocks(3, 4).map((e) => (bad === 'version' ? { ...e, version: 2 } : { ...e, chainId: 'other-chain' }));
          await core.send(eventFile([...blocks(1, 2), ...after]));
          await eventually('the refusal', async () => (await readyz(serve.url)).source.state === 'stopped');
          const ready = await readyz(serve.url);
          const file = join(tmp, `buffer-${kind}-3-${bad.replace(' ', '-')}`, '000000000001.bevt');
          const why = {
            gap: 'field height: block 4 follows block 2: a height gap (blocks 3 to 3 are missing)',
            chain: 'event 3-0, field chainId: chain "other-chain", not the configured "test-chain" (--chain-id)',
            version: 'event 3-0, field version: version 2: only version 1 is known',
            'store chain': `field chainId: block 3 is of chain "other-chain", the store's is "${CHAIN}": a store holds one chain (give another a store of its own)`,
            'block size': 'event 3-6: block 3 holds more than 4 events of ours (--max-block-events): it is not applied',
          }[bad];
          assert.match(ready.source.error!, new RegExp(`^refused: ${escapeRegExp(file)}: byte \\d+, ${escapeRegExp(why)}$`));
          assert.equal(ready.blockHeight, '2');
          await assertWholeBlocks(serve.url, 2);
          // The log line is written after the state changes: wait for it, then there is one.
          const stopped = 'broker: stopped; fix the cause and restart (the buffer files are read again)';
          await eventually('the refusal logged', () => logged(serve, stopped).length > 0);
          const log = logged(serve, stopped);
          assert.equal(log.length, 1);
          assert.equal(log[0]!.level, 50);
          assert.equal(log[0]!.err, ready.source.error);
          // The core is let go, and not listened for any more.
          assert.equal(ready.source.state, 'stopped');
          const refused = await new Promise<string>((resolve) => {
            const socket = connect(port, '127.0.0.1', () => resolve('connected'));
            socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
          });
          assert.equal(refused, 'ECONNREFUSED');
          core.kill();
        } finally {
          await serve.stop();
          await ts.drop();
        }
      }
    });

    test('kill -9 while receiving, a restart and a resend from an earlier block: the same pages as a clean ingest', {
      timeout: 300_000,
    }, async () => {
      // The small chain's first 120 blocks (of 286): enough blocks to kill between them.
      const all = [...demoChain({ scale: 'small', seed: 3 })]
        .join('')
        .split('\n')
        .filter((l) => l !== '');
      const lines = all.slice(0, all.findIndex((l) => l.includes('"endBlock":{"height":"120"')) + 1);
      const events = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      const ndjson = join(tmp, `clean-${kind}.ndjson`);
      writeFileSync(ndjson, `${lines.join('\n')}\n`);
      const clean = await createTestStore(kind);
      const ts = await createTestStore(kind);
      const bufferDir = join(tmp, `buffer-${kind}-4`);
      try {
        assert.equal((await runCli(['ingest', ndjson, ...clean.args])).code, 0);
        // Small batches: while it is behind the socket the applier batches as `ingest` does
        // (50,000 events by default, more than this chain has), and the kill is to come while
        // frames still arrive, once some blocks are applied.
        const first = await serveBroker([...ts.args, '--batch-events', '500'], bufferDir);
        const core = new Core(first.port);
        // The chain in 60 pieces, sent one after the other while blocks are applied. The sender
        // keeps within 10 blocks of what is applied, whatever the machine's speed, and stops once
        // 20 blocks are: the kill then comes with blocks received but not applied, and more to come.
        const cuts = Array.from({ length: 61 }, (_, i) => Math.floor((i * events.length) / 60));
        const applied = async () => (await metric(first.serve.url, 'epochview_ingest_last_height')) ?? 0;
        let sentThrough = 0;
        for (let i = 0; i < 60 && (await applied()) <= 20; i++) {
          const piece = events.slice(cuts[i], cuts[i + 1]);
          await core.send(eventFile(piece));
          for (const e of piece) if (e.endBlock) sentThrough = Number((e.endBlock as { height: string }).height);
          await eventually('the applier within 10 blocks of the sender', async () => (await applied()) >= sentThrough - 10, 60_000);
        }
        const received = (await metric(first.serve.url, 'epochview_broker_frames_received_total'))!;
        first.serve.child.kill('SIGKILL');
        await first.serve.exited;
        core.kill();
        assert.ok(received < events.length, `killed while receiving: ${received} of ${events.length} frames received`);
        assert.ok(readdirSync(bufferDir).length > 0, 'buffer files are left');

        // The restart applies what the buffer files hold; the core resends from an earlier block.
        const second = await serveBroker(ts.args, bufferDir);
        try {
          // First what the buffer files hold is applied, and the files are removed.
          await eventually('the buffer files consumed', () => readdirSync(bufferDir).length === 0, 60_000);
          assert.ok(Number((await readyz(second.serve.url)).blockHeight) > 20);
          const from = events.findIndex((e) => e.beginBlock !== undefined && Number((e.beginBlock as { height: string }).height) === 10);
          const resend = new Core(second.port);
          await resend.send(eventFile(events.slice(from)));
          const last = Number(String(events.at(-1)!.id).split('-')[0]);
          await eventually('the whole chain', async () => (await view(second.serve.url)).height === last, 120_000);
          const cleanServe = await startServe([...clean.args, '--demo-on-empty', 'false', '--log-level', 'warn']);
          try {
            for (const path of [
              '/api/v2/referral-sets?pagination.first=5000',
              '/api/v2/rewards/epoch/summaries?pagination.first=5000',
              '/explorer/api/teams?pagination.first=1000',
            ]) {
              const [a, b] = await Promise.all([get(second.serve.url + path), get(cleanServe.url + path)]);
              assert.equal(a.status, 200);
              assert.equal(a.text, b.text, path);
            }
          } finally {
            await cleanServe.stop();
          }
          await resend.close();
          assert.equal(await second.serve.stop(), 0);
        } finally {
          await second.serve.stop();
        }
        const [a, b] = [await ts.open(), await clean.open()];
        try {
          assert.deepEqual(await dumpReadModels(a), await dumpReadModels(b));
        } finally {
          await a.close();
          await b.close();
        }
      } finally {
        await ts.drop();
        await clean.drop();
      }
    });
  });
}

test('postgres: a second listener waits for the writer lock without listening; a blocked store, a cut lock connection and a full disk never stop the socket draining', {
  skip: !STORE_KINDS.includes('postgres'),
  timeout: 180_000,
}, async () => {
  const ts = await createTestStore('postgres');
  const admin = new pg.Client({ connectionString: ts.databaseUrl });
  await admin.connect();
  const { serve, port } = await serveBroker(ts.args, join(tmp, 'buffer-lock-a'));
  try {
    const spare = await startServe([
      ...ts.args,
      '--broker-listen',
      '127.0.0.1:0',
      '--broker-buffer-dir',
      join(tmp, 'buffer-lock-b'),
      '--log-level',
      'info',
    ]);
    try {
      await eventually('the spare waiting for the lock', () =>
        spare.logs().some((l) => l.msg === 'waiting for the writer lock: another process writes to this database'),
      );
      assert.deepEqual((await readyz(spare.url)).source, { kind: 'broker', listen: '127.0.0.1:0', state: 'waiting', heightReceived: null });
    } finally {
      assert.equal(await spare.stop(), 0);
    }

    const core = new Core(port);
    await core.send(eventFile(blocks(1, 3)));
    await eventually('blocks 1-3', async () => (await metric(serve.url, 'epochview_ingest_last_height')) === 3);

    // Every block's transaction waits for this lock: the store is stuck, the socket drains.
    await admin.query('BEGIN');
    await admin.query('LOCK TABLE chain_head IN EXCLUSIVE MODE');
    await core.send(eventFile(blocks(4, 30)));
    await eventually(
      'every frame received',
      async () => (await metric(serve.url, 'epochview_broker_frames_received_total')) === 30 * EVENTS_PER_BLOCK,
    );
    const m = (await get(`${serve.url}/metrics`)).text;
    assert.equal(sample(m, 'epochview_ingest_last_height'), 3);
    assert.equal(sample(m, 'epochview_broker_height_received'), 30);
    assert.equal(sample(m, 'epochview_broker_lag_blocks'), 27);
    assert.ok(sample(m, 'epochview_broker_buffered_bytes')! > 0);
    await admin.query('COMMIT');
    await eventually('blocks 4-30', async () => (await metric(serve.url, 'epochview_ingest_last_height')) === 30);

    // The lock's connection cut: applying stops, the lock is taken again, and what arrived meanwhile is applied.
    const cut = await admin.query(`SELECT pg_terminate_backend(a.pid) FROM pg_stat_activity a
      JOIN pg_locks l ON l.pid = a.pid AND l.locktype = 'advisory' AND l.objid = ${WRITER_LOCK_KEY} AND l.granted
      WHERE a.datname = current_database() AND a.application_name LIKE 'epochview serve --broker-listen%'`);
    assert.equal(cut.rowCount, 1);
    await core.send(eventFile(blocks(31, 40)));
    await eventually('blocks 31-40', async () => (await view(serve.url)).height === 40, 60_000);
    await assertWholeBlocks(serve.url, 40);
    assert.ok(serve.logs().some((l) => l.msg === 'lost the writer lock: stopped writing; taking it again'));
    assert.equal((await readyz(serve.url)).source.state, 'connected');

    // A server that refuses the writes for a while, its connection kept (its disk full): waited
    // out as a server that is down, the core kept, nothing lost (it stopped the source for good).
    await admin.query(`CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = '53100'; END $$`);
    await admin.query('CREATE TRIGGER disk_full BEFORE UPDATE ON chain_head FOR EACH ROW EXECUTE FUNCTION disk_full()');
    await core.send(eventFile(blocks(41, 45)));
    await eventually('the store said unavailable', () =>
      serve.logs().some((l) => l.msg === 'broker: store unavailable: retrying every 500 ms' && /No space left/.test(String(l.err))),
    );
    assert.equal((await view(serve.url)).height, 40);
    assert.equal((await readyz(serve.url)).source.state, 'connected');
    await admin.query('DROP TRIGGER disk_full ON chain_head');
    await admin.query('DROP FUNCTION disk_full()');
    await eventually('blocks 41-45', async () => (await view(serve.url)).height === 45, 60_000);
    await assertWholeBlocks(serve.url, 45);
    assert.equal((await readyz(serve.url)).source.state, 'connected');
    await core.close();
  } finally {
    await admin.query('ROLLBACK').catch(() => {});
    await admin.end();
    await serve.stop();
    await ts.drop();
  }
});

test('postgres: a hot spare sharing the buffer folder takes over what the writer before it left unapplied, and listens', {
  skip: !STORE_KINDS.includes('postgres'),
  timeout: 180_000,
}, async () => {
  const ts = await createTestStore('postgres');
  const folder = join(tmp, 'buffer-shared');
  const { serve, port } = await serveBroker(ts.args, folder);
  // Started while the writer holds the lock: the folder as it is now has none of what comes next.
  const spare = await startServe([...ts.args, '--broker-listen', '127.0.0.1:0', '--broker-buffer-dir', folder, '--log-level', 'info']);
  try {
    await eventually('the spare waiting for the lock', () =>
      spare.logs().some((l) => l.msg === 'waiting for the writer lock: another process writes to this database'),
    );
    const core = new Core(port);
    await core.send(eventFile(blocks(1, 3)));
    await eventually('blocks 1-3', async () => (await view(serve.url)).height === 3);
    await core.close();
    // The writer dies with a connection's file received and not applied (the store held up).
    const admin = new pg.Client({ connectionString: ts.databaseUrl });
    await admin.connect();
    try {
      await admin.query('BEGIN');
      await admin.query('LOCK TABLE chain_head IN EXCLUSIVE MODE');
      const next = new Core(port);
      await next.send(eventFile(blocks(4, 6)));
      await eventually('blocks 4-6 received', async () => (await metric(serve.url, 'epochview_broker_height_received')) === 6);
      await next.close();
      await serve.stop('SIGKILL');
    } finally {
      await admin.query('ROLLBACK');
      await admin.end();
    }
    const taken = await brokerPort(spare.url);
    await eventually('blocks 4-6 applied by the spare', async () => (await view(spare.url)).height === 6, 60_000);
    const core2 = new Core(taken);
    await core2.send(eventFile(blocks(7, 8)));
    await eventually('blocks 7-8', async () => (await view(spare.url)).height === 8);
    await assertWholeBlocks(spare.url, 8);
    assert.equal((await readyz(spare.url)).source.state, 'connected');
    await core2.close();
  } finally {
    await spare.stop();
    await serve.stop();
    await ts.drop();
  }
});

test('--broker-listen takes HOST:PORT, and not together with --follow', async () => {
  const cases: [string[], string][] = [
    [
      ['--broker-listen', '3005'],
      '--broker-listen (EPOCHVIEW_BROKER_LISTEN): must be HOST:PORT (e.g. 0.0.0.0:3005, [::]:3005), got "3005"',
    ],
    [
      ['--broker-listen', '0.0.0.0:70000'],
      '--broker-listen (EPOCHVIEW_BROKER_LISTEN): must be HOST:PORT (e.g. 0.0.0.0:3005, [::]:3005), got "0.0.0.0:70000"',
    ],
    [
      ['--broker-listen', '0.0.0.0:3005', '--follow', 'events.evts'],
      '--broker-listen (EPOCHVIEW_BROKER_LISTEN): cannot be combined with --follow: the store has one source of events',
    ],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(['serve', ...args]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.split('\n')[0], message);
  }
});

test('a port that cannot be listened on stops the source: said in the log and /readyz, the API answers', { timeout: 120_000 }, async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as AddressInfo).port;
  const ts = await createTestStore('pglite');
  const serve = await startServe([
    ...ts.args,
    '--broker-listen',
    `127.0.0.1:${port}`,
    '--broker-buffer-dir',
    join(tmp, 'buffer-taken'),
    '--log-level',
    'info',
  ]);
  try {
    const error = `cannot listen on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}`;
    assert.deepEqual((await readyz(serve.url)).source, {
      kind: 'broker',
      listen: `127.0.0.1:${port}`,
      state: 'stopped',
      error,
      heightReceived: null,
    });
    const stopped = 'broker: stopped; fix the cause and restart (the buffer files are read again)';
    await eventually('the stop logged', () => logged(serve, stopped).length > 0);
    assert.equal(logged(serve, stopped)[0]!.err, error);
    assert.deepEqual(await view(serve.url), { height: null, sets: [] });
    assert.equal(await serve.stop(), 0);
  } finally {
    await serve.stop();
    await ts.drop();
    taken.close();
  }
});
