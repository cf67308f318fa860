import type { Queryable } from '../../db/store.js';
import { Overlay, type EventHandlers, type EventOf, type OverlayReader, type Projection, toMicros } from './projection.js';

/** A party's current team. */
export interface Membership {
  teamId: string;
  joinedAt: bigint;
  atEpoch: bigint;
}

/** A team's row: its creation event's fields; its details as the latest update left them. */
type TeamRow = Omit<EventOf<'teamCreated'>, 'kind' | 'teamId'>;
type TeamDetails = Omit<EventOf<'teamUpdated'>, 'kind' | 'teamId'>;

/**
 * Teams with their details, and each party's current team (teams, team_members). No team event
 * reads the membership it replaces, so the overlay preloads only the parties other projections
 * ask about (team statistics: a reward's party at payout time).
 */
export class Teams implements Projection {
  readonly model = 'teams';
  private readonly membership = new Overlay({
    table: 'team_members',
    key: 'party',
    columns: `encode(team_id, 'hex') AS team_id, joined_at::text, at_epoch::text`,
    value: (r: { team_id: string; joined_at: string; at_epoch: string }): Membership => ({
      teamId: r.team_id,
      joinedAt: BigInt(r.joined_at),
      atEpoch: BigInt(r.at_epoch),
    }),
  });
  /** Each party's team as this batch's events have left it so far. */
  readonly teamOf: OverlayReader<Membership> = this.membership;
  private readonly newTeams = new Map<string, TeamRow>();
  private readonly teamUpdates = new Map<string, TeamDetails>();
  /** Each party's membership history changed by this batch (see History). */
  private readonly history = new Map<string, History>();

  /** A party's history as this batch's events leave it: `reset` when they erase what is stored. */
  private historyOf(party: string, reset: boolean): History {
    let h = this.history.get(party);
    if (!h) {
      h = { reset, joins: new Map() };
      this.history.set(party, h);
    } else if (reset) {
      h.reset = true;
      h.joins.clear();
    }
    return h;
  }

  readonly folds: EventHandlers = {
    teamCreated: (e) => {
      // Times are kept truncated to microseconds, as the reference stores them (and as ListTeams' cursor compares them).
      const createdAt = toMicros(e.createdAt);
      if (!this.newTeams.has(e.teamId)) {
        const { kind: _k, teamId: _t, ...row } = e;
        this.newTeams.set(e.teamId, { ...row, createdAt });
      }
      this.membership.set(e.referrer, { teamId: e.teamId, joinedAt: createdAt, atEpoch: e.atEpoch });
      // Creating a team erases the creator's earlier history (family.md §5.6, kept).
      this.historyOf(e.referrer, true).joins.set(e.atEpoch, { teamId: e.teamId, joinedAt: createdAt });
    },
    teamUpdated: (e) => {
      const { kind: _k, teamId: _t, ...details } = e;
      const created = this.newTeams.get(e.teamId);
      if (created) Object.assign(created, details);
      else this.teamUpdates.set(e.teamId, details);
    },
    refereeJoinedTeam: (e) => {
      const joinedAt = toMicros(e.joinedAt);
      this.membership.set(e.referee, { teamId: e.teamId, joinedAt, atEpoch: e.atEpoch });
      this.historyOf(e.referee, false).joins.set(e.atEpoch, { teamId: e.teamId, joinedAt });
    },
    refereeSwitchedTeam: (e) => {
      const joinedAt = toMicros(e.switchedAt);
      this.membership.set(e.referee, e.toTeamId === '' ? undefined : { teamId: e.toTeamId, joinedAt, atEpoch: e.atEpoch });
      // Removed from a closed team's allow list: the party's whole history goes (family.md §5.6, kept).
      if (e.toTeamId === '') this.historyOf(e.referee, true);
      else this.historyOf(e.referee, false).joins.set(e.atEpoch, { teamId: e.toTeamId, joinedAt });
    },
  };

  preload(tx: Queryable): Promise<void> {
    return this.membership.preload(tx);
  }

  async write(tx: Queryable): Promise<void> {
    if (this.newTeams.size > 0) {
      const ids = [...this.newTeams.keys()];
      const t = [...this.newTeams.values()];
      await tx.query(
        `INSERT INTO teams (id, referrer, name, team_url, avatar_url, created_at, closed, at_epoch, allow_list)
         SELECT decode(i, 'hex'), decode(r, 'hex'), n, tu, au, c, cl, e, string_to_array(al, ',')
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int8[], $7::bool[], $8::int8[], $9::text[])
             AS u(i, r, n, tu, au, c, cl, e, al)
         ON CONFLICT (id) DO NOTHING`,
        [
          ids,
          t.map((x) => x.referrer),
          t.map((x) => x.name),
          t.map((x) => x.teamUrl),
          t.map((x) => x.avatarUrl),
          t.map((x) => String(x.createdAt)),
          t.map((x) => x.closed),
          t.map((x) => String(x.atEpoch)),
          t.map((x) => x.allowList.join(',')),
        ],
      );
    }
    if (this.teamUpdates.size > 0) {
      const ids = [...this.teamUpdates.keys()];
      const t = [...this.teamUpdates.values()];
      await tx.query(
        `UPDATE teams SET name = u.n, team_url = u.tu, avatar_url = u.au, closed = u.cl, allow_list = string_to_array(u.al, ',')
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bool[], $6::text[]) AS u(i, n, tu, au, cl, al)
          WHERE teams.id = decode(u.i, 'hex')`,
        [
          ids,
          t.map((x) => x.name),
          t.map((x) => x.teamUrl),
          t.map((x) => x.avatarUrl),
          t.map((x) => x.closed),
          t.map((x) => x.allowList.join(',')),
        ],
      );
    }
    const changed = [...this.membership.changed];
    const joined = changed.filter((p) => this.membership.get(p));
    const left = changed.filter((p) => !this.membership.get(p));
    if (joined.length > 0) {
      const m = joined.map((p) => this.membership.get(p)!);
      await tx.query(
        `INSERT INTO team_members (party, team_id, joined_at, at_epoch)
         SELECT decode(p, 'hex'), decode(t, 'hex'), j, e FROM unnest($1::text[], $2::text[], $3::int8[], $4::int8[]) AS u(p, t, j, e)
         ON CONFLICT (party) DO UPDATE SET team_id = excluded.team_id, joined_at = excluded.joined_at, at_epoch = excluded.at_epoch`,
        [joined, m.map((x) => x.teamId), m.map((x) => String(x.joinedAt)), m.map((x) => String(x.atEpoch))],
      );
    }
    if (left.length > 0) {
      await tx.query(`DELETE FROM team_members WHERE party IN (SELECT decode(x, 'hex') FROM unnest($1::text[]) AS x)`, [left]);
    }
    await this.writeHistory(tx);
  }

  /** team_membership_history: the erased parties' rows deleted, then each join upserted (one row per party and epoch). */
  private async writeHistory(tx: Queryable): Promise<void> {
    if (this.history.size === 0) return;
    const reset = [...this.history].filter(([, h]) => h.reset).map(([party]) => party);
    if (reset.length > 0) {
      await tx.query(`DELETE FROM team_membership_history WHERE party IN (SELECT decode(x, 'hex') FROM unnest($1::text[]) AS x)`, [reset]);
    }
    const joins = [...this.history].flatMap(([party, h]) => [...h.joins].map(([epoch, j]) => ({ party, epoch, ...j })));
    if (joins.length === 0) return;
    await tx.query(
      `INSERT INTO team_membership_history (party, joined_at_epoch, team_id, joined_at)
       SELECT decode(p, 'hex'), e, decode(t, 'hex'), j FROM unnest($1::text[], $2::int8[], $3::text[], $4::int8[]) AS u(p, e, t, j)
       ON CONFLICT (party, joined_at_epoch) DO UPDATE SET team_id = excluded.team_id, joined_at = excluded.joined_at`,
      [joins.map((x) => x.party), joins.map((x) => String(x.epoch)), joins.map((x) => x.teamId), joins.map((x) => String(x.joinedAt))],
    );
  }
}

/** A party's membership history in a batch: the joins by epoch (the later event wins), after erasing the stored rows when `reset`. */
interface History {
  reset: boolean;
  joins: Map<bigint, { teamId: string; joinedAt: bigint }>;
}
