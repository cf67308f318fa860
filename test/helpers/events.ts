/** Small hand-made bus events for tests, in the fixtures' JSON shapes. */
export const hex = (byte: string, bytes = 32) => byte.repeat(bytes);

let ts = 1_700_000_000_000_000_000n;

/** The lines of one block: beginBlock, the payloads as events, endBlock. */
export function blockLines(height: number, payloads: Record<string, unknown>[]): string[] {
  ts += 1_000_000_000n;
  const lines = [
    {
      id: `${height}-0`,
      block: 'AB',
      version: 1,
      type: 'BUS_EVENT_TYPE_BEGIN_BLOCK',
      beginBlock: { height: String(height), timestamp: String(ts), hash: `H${height}` },
    },
  ];
  for (const [i, p] of payloads.entries()) lines.push({ id: `${height}-${i + 1}`, block: 'AB', version: 1, ...p } as never);
  lines.push({
    id: `${height}-${payloads.length + 1}`,
    block: 'AB',
    version: 1,
    type: 'BUS_EVENT_TYPE_END_BLOCK',
    endBlock: { height: String(height) },
  } as never);
  return lines.map((l) => JSON.stringify(l));
}

export const setCreated = (setId: string, referrer: string, createdAt = '1700000000000000000') => ({
  type: 'BUS_EVENT_TYPE_REFERRAL_SET_CREATED',
  referralSetCreated: { setId, referrer, createdAt, updatedAt: createdAt },
});

export const refereeJoined = (setId: string, referee: string, atEpoch: string) => ({
  type: 'BUS_EVENT_TYPE_REFEREE_JOINED_REFERRAL_SET',
  refereeJoinedReferralSet: { setId, referee, joinedAt: '1700000000000000000', atEpoch },
});

export const payout = (
  epoch: string,
  asset: string,
  amount: string,
  rewardType = 'ACCOUNT_TYPE_GLOBAL_REWARD',
  extra: Record<string, unknown> = {},
) => ({
  type: 'BUS_EVENT_TYPE_REWARD_PAYOUT_EVENT',
  rewardPayout: {
    party: hex('ee'),
    epochSeq: epoch,
    asset,
    amount,
    percentOfTotalReward: '1',
    timestamp: '1',
    rewardType,
    lockedUntilEpoch: '0',
    quantumAmount: amount,
    ...extra,
  },
});

export const teamCreated = (teamId: string, referrer: string, name: string, createdAt: string, atEpoch: string) => ({
  type: 'BUS_EVENT_TYPE_TEAM_CREATED',
  teamCreated: { teamId, referrer, name, teamUrl: '', avatarUrl: '', createdAt, closed: false, atEpoch, allowList: [] },
});

export const refereeJoinedTeam = (teamId: string, referee: string, atEpoch: string) => ({
  type: 'BUS_EVENT_TYPE_REFEREE_JOINED_TEAM',
  refereeJoinedTeam: { teamId, referee, joinedAt: '1700000000000000000', atEpoch },
});

/** Team statistics of one team at an epoch: each party with its notional volume. */
export const teamsStats = (atEpoch: string, teamId: string, volumes: Record<string, string>) => ({
  type: 'BUS_EVENT_TYPE_TEAMS_STATS_UPDATED',
  teamsStatsUpdated: {
    atEpoch,
    stats: [{ teamId, membersStats: Object.entries(volumes).map(([partyId, notionalVolume]) => ({ partyId, notionalVolume })) }],
  },
});

export const epochEvent = (seq: string, action: 'EPOCH_ACTION_START' | 'EPOCH_ACTION_END') => ({
  type: 'BUS_EVENT_TYPE_EPOCH_UPDATE',
  epochEvent: { seq, action, startTime: '1', expireTime: '2', endTime: '3' },
});

export const asset = (id: string, symbol: string, decimals: string) => ({
  type: 'BUS_EVENT_TYPE_ASSET',
  asset: { id, status: 'STATUS_ENABLED', details: { name: symbol, symbol, decimals, quantum: '1' } },
});

/** A recurring transfer funding a game, scoped to teams or not. */
export const gameTransfer = (gameId: string, teamScoped: boolean) => ({
  type: 'BUS_EVENT_TYPE_TRANSFER',
  transfer: { gameId, recurring: { dispatchStrategy: { entityScope: teamScoped ? 'ENTITY_SCOPE_TEAMS' : 'ENTITY_SCOPE_INDIVIDUALS' } } },
});

/** An event of a kind no read model folds (the ingestion skips it). */
export const marketData = () => ({ type: 'BUS_EVENT_TYPE_MARKET_DATA', marketData: { market: 'ab'.repeat(32) } });

/** An id unique to (height, n): 32 bytes of hex. */
export const blockId = (height: number, n: number) => height.toString(16).padStart(60, '0') + n.toString(16).padStart(4, '0');

/**
 * Block `height` as NDJSON text: two referral sets, each joined by one referee (4 events), so
 * every whole block leaves every set at 2 members.
 */
export function referralBlock(height: number): string {
  const payloads = [1, 2].flatMap((n) => [
    setCreated(blockId(height, n), hex('ab')),
    refereeJoined(blockId(height, n), blockId(height, n + 100), '1'),
  ]);
  return `${blockLines(height, payloads).join('\n')}\n`;
}
