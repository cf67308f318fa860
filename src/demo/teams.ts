// In-memory model of teams: who is in which team right now. teamsStatsUpdated, switches and
// game winners are all read from it, so the events stay consistent with each other.

import { quarterPower, type Rng } from './random.js';

export class TeamModel {
  /** Teams created so far (team index = creation order). */
  teams = 0;
  /** Members allocated so far (member index = order of first appearance). */
  membersEver = 0;

  /** Zipf popularity by creation rank, as prefix sums over all possible teams. */
  private readonly cumulative: Float64Array;
  /** Current members of each team, in a stable but arbitrary order. */
  private readonly rosters: number[][] = [];
  private readonly memberTeam: Int32Array;
  private readonly rosterPos: Int32Array;
  /** Current members that may switch or leave (everyone but team creators). */
  private readonly movable: Int32Array;
  private readonly movablePos: Int32Array;
  private movableCount = 0;

  constructor(
    private readonly rng: Rng,
    maxTeams: number,
    maxMembers: number,
    skew: number,
  ) {
    this.cumulative = new Float64Array(maxTeams);
    let sum = 0;
    for (let t = 0; t < maxTeams; t++) {
      sum += 1 / quarterPower(t + 1, skew);
      this.cumulative[t] = sum;
    }
    this.memberTeam = new Int32Array(maxMembers).fill(-1);
    this.rosterPos = new Int32Array(maxMembers).fill(-1);
    this.movable = new Int32Array(maxMembers);
    this.movablePos = new Int32Array(maxMembers).fill(-1);
  }

  /** Current members that may switch or leave. */
  get movableMembers(): number {
    return this.movableCount;
  }

  get canCreateTeam(): boolean {
    return this.teams < this.cumulative.length && this.membersEver < this.memberTeam.length;
  }

  get canAddMember(): boolean {
    return this.membersEver < this.memberTeam.length;
  }

  /** A new team; its creator (a new member) is its first member and never leaves. */
  createTeam(): { team: number; creator: number } {
    if (!this.canCreateTeam) throw new Error('team capacity exceeded');
    const team = this.teams++;
    this.rosters.push([]);
    const creator = this.membersEver++;
    this.add(creator, team);
    return { team, creator };
  }

  /** A new member joins a team picked by popularity; undefined if impossible. */
  joinNew(): { member: number; team: number } | undefined {
    if (this.teams === 0 || !this.canAddMember) return undefined;
    const member = this.membersEver++;
    const team = this.pickTeam();
    this.add(member, team);
    this.addMovable(member);
    return { member, team };
  }

  /** A random current joiner moves to another team; undefined if impossible. */
  switchRandom(): { member: number; from: number; to: number } | undefined {
    if (this.teams < 2 || this.movableCount === 0) return undefined;
    const member = this.movable[this.rng.int(this.movableCount)] as number;
    const from = this.memberTeam[member] as number;
    let to = this.pickTeam();
    for (let tries = 0; to === from && tries < 8; tries++) to = this.pickTeam();
    if (to === from) to = (from + 1) % this.teams;
    this.remove(member);
    this.add(member, to);
    return { member, from, to };
  }

  /** A random current joiner leaves every team; undefined if impossible. */
  leaveRandom(): { member: number; from: number } | undefined {
    if (this.movableCount === 0) return undefined;
    const member = this.movable[this.rng.int(this.movableCount)] as number;
    const from = this.memberTeam[member] as number;
    this.remove(member);
    this.removeMovable(member);
    return { member, from };
  }

  /** The team a member is in now, or -1. */
  teamOf(member: number): number {
    return this.memberTeam[member] ?? -1;
  }

  /** Current members of a team (do not modify). */
  roster(team: number): readonly number[] {
    return this.rosters[team] ?? [];
  }

  /** A team picked by popularity among those created. */
  pickTeam(): number {
    return this.rng.weighted(this.cumulative, this.teams);
  }

  private add(member: number, team: number): void {
    const roster = this.rosters[team] as number[];
    this.memberTeam[member] = team;
    this.rosterPos[member] = roster.length;
    roster.push(member);
  }

  private remove(member: number): void {
    const team = this.memberTeam[member] as number;
    const roster = this.rosters[team] as number[];
    const pos = this.rosterPos[member] as number;
    const last = roster.pop() as number;
    if (last !== member) {
      roster[pos] = last;
      this.rosterPos[last] = pos;
    }
    this.memberTeam[member] = -1;
    this.rosterPos[member] = -1;
  }

  private addMovable(member: number): void {
    this.movablePos[member] = this.movableCount;
    this.movable[this.movableCount++] = member;
  }

  private removeMovable(member: number): void {
    const pos = this.movablePos[member] as number;
    const last = this.movable[--this.movableCount] as number;
    this.movable[pos] = last;
    this.movablePos[last] = pos;
    this.movablePos[member] = -1;
  }
}
