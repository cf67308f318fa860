// The deterministic synthetic chain ("demo"): Vega bus events as NDJSON, streamed in chunks.
//
// Per epoch e: a block with epochEvent START (and the first activity; in epoch 1 first an asset
// event per asset, with its symbol and decimals), activity blocks
// (referral sets and joins, teams, joins, switches and leaves, team updates, game transfers),
// then at the epoch's end a block with epochEvent END, teamsStatsUpdated (every current member
// of every team), the referral program's set and fee statistics (referral-program.ts; the
// program starts and is updated in START blocks) and the first reward payouts, followed by more
// payout blocks as needed.
// A final block starts epoch E+1. Every block is beginBlock, timeUpdate, events, events of the
// kinds epochview skips (other-kinds.ts), endBlock. With an `ourShare` below 1, quiet blocks
// (beginBlock, timeUpdate, other kinds, endBlock) go between those, as on a real chain, where
// most blocks carry no event of ours (quiet-blocks.ts).

import { once } from 'node:events';
import { createGzip } from 'node:zlib';

import { eventFileChunks, type DemoFormat } from './evts.js';
import { NdjsonBlockWriter } from './ndjson.js';
import {
  assetPayload,
  epochPayload,
  gameTransferPayload,
  memberStat,
  refereeJoinedReferralSetPayload,
  refereeJoinedTeamPayload,
  refereeSwitchedTeamPayload,
  referralSetCreatedPayload,
  rewardPayoutPayload,
  teamCreatedPayload,
  teamsStatsUpdatedPayload,
  teamStatsEntry,
  teamUpdatedPayload,
  type TeamDetails,
} from './payloads.js';
import { OtherKinds } from './other-kinds.js';
import { QuietSchedule, quietTimes } from './quiet-blocks.js';
import { IdCache, IdKind, IdSpace, Rng } from './random.js';
import { ReferralProgramModel, type SetsAtEnd } from './referral-program.js';
import { ReferralModel } from './referrals.js';
import {
  demoAssets,
  demoGames,
  GLOBAL_REWARD,
  pickAsset,
  pickNonGameRewardType,
  VALIDATOR_RANKING,
  type DemoAsset,
  type DemoGame,
} from './rewards.js';
import { DEMO_SCALES, isDemoScale, type DemoParams, type DemoScale } from './scales.js';
import { spreadOverEpochs } from './schedule.js';
import { TeamModel } from './teams.js';
import { ChainClock, notionalVolume, nsString, percentString, rewardAmount } from './values.js';

export interface DemoOptions {
  scale: DemoScale;
  seed: number;
  /**
   * The share of blocks carrying events of ours, in (0, 1] (default 1: every block is the
   * demo's): quiet blocks go between the demo's blocks (quiet-blocks.ts).
   */
  ourShare?: number;
  /** The mean of events of other kinds per block, besides those that come with events of ours (default: the real fixture's, 3.25). */
  otherEvents?: number;
}

export type { DemoScale } from './scales.js';

export const DEMO_CHAIN_ID = 'vega-demo-0001';
/**
 * Every chain ends around 2025-01-01T00:00:00Z: the first block is this many epochs earlier
 * (plus a few seconds per epoch for the epoch-end blocks).
 */
export const DEMO_END_SECONDS = 1_735_689_600;
/** Height of the first block. */
export const DEMO_FIRST_HEIGHT = 1;
/** Chunks are handed out once at least this many characters (= bytes, all ASCII) are ready. */
const CHUNK_CHARS = 64 * 1024;
const VALIDATORS = 30;

// Activity actions of an epoch: kind in the low 4 bits, argument above.
const CREATE_SETS = 0; // argument: how many sets in this action (1 or 2: same block, same createdAt)
const JOIN_SET = 1;
const SWITCH_SET = 2;
const CREATE_TEAM = 3;
const JOIN_TEAM = 4;
const SWITCH_TEAM = 5;
const LEAVE_TEAM = 6;
const UPDATE_TEAM = 7;
const GAME_TRANSFER = 8; // argument: game index

const TEAM_WORDS_A = [
  'Alpha',
  'Blue',
  'Crimson',
  'Delta',
  'Electric',
  'Frozen',
  'Golden',
  'Hidden',
  'Iron',
  'Jade',
  'Lunar',
  'Midnight',
  'Neon',
  'Onyx',
  'Quantum',
  'Rapid',
  'Silent',
  'Solar',
  'Velvet',
  'Wild',
];
const TEAM_WORDS_B = [
  'Bulls',
  'Bears',
  'Whales',
  'Falcons',
  'Foxes',
  'Makers',
  'Takers',
  'Wolves',
  'Sharks',
  'Owls',
  'Traders',
  'Lions',
  'Ravens',
  'Tigers',
  'Otters',
  'Comets',
  'Pilots',
  'Guild',
  'Syndicate',
  'Collective',
];

/** Yields the chain as NDJSON text chunks (each chunk one or more complete lines ending in "\n"). */
export function* demoChain(opts: DemoOptions): Generator<string> {
  yield* new DemoChainBuilder(opts).chunks();
}

/**
 * Writes the chain to a stream in `format` honouring backpressure; resolves with counts (bytes
 * as written, compressed for evts.gz). The stream is not ended (it may be stdout).
 */
export async function writeDemoChain(
  opts: DemoOptions,
  out: NodeJS.WritableStream,
  format: DemoFormat = 'ndjson',
): Promise<{ events: number; bytes: number; blocks: number; blocksWithOurs: number }> {
  const builder = new DemoChainBuilder(opts);
  const chunks = format === 'ndjson' ? builder.chunks() : eventFileChunks(builder.chunks());
  const gzip = format === 'evts.gz' ? createGzip() : undefined;
  const target = gzip ?? out;
  let bytes = 0;
  let failure: { error: unknown } | undefined;
  const onError = (error: unknown): void => {
    failure ??= { error };
  };
  out.on('error', onError);
  gzip?.on('error', onError);
  gzip?.on('data', (d: Buffer) => (bytes += d.length));
  gzip?.pipe(out, { end: false });
  try {
    for (const chunk of chunks) {
      if (failure) throw failure.error;
      if (!gzip) bytes += Buffer.byteLength(chunk);
      if (!target.write(chunk)) await once(target, 'drain');
    }
    if (gzip) {
      const flushed = once(gzip, 'end');
      gzip.end();
      await flushed;
    }
    if (failure) throw failure.error;
  } finally {
    out.off('error', onError);
  }
  return { events: builder.events, bytes, ...builder.blockCounts };
}

class DemoChainBuilder {
  private readonly p: DemoParams;
  private readonly rng: Rng;
  private readonly ids: IdSpace;
  private readonly w: NdjsonBlockWriter;
  private readonly clock: ChainClock;
  private readonly quiet: QuietSchedule;

  private readonly referrals: ReferralModel;
  private readonly program: ReferralProgramModel;
  private readonly teams: TeamModel;
  private readonly assets: DemoAsset[];
  private readonly games: DemoGame[];

  private readonly referrerIds: IdCache;
  private readonly setIds: IdCache;
  private readonly refereeIds: IdCache;
  private readonly teamIds: IdCache;
  private readonly memberIds: IdCache;
  private readonly traderIds: IdCache;
  private readonly validatorIds: IdCache;

  private readonly setsPerEpoch: Int32Array;
  private readonly refereesPerEpoch: Int32Array;
  private readonly setSwitchesPerEpoch: Int32Array;
  private readonly teamsPerEpoch: Int32Array;
  private readonly teamJoinsPerEpoch: Int32Array;

  private height = DEMO_FIRST_HEIGHT - 1;
  private blockTime = '';
  private epochTimes = { startTime: '', expireTime: '' };
  private txCount = 0;
  private transferCount = 0;

  constructor(opts: DemoOptions) {
    if (!isDemoScale(opts.scale)) throw new RangeError(`unknown demo scale ${JSON.stringify(opts.scale)}`);
    const p = DEMO_SCALES[opts.scale];
    this.p = p;
    this.rng = new Rng(opts.seed);
    this.w = new NdjsonBlockWriter(DEMO_CHAIN_ID, CHUNK_CHARS, new OtherKinds(opts.seed, opts.otherEvents));
    this.ids = new IdSpace(opts.seed);
    this.quiet = new QuietSchedule(opts.ourShare ?? 1);
    this.clock = new ChainClock(this.rng, DEMO_END_SECONDS - p.epochs * p.epochSeconds - 1);

    this.referrals = new ReferralModel(this.rng, p.referralSets, p.referees);
    this.teams = new TeamModel(this.rng, p.teams, p.teamMembers, p.teamSkew);
    this.assets = demoAssets(this.ids);
    this.games = demoGames(this.rng, this.ids, this.assets, p.games, p.epochs, p.teamGameShare);
    this.program = new ReferralProgramModel(opts.seed, this.ids, p.epochs, DEMO_END_SECONDS, this.assets[0]!.id);

    this.referrerIds = new IdCache(this.ids, IdKind.referrer, p.referralSets);
    this.setIds = new IdCache(this.ids, IdKind.referralSet, p.referralSets);
    this.refereeIds = new IdCache(this.ids, IdKind.referee, p.referees);
    this.teamIds = new IdCache(this.ids, IdKind.team, p.teams);
    this.memberIds = new IdCache(this.ids, IdKind.teamMember, p.teamMembers);
    this.traderIds = new IdCache(this.ids, IdKind.trader, p.otherParties);
    this.validatorIds = new IdCache(this.ids, IdKind.validator, VALIDATORS);

    const E = p.epochs;
    this.setsPerEpoch = spreadOverEpochs(this.rng, p.referralSets, E, { inFirstEpoch: Math.ceil(p.referralSets * 0.02) });
    this.refereesPerEpoch = spreadOverEpochs(this.rng, p.referees, E);
    this.setSwitchesPerEpoch = spreadOverEpochs(this.rng, p.refereeSwitches, E, { from: 2 });
    // Teams appear over the first 80% of the chain, a few of them (the big ones) in epoch 1.
    this.teamsPerEpoch = spreadOverEpochs(this.rng, p.teams, E, {
      inFirstEpoch: Math.max(1, Math.ceil(p.teams * 0.02)),
      to: Math.max(1, Math.floor(E * 0.8)),
    });
    this.teamJoinsPerEpoch = spreadOverEpochs(this.rng, p.teamMembers - p.teams, E);
  }

  /** The chain's blocks and those carrying events of ours, so far. */
  get blockCounts(): { blocks: number; blocksWithOurs: number } {
    const { blocks, withOurs } = this.quiet.counts;
    return { blocks, blocksWithOurs: withOurs };
  }

  /** Events handed out so far (all of them once chunks() is exhausted). */
  get events(): number {
    return this.w.takenEvents;
  }

  *chunks(): Generator<string> {
    for (let e = 1; e <= this.p.epochs; e++) yield* this.epoch(e);
    // The chain goes on: epoch E+1 starts.
    this.openBlock(this.clock.sec + 1);
    this.startEpoch(this.p.epochs + 1);
    for (const [key, payload] of this.program.startEvents(this.p.epochs + 1, this.blockTime)) this.w.event(key, payload);
    this.endBlock();
    yield this.w.take();
  }

  private *epoch(e: number): Generator<string> {
    const actions = this.planEpoch(e);
    const groups = this.groupActions(actions);

    // START block, carrying the first group of actions.
    const startSec = this.clock.sec + 1;
    this.openBlock(startSec);
    const startSecActual = this.clock.sec;
    this.startEpoch(e);
    if (e === 1) for (const asset of this.assets) this.w.event('asset', assetPayload(asset));
    for (const [key, payload] of this.program.startEvents(e, this.blockTime)) this.w.event(key, payload);
    const { startTime, expireTime } = this.epochTimes;
    const spacing = Math.max(1, Math.floor(this.p.epochSeconds / (groups.length + 1)));
    for (let g = 0; g < groups.length; g++) {
      if (g > 0) {
        this.endBlock();
        this.openBlock(startSecActual + g * spacing);
      }
      for (const action of groups[g] as number[]) this.perform(action, e);
      if (this.w.ready) yield this.w.take();
    }
    this.endBlock();

    // END block: just after expireTime.
    this.openBlock(startSecActual + this.p.epochSeconds + 1);
    this.w.event('epochEvent', epochPayload(e, 'END', startTime, expireTime, this.blockTime));
    this.w.event('teamsStatsUpdated', this.teamsStats(e));
    for (const [key, payload] of this.program.endEvents(e, this.setsAtEnd())) this.w.event(key, payload);
    if (this.w.ready) yield this.w.take();
    yield* this.payouts(e);
    this.endBlock();
    if (this.w.ready) yield this.w.take();
  }

  /** Closes one of the demo's blocks (beginBlock and timeUpdate are its first two events). */
  private endBlock(): void {
    this.quiet.closed(this.w.blockEvents > 2);
    this.w.endBlock();
  }

  private startEpoch(e: number): void {
    const startTime = this.blockTime;
    const expireTime = nsString(this.clock.sec + this.p.epochSeconds, this.clock.nanos);
    this.epochTimes = { startTime, expireTime };
    this.w.event('epochEvent', epochPayload(e, 'START', startTime, expireTime, '0'));
  }

  private openBlock(sec: number): void {
    const previous = this.blockTime;
    this.blockTime = this.clock.moveTo(sec);
    const quiet = this.quiet.before();
    // Their other events come from OtherKinds' own random stream: the demo's events are the same whatever the share.
    for (const time of quiet > 0 ? quietTimes(previous, this.blockTime, quiet) : []) {
      this.height++;
      this.w.beginBlock(this.height, time, this.ids.upperHex(IdKind.block, this.height));
      this.w.endBlock();
    }
    this.height++;
    this.w.beginBlock(this.height, this.blockTime, this.ids.upperHex(IdKind.block, this.height));
  }

  private txHash(): string {
    return this.ids.upperHex(IdKind.tx, this.txCount++);
  }

  // ---- activity ----------------------------------------------------------------------------

  private planEpoch(e: number): number[] {
    const p = this.p;
    const rng = this.rng;
    const actions: number[] = [];
    let sets = this.setsPerEpoch[e] as number;
    while (sets > 0) {
      const n = sets >= 2 && rng.chance(0.1) ? 2 : 1;
      actions.push(CREATE_SETS | (n << 4));
      sets -= n;
    }
    pushTimes(actions, JOIN_SET, this.refereesPerEpoch[e] as number);
    pushTimes(actions, SWITCH_SET, this.setSwitchesPerEpoch[e] as number);
    pushTimes(actions, CREATE_TEAM, this.teamsPerEpoch[e] as number);
    pushTimes(actions, JOIN_TEAM, this.teamJoinsPerEpoch[e] as number);
    const movable = this.teams.movableMembers;
    pushTimes(actions, LEAVE_TEAM, rng.round(movable / p.meanTenureEpochs));
    pushTimes(actions, SWITCH_TEAM, rng.round(movable * p.teamSwitchRate));
    pushTimes(actions, UPDATE_TEAM, rng.round(this.teams.teams * p.teamUpdateRate));
    for (const g of this.games) {
      if (g.startEpoch === e || (g.startEpoch < e && rng.chance(p.gameRenewRate))) {
        actions.push(GAME_TRANSFER | (g.index << 4));
      }
    }
    rng.shuffle(actions);
    // Nothing to join yet: creations go first (sort is stable).
    if (this.referrals.sets === 0 || this.teams.teams === 0) {
      const first = (a: number): number => ((a & 15) === CREATE_SETS || (a & 15) === CREATE_TEAM ? 0 : 1);
      actions.sort((a, b) => first(a) - first(b));
    }
    return actions;
  }

  /** Splits the epoch's actions into blocks of 1..maxBlockActions actions. */
  private groupActions(actions: number[]): number[][] {
    const groups: number[][] = [];
    for (let i = 0; i < actions.length; ) {
      const n = this.rng.range(1, this.p.maxBlockActions);
      groups.push(actions.slice(i, i + n));
      i += n;
    }
    if (groups.length === 0) groups.push([]);
    return groups;
  }

  private perform(action: number, e: number): void {
    const at = this.blockTime;
    const arg = action >>> 4;
    switch (action & 15) {
      case CREATE_SETS:
        for (let i = 0; i < arg; i++) {
          const set = this.referrals.createSet();
          this.w.event('referralSetCreated', referralSetCreatedPayload(this.setIds.get(set), this.referrerIds.get(set), at), this.txHash());
        }
        return;
      case JOIN_SET:
      case SWITCH_SET: {
        const j = (action & 15) === JOIN_SET ? this.referrals.joinNew() : this.referrals.switchRandom();
        if (j === undefined) return;
        this.w.event(
          'refereeJoinedReferralSet',
          refereeJoinedReferralSetPayload(this.setIds.get(j.set), this.refereeIds.get(j.referee), at, e),
          this.txHash(),
        );
        return;
      }
      case CREATE_TEAM: {
        if (!this.teams.canCreateTeam) return;
        const { team, creator } = this.teams.createTeam();
        const teamId = this.teamIds.get(team);
        this.w.event(
          'teamCreated',
          teamCreatedPayload(teamId, this.memberIds.get(creator), this.teamDetails(teamId), at, e),
          this.txHash(),
        );
        return;
      }
      case JOIN_TEAM: {
        const j = this.teams.joinNew();
        if (j === undefined) return;
        this.w.event(
          'refereeJoinedTeam',
          refereeJoinedTeamPayload(this.teamIds.get(j.team), this.memberIds.get(j.member), at, e),
          this.txHash(),
        );
        return;
      }
      case SWITCH_TEAM: {
        const s = this.teams.switchRandom();
        if (s === undefined) return;
        this.w.event(
          'refereeSwitchedTeam',
          refereeSwitchedTeamPayload(this.teamIds.get(s.from), this.teamIds.get(s.to), this.memberIds.get(s.member), at, e),
          this.txHash(),
        );
        return;
      }
      case LEAVE_TEAM: {
        const l = this.teams.leaveRandom();
        if (l === undefined) return;
        this.w.event(
          'refereeSwitchedTeam',
          refereeSwitchedTeamPayload(this.teamIds.get(l.from), '', this.memberIds.get(l.member), at, e),
          this.txHash(),
        );
        return;
      }
      case UPDATE_TEAM: {
        if (this.teams.teams === 0) return;
        const teamId = this.teamIds.get(this.rng.int(this.teams.teams));
        this.w.event('teamUpdated', teamUpdatedPayload(teamId, this.teamDetails(teamId)), this.txHash());
        return;
      }
      case GAME_TRANSFER: {
        const g = this.games[arg] as DemoGame;
        if (!g.started) g.started = true;
        else if (this.rng.chance(this.p.scopeFlipShare)) g.teamScoped = !g.teamScoped;
        const amount = String(this.rng.range(1, 500)) + '0'.repeat(g.asset.quantumPlaces + 3);
        const from = this.traderIds.get(this.rng.int(this.p.otherParties));
        const id = this.ids.hex(IdKind.transfer, this.transferCount++);
        this.w.event('transfer', gameTransferPayload(g, { id, from, amount, at, epoch: e, teamScoped: g.teamScoped }), this.txHash());
        return;
      }
      default:
        throw new Error(`unknown demo action ${action}`);
    }
  }

  private teamDetails(teamId: string): TeamDetails {
    const rng = this.rng;
    let name = `${rng.pick(TEAM_WORDS_A)} ${rng.pick(TEAM_WORDS_B)}`;
    if (rng.chance(0.4)) name += ` ${rng.range(2, 999)}`;
    const slug = teamId.slice(0, 8);
    const details: TeamDetails = { name };
    if (rng.chance(0.9)) details.teamUrl = `https://example.com/teams/${slug}`;
    if (rng.chance(0.8)) details.avatarUrl = `https://example.com/avatars/${slug}.png`;
    return details;
  }

  // ---- epoch end -------------------------------------------------------------------------------

  private setsAtEnd(): SetsAtEnd {
    return {
      sets: this.referrals.sets,
      referees: this.referrals.referees,
      currentSets: this.referrals.currentSets,
      setId: (set) => this.setIds.get(set),
      referrer: (set) => this.referrerIds.get(set),
      referee: (r) => this.refereeIds.get(r),
    };
  }

  /** teamsStatsUpdated: every current member of every team, teams in creation order. */
  private teamsStats(e: number): string {
    const entries: string[] = [];
    for (let t = 0; t < this.teams.teams; t++) {
      const members = this.teams.roster(t).map((m) => memberStat(this.memberIds.get(m), notionalVolume(this.rng)));
      entries.push(teamStatsEntry(this.teamIds.get(t), members));
    }
    return teamsStatsUpdatedPayload(e, entries);
  }

  private *payouts(e: number): Generator<string> {
    const p = this.p;
    const rng = this.rng;
    const total = rng.round(p.payoutsPerEpoch * (0.75 + 0.5 * rng.float()));
    const active = this.games.filter((g) => g.started);
    let paid = 0;
    if (active.length > 0) {
      const perGame = (total * p.gamePayoutShare) / active.length;
      for (const g of active) {
        const quota = Math.max(1, rng.round(perGame * (0.5 + rng.float())));
        paid += yield* this.gamePayouts(g, quota, e);
      }
    }
    const epoch = String(e);
    const lockedUntil = String(e + 1);
    for (; paid < total; paid++) {
      const rewardType = pickNonGameRewardType(rng);
      const party =
        rewardType === VALIDATOR_RANKING
          ? this.validatorIds.get(rng.int(VALIDATORS))
          : rewardType === GLOBAL_REWARD && rng.chance(0.5)
            ? this.traderIds.get(rng.int(p.otherParties))
            : this.randomParty();
      this.payout(party, epoch, pickAsset(rng, this.assets), rewardType, lockedUntil, undefined);
      if (this.w.ready) yield this.w.take();
    }
  }

  /**
   * Rewards of one game. Team-scoped: members of teams picked by popularity (big teams win
   * more often), and now and then one party outside any team. Individual: anyone.
   */
  private *gamePayouts(g: DemoGame, quota: number, e: number): Generator<string, number> {
    const rng = this.rng;
    const epoch = String(e);
    const lockedUntil = String(e + g.windowLength);
    let paid = 0;
    if (g.teamScoped && this.teams.teams > 0) {
      const picked = new Set<number>();
      for (let tries = 0; paid < quota && tries < 40; tries++) {
        const team = this.teams.pickTeam();
        if (picked.has(team)) continue;
        picked.add(team);
        const roster = this.teams.roster(team);
        const offset = rng.int(roster.length);
        for (let k = 0; k < roster.length && paid < quota; k++, paid++) {
          const member = roster[(offset + k) % roster.length] as number;
          this.payout(this.memberIds.get(member), epoch, g.asset, g.rewardType, lockedUntil, g.id);
          if (this.w.ready) yield this.w.take();
        }
      }
      if (rng.chance(0.2)) {
        this.payout(this.randomParty(), epoch, g.asset, g.rewardType, lockedUntil, g.id);
        paid++;
      }
      return paid;
    }
    for (; paid < quota; paid++) {
      this.payout(this.randomParty(), epoch, g.asset, g.rewardType, lockedUntil, g.id);
      if (this.w.ready) yield this.w.take();
    }
    return paid;
  }

  /** One rewardPayout, in a new block once the current one holds payoutsPerBlock payouts. */
  private payout(
    party: string,
    epoch: string,
    asset: DemoAsset,
    rewardType: string,
    lockedUntil: string,
    gameId: string | undefined,
  ): void {
    if (this.w.blockEvents >= this.p.payoutsPerBlock + 2) {
      this.endBlock();
      this.openBlock(this.clock.sec + 1);
    }
    const { amount, quantumAmount } = rewardAmount(this.rng, asset.quantumPlaces);
    this.w.event(
      'rewardPayout',
      rewardPayoutPayload({
        party,
        epoch,
        asset: asset.id,
        amount,
        percent: percentString(this.rng),
        at: this.blockTime,
        rewardType,
        lockedUntil,
        quantumAmount,
        gameId,
      }),
    );
  }

  /** Any known party: referees, team members (past or present), referrers, other traders. */
  private randomParty(): string {
    const rng = this.rng;
    const r = rng.float();
    if (r < 0.45 && this.referrals.referees > 0) return this.refereeIds.get(rng.int(this.referrals.referees));
    if (r < 0.65 && this.teams.membersEver > 0) return this.memberIds.get(rng.int(this.teams.membersEver));
    if (r < 0.72 && this.referrals.sets > 0) return this.referrerIds.get(rng.int(this.referrals.sets));
    return this.traderIds.get(rng.int(this.p.otherParties));
  }
}

function pushTimes(actions: number[], action: number, n: number): void {
  for (let i = 0; i < n; i++) actions.push(action);
}
