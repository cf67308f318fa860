/**
 * Each read model's version, through the real CLI on both stores: the height of the last block
 * (or batch, while catching up) that held an event the model folds; blocks without any leave
 * every version as it was.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import {
  asset,
  blockLines,
  epochEvent,
  gameTransfer,
  hex,
  marketData,
  payout,
  refereeJoinedTeam,
  setCreated,
  teamCreated,
  teamsStats,
} from '../helpers/events.js';
import { createTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.js';

for (const kind of STORE_KINDS) {
  describe(`read model versions on ${kind}`, () => {
    let ts: TestStore;
    after(async () => ts?.drop());

    const ingest = async (lines: string[]) => {
      const res = await runCli(['ingest', '-', ...ts.args], { stdin: `${lines.join('\n')}\n` });
      assert.equal(res.code, 0, res.stderr);
    };
    const versions = async (): Promise<Record<string, string>> => {
      const store = await ts.open();
      try {
        const rows = await store.query<{ model: string; height: string }>(
          'SELECT model, height::text FROM read_model_versions ORDER BY model',
        );
        return Object.fromEntries(rows.map((r) => [r.model, r.height]));
      } finally {
        await store.close();
      }
    };

    test('a block moves the versions of the models whose events it holds, and only those', async () => {
      ts = await createTestStore(kind);
      // One batch: the last block's height for every model changed in it.
      await ingest([
        ...blockLines(1, [setCreated(hex('a1'), hex('b1')), asset(hex('c1'), 'ONE', '2')]),
        ...blockLines(2, [teamCreated(hex('d1'), hex('e1'), 'T', '1700000000000000000', '1'), gameTransfer(hex('f1'), true)]),
        ...blockLines(3, [marketData()]),
      ]);
      assert.deepEqual(await versions(), { assets: '3', 'game-scopes': '3', 'referral-sets': '3', teams: '3' });

      await ingest(blockLines(4, [marketData()]));
      assert.deepEqual(await versions(), { assets: '3', 'game-scopes': '3', 'referral-sets': '3', teams: '3' });

      await ingest(blockLines(5, [refereeJoinedTeam(hex('d1'), hex('e2'), '1')]));
      await ingest(blockLines(6, [teamsStats('1', hex('d1'), { [hex('e2')]: '5' })]));
      await ingest(blockLines(7, [epochEvent('1', 'EPOCH_ACTION_END'), epochEvent('2', 'EPOCH_ACTION_START')]));
      await ingest(blockLines(8, [payout('1', hex('c1'), '10')]));
      assert.deepEqual(await versions(), {
        assets: '3',
        'chain-head': '7',
        'game-scopes': '3',
        'referral-sets': '3',
        'epoch-reward-summaries': '8',
        // Team statistics fold every payout (a team game's counts), and team statistics events.
        'team-member-stats': '8',
        teams: '5',
      });
    });
  });
}
