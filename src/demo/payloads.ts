// JSON text of each event payload, in the field order of the fixtures (lowerCamelCase keys,
// 64-bit integers as strings, enums by name). Every value passed in is already a safe JSON
// string body (hex ids, digits, enum names) except free text, which goes through JSON.stringify.

import type { DemoAsset, DemoGame } from './rewards.js';

export const ZERO_ID = '0'.repeat(64);

export function epochPayload(seq: number, action: 'START' | 'END', startTime: string, expireTime: string, endTime: string): string {
  return `{"seq":"${seq}","action":"EPOCH_ACTION_${action}","startTime":"${startTime}","expireTime":"${expireTime}","endTime":"${endTime}"}`;
}

export function referralSetCreatedPayload(setId: string, referrer: string, at: string): string {
  return `{"setId":"${setId}","referrer":"${referrer}","createdAt":"${at}","updatedAt":"${at}"}`;
}

export function refereeJoinedReferralSetPayload(setId: string, referee: string, at: string, epoch: number): string {
  return `{"setId":"${setId}","referee":"${referee}","joinedAt":"${at}","atEpoch":"${epoch}"}`;
}

export interface TeamDetails {
  name: string;
  teamUrl?: string;
  avatarUrl?: string;
}

function teamDetails(d: TeamDetails): string {
  let s = `"name":${JSON.stringify(d.name)}`;
  if (d.teamUrl !== undefined) s += `,"teamUrl":${JSON.stringify(d.teamUrl)}`;
  if (d.avatarUrl !== undefined) s += `,"avatarUrl":${JSON.stringify(d.avatarUrl)}`;
  return s;
}

export function teamCreatedPayload(teamId: string, referrer: string, d: TeamDetails, at: string, epoch: number): string {
  return `{"teamId":"${teamId}","referrer":"${referrer}",${teamDetails(d)},"createdAt":"${at}","closed":false,"atEpoch":"${epoch}","allowList":[]}`;
}

export function teamUpdatedPayload(teamId: string, d: TeamDetails): string {
  return `{"teamId":"${teamId}",${teamDetails(d)},"closed":false,"allowList":[]}`;
}

export function refereeJoinedTeamPayload(teamId: string, referee: string, at: string, epoch: number): string {
  return `{"teamId":"${teamId}","referee":"${referee}","joinedAt":"${at}","atEpoch":"${epoch}"}`;
}

/** `toTeamId` "" means the referee leaves every team. */
export function refereeSwitchedTeamPayload(fromTeamId: string, toTeamId: string, referee: string, at: string, epoch: number): string {
  return `{"fromTeamId":"${fromTeamId}","toTeamId":"${toTeamId}","referee":"${referee}","switchedAt":"${at}","atEpoch":"${epoch}"}`;
}

/** One team's entry of teamsStatsUpdated.stats; `members` are memberStat() texts. */
export function teamStatsEntry(teamId: string, members: string[]): string {
  return `{"teamId":"${teamId}","membersStats":[${members.join(',')}]}`;
}

export function memberStat(partyId: string, notionalVolume: string): string {
  return `{"partyId":"${partyId}","notionalVolume":"${notionalVolume}"}`;
}

export function teamsStatsUpdatedPayload(epoch: number, entries: string[]): string {
  return `{"atEpoch":"${epoch}","stats":[${entries.join(',')}]}`;
}

export interface TransferFields {
  id: string;
  from: string;
  amount: string;
  at: string;
  epoch: number;
  teamScoped: boolean;
}

/** A recurring transfer funding a game. */
export function gameTransferPayload(g: DemoGame, t: TransferFields): string {
  const scope = t.teamScoped
    ? `"entityScope":"ENTITY_SCOPE_TEAMS","windowLength":"${g.windowLength}","distributionStrategy":"${g.distribution}","nTopPerformers":"${g.nTopPerformers}"`
    : `"entityScope":"ENTITY_SCOPE_INDIVIDUALS","windowLength":"${g.windowLength}","distributionStrategy":"${g.distribution}","individualScope":"${g.individualScope}"`;
  return (
    `{"id":"${t.id}","from":"${t.from}","fromAccountType":"ACCOUNT_TYPE_GENERAL","to":"${ZERO_ID}",` +
    `"toAccountType":"${g.rewardType}","asset":"${g.asset.id}","amount":"${t.amount}","reference":"reward",` +
    `"status":"STATUS_PENDING","timestamp":"${t.at}","gameId":"${g.id}",` +
    `"recurring":{"startEpoch":"${t.epoch}","factor":"1","dispatchStrategy":{"assetForMetric":"${g.assetForMetric.id}",` +
    `"metric":"${g.metric}",${scope}}}}`
  );
}

export interface PayoutFields {
  party: string;
  epoch: string;
  asset: string;
  amount: string;
  percent: string;
  at: string;
  rewardType: string;
  lockedUntil: string;
  quantumAmount: string;
  gameId?: string | undefined;
}

export function rewardPayoutPayload(p: PayoutFields): string {
  const game = p.gameId === undefined ? '' : `,"gameId":"${p.gameId}"`;
  return (
    `{"party":"${p.party}","epochSeq":"${p.epoch}","asset":"${p.asset}","amount":"${p.amount}",` +
    `"percentOfTotalReward":"${p.percent}","timestamp":"${p.at}","rewardType":"${p.rewardType}",` +
    `"lockedUntilEpoch":"${p.lockedUntil}","quantumAmount":"${p.quantumAmount}"${game}}`
  );
}

export function assetPayload(a: DemoAsset): string {
  return `{"id":"${a.id}","details":{"name":${JSON.stringify(a.name)},"symbol":"${a.symbol}","decimals":"${a.decimals}","quantum":"1${'0'.repeat(a.quantumPlaces)}"},"status":"STATUS_ENABLED"}`;
}
