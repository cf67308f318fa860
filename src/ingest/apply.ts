import type { Queryable } from '../db/store.js';
import type { Block } from './blocks.js';
import type { ChainEvent } from '../sources/events.js';

/**
 * Applies a batch of whole blocks to the read models inside the caller's transaction.
 *
 * Events are folded in order over an in-memory overlay of the state they read (each referee's
 * current set, each party's team, each game's scope), preloaded for just the keys this batch
 * touches; the resulting changes are then written with one bulk statement per table. That is
 * what makes catching up fast, and it gives the same result as applying events one by one.
 */
export async function applyBlocks(tx: Queryable, blocks: readonly Block[]): Promise<void> {
  const batch = new BatchChanges();
  await batch.preload(tx, blocks);
  for (const block of blocks) for (const e of block.events) batch.apply(e);
  const last = blocks[blocks.length - 1];
  if (last) await batch.write(tx, last);
}

/** Events applied per kind and skipped per type, summed over the blocks. */
export function countEvents(blocks: readonly Block[]): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (k: string, n: number) => counts.set(k, (counts.get(k) ?? 0) + n);
  for (const b of blocks) {
    for (const e of b.events) add(e.kind, 1);
    for (const [type, n] of b.skipped) add(`skipped:${type}`, n);
  }
  return counts;
}

interface RefereeState {
  setId: string;
  atEpoch: bigint;
  joinedAt: bigint;
}
interface MembershipState {
  teamId: string;
  joinedAt: bigint;
  atEpoch: bigint;
}
interface TeamRow {
  referrer: string;
  name: string;
  teamUrl: string | null;
  avatarUrl: string | null;
  createdAt: bigint;
  closed: boolean;
  atEpoch: bigint;
  allowList: string[];
}
interface StatsDelta {
  teamId: string;
  party: string;
  epoch: bigint;
  /** Set by team statistics (last one wins); null when only rewards touched the row. */
  volume: bigint | null;
  rewards: bigint;
  games: Set<string>;
}

/** Truncates Unix ns to whole microseconds, as the reference stores timestamps. */
const toMicros = (ns: bigint) => ns - (ns % 1000n);

class BatchChanges {
  // State read by later events, preloaded then updated in order.
  private referees = new Map<string, RefereeState | undefined>();
  private memberships = new Map<string, MembershipState | null>();
  private gameScopes = new Map<string, boolean | undefined>();

  // Changes to write.
  private newSets = new Map<string, { referrer: string; createdAt: bigint; updatedAt: bigint }>();
  private changedReferees = new Set<string>();
  private setDeltas = new Map<string, bigint>();
  private newTeams = new Map<string, TeamRow>();
  private teamUpdates = new Map<string, Omit<TeamRow, 'referrer' | 'createdAt' | 'atEpoch'>>();
  private changedMemberships = new Set<string>();
  private changedGames = new Set<string>();
  private stats = new Map<string, StatsDelta>();
  private summaries = new Map<string, { epoch: bigint; asset: string; rewardType: string; amount: bigint }>();
  private lastEndedEpoch: bigint | null = null;

  async preload(tx: Queryable, blocks: readonly Block[]): Promise<void> {
    const referees = new Set<string>();
    const parties = new Set<string>();
    const games = new Set<string>();
    for (const b of blocks) {
      for (const e of b.events) {
        switch (e.kind) {
          case 'refereeJoinedReferralSet':
            referees.add(e.referee);
            break;
          case 'teamCreated':
            parties.add(e.referrer);
            break;
          case 'refereeJoinedTeam':
          case 'refereeSwitchedTeam':
            parties.add(e.referee);
            break;
          case 'transfer':
            if (e.gameId !== null) games.add(e.gameId);
            break;
          case 'rewardPayout':
            if (e.gameId !== null) {
              games.add(e.gameId);
              parties.add(e.party);
            }
            break;
        }
      }
    }
    if (referees.size > 0) {
      for (const id of referees) this.referees.set(id, undefined);
      const rows = await tx.query<{ referee: string; set_id: string; at_epoch: string; joined_at: string }>(
        `SELECT encode(referee, 'hex') AS referee, encode(set_id, 'hex') AS set_id, at_epoch::text, joined_at::text
           FROM referral_set_referees WHERE referee IN (SELECT decode(x, 'hex') FROM unnest($1::text[]) AS x)`,
        [[...referees]],
      );
      for (const r of rows) this.referees.set(r.referee, { setId: r.set_id, atEpoch: BigInt(r.at_epoch), joinedAt: BigInt(r.joined_at) });
    }
    if (parties.size > 0) {
      for (const id of parties) this.memberships.set(id, null);
      const rows = await tx.query<{ party: string; team_id: string; joined_at: string; at_epoch: string }>(
        `SELECT encode(party, 'hex') AS party, encode(team_id, 'hex') AS team_id, joined_at::text, at_epoch::text
           FROM team_members WHERE party IN (SELECT decode(x, 'hex') FROM unnest($1::text[]) AS x)`,
        [[...parties]],
      );
      for (const r of rows) this.memberships.set(r.party, { teamId: r.team_id, joinedAt: BigInt(r.joined_at), atEpoch: BigInt(r.at_epoch) });
    }
    if (games.size > 0) {
      for (const id of games) this.gameScopes.set(id, undefined);
      const rows = await tx.query<{ game_id: string; team_scoped: boolean }>(
        `SELECT encode(game_id, 'hex') AS game_id, team_scoped
           FROM game_scopes WHERE game_id IN (SELECT decode(x, 'hex') FROM unnest($1::text[]) AS x)`,
        [[...games]],
      );
      for (const r of rows) this.gameScopes.set(r.game_id, r.team_scoped);
    }
  }

  apply(e: ChainEvent): void {
    switch (e.kind) {
      case 'referralSetCreated':
        // A set is created once; a repeated creation keeps the first.
        if (!this.newSets.has(e.setId)) {
          this.newSets.set(e.setId, { referrer: e.referrer, createdAt: toMicros(e.createdAt), updatedAt: toMicros(e.updatedAt) });
        }
        break;
      case 'refereeJoinedReferralSet': {
        const current = this.referees.get(e.referee);
        // The current set is the latest join by epoch; on a tie the later event wins.
        if (current && e.atEpoch < current.atEpoch) break;
        if (current?.setId !== e.setId) {
          if (current) this.addSetDelta(current.setId, -1n);
          this.addSetDelta(e.setId, 1n);
        }
        this.referees.set(e.referee, { setId: e.setId, atEpoch: e.atEpoch, joinedAt: e.joinedAt });
        this.changedReferees.add(e.referee);
        break;
      }
      case 'teamCreated':
        if (!this.newTeams.has(e.teamId)) {
          const { kind: _k, teamId: _t, ...row } = e;
          this.newTeams.set(e.teamId, row);
        }
        this.setMembership(e.referrer, { teamId: e.teamId, joinedAt: e.createdAt, atEpoch: e.atEpoch });
        break;
      case 'teamUpdated': {
        const { kind: _k, teamId: _t, ...details } = e;
        const created = this.newTeams.get(e.teamId);
        if (created) Object.assign(created, details);
        else this.teamUpdates.set(e.teamId, details);
        break;
      }
      case 'refereeJoinedTeam':
        this.setMembership(e.referee, { teamId: e.teamId, joinedAt: e.joinedAt, atEpoch: e.atEpoch });
        break;
      case 'refereeSwitchedTeam':
        this.setMembership(e.referee, e.toTeamId === '' ? null : { teamId: e.toTeamId, joinedAt: e.switchedAt, atEpoch: e.atEpoch });
        break;
      case 'teamsStatsUpdated':
        for (const team of e.stats) {
          for (const m of team.members) this.statsRow(team.teamId, m.partyId, e.atEpoch).volume = m.volume;
        }
        this.noteEndedEpoch(e.atEpoch);
        break;
      case 'transfer':
        // Only recurring transfers define a game's scope; the latest one wins.
        if (e.gameId !== null && e.recurringTeamScoped !== null) {
          this.gameScopes.set(e.gameId, e.recurringTeamScoped);
          this.changedGames.add(e.gameId);
        }
        break;
      case 'rewardPayout': {
        const key = `${e.epoch}/${e.asset}/${e.rewardType}`;
        const summary = this.summaries.get(key);
        if (summary) summary.amount += e.amount;
        else this.summaries.set(key, { epoch: e.epoch, asset: e.asset, rewardType: e.rewardType, amount: e.amount });
        // Counted for teams: a team-scoped game, and the party in a team at payout time.
        if (e.gameId === null || this.gameScopes.get(e.gameId) !== true) break;
        const membership = this.memberships.get(e.party);
        if (!membership) break;
        const row = this.statsRow(membership.teamId, e.party, e.epoch);
        row.rewards += e.quantumAmount;
        row.games.add(e.gameId);
        break;
      }
      case 'epochEvent':
        if (e.action === 'EPOCH_ACTION_END') this.noteEndedEpoch(e.seq);
        break;
    }
  }

  private addSetDelta(setId: string, d: bigint) {
    this.setDeltas.set(setId, (this.setDeltas.get(setId) ?? 0n) + d);
  }

  private setMembership(party: string, m: MembershipState | null) {
    this.memberships.set(party, m);
    this.changedMemberships.add(party);
  }

  private statsRow(teamId: string, party: string, epoch: bigint): StatsDelta {
    const key = `${teamId}/${party}/${epoch}`;
    let row = this.stats.get(key);
    if (!row) {
      row = { teamId, party, epoch, volume: null, rewards: 0n, games: new Set() };
      this.stats.set(key, row);
    }
    return row;
  }

  private noteEndedEpoch(epoch: bigint) {
    if (this.lastEndedEpoch === null || epoch > this.lastEndedEpoch) this.lastEndedEpoch = epoch;
  }

  async write(tx: Queryable, last: Block): Promise<void> {
    await this.writeReferrals(tx);
    await this.writeTeams(tx);
    await this.writeStats(tx);
    await this.writeSummaries(tx);
    await tx.query(
      `INSERT INTO chain_head AS h (singleton, height, block_time, block_hash, last_ended_epoch)
       VALUES (true, $1, $2, $3, $4::bigint)
       ON CONFLICT (singleton) DO UPDATE SET height = excluded.height, block_time = excluded.block_time,
         block_hash = excluded.block_hash,
         last_ended_epoch = greatest(h.last_ended_epoch, excluded.last_ended_epoch)`,
      [String(last.height), String(last.time), last.hash, this.lastEndedEpoch === null ? null : String(this.lastEndedEpoch)],
    );
  }

  private async writeReferrals(tx: Queryable): Promise<void> {
    if (this.changedReferees.size > 0) {
      const ids = [...this.changedReferees];
      const states = ids.map((id) => this.referees.get(id)!);
      await tx.query(
        `INSERT INTO referral_set_referees (referee, set_id, at_epoch, joined_at)
         SELECT decode(r, 'hex'), decode(s, 'hex'), e, j FROM unnest($1::text[], $2::text[], $3::int8[], $4::int8[]) AS u(r, s, e, j)
         ON CONFLICT (referee) DO UPDATE SET set_id = excluded.set_id, at_epoch = excluded.at_epoch, joined_at = excluded.joined_at`,
        [ids, states.map((s) => s.setId), states.map((s) => String(s.atEpoch)), states.map((s) => String(s.joinedAt))],
      );
    }
    // New sets count their referees as the referee map now stands (joins may precede creation);
    // sets that already existed get this batch's changes as deltas.
    const inserted = new Set<string>();
    if (this.newSets.size > 0) {
      const ids = [...this.newSets.keys()];
      const sets = [...this.newSets.values()];
      const rows = await tx.query<{ id: string }>(
        `INSERT INTO referral_sets (id, referrer, created_at, updated_at, referee_count)
         SELECT decode(i, 'hex'), decode(r, 'hex'), c, u,
                (SELECT count(*) FROM referral_set_referees x WHERE x.set_id = decode(i, 'hex'))
           FROM unnest($1::text[], $2::text[], $3::int8[], $4::int8[]) AS t(i, r, c, u)
         ON CONFLICT (id) DO NOTHING
         RETURNING encode(id, 'hex') AS id`,
        [ids, sets.map((s) => s.referrer), sets.map((s) => String(s.createdAt)), sets.map((s) => String(s.updatedAt))],
      );
      for (const r of rows) inserted.add(r.id);
    }
    const deltas = [...this.setDeltas].filter(([id, d]) => d !== 0n && !inserted.has(id));
    if (deltas.length > 0) {
      await tx.query(
        `UPDATE referral_sets s SET referee_count = s.referee_count + d.delta
           FROM unnest($1::text[], $2::int8[]) AS d(id, delta) WHERE s.id = decode(d.id, 'hex')`,
        [deltas.map(([id]) => id), deltas.map(([, d]) => String(d))],
      );
    }
  }

  private async writeTeams(tx: Queryable): Promise<void> {
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
        [ids, t.map((x) => x.name), t.map((x) => x.teamUrl), t.map((x) => x.avatarUrl), t.map((x) => x.closed), t.map((x) => x.allowList.join(','))],
      );
    }
    const joined = [...this.changedMemberships].filter((p) => this.memberships.get(p));
    const left = [...this.changedMemberships].filter((p) => !this.memberships.get(p));
    if (joined.length > 0) {
      const m = joined.map((p) => this.memberships.get(p)!);
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
    if (this.changedGames.size > 0) {
      const ids = [...this.changedGames];
      await tx.query(
        `INSERT INTO game_scopes (game_id, team_scoped) SELECT decode(g, 'hex'), s FROM unnest($1::text[], $2::bool[]) AS u(g, s)
         ON CONFLICT (game_id) DO UPDATE SET team_scoped = excluded.team_scoped`,
        [ids, ids.map((g) => this.gameScopes.get(g)!)],
      );
    }
  }

  private async writeStats(tx: Queryable): Promise<void> {
    if (this.stats.size === 0) return;
    const rows = [...this.stats.values()];
    // A row newer than its team's latest epoch in team_epochs (which holds the team and epoch of
    // every row) cannot exist yet: nearly all rows while catching up. Those are plain inserts;
    // checking for a conflict costs another index descent per row, a good part of the write. A
    // row thought new that did exist would fail the transaction, never merge wrongly.
    const latest = await latestTeamEpochs(tx, [...new Set(rows.map((r) => r.teamId))]);
    const isNew = (r: { teamId: string; epoch: bigint }) => {
      const epoch = latest.get(r.teamId);
      return epoch === undefined || r.epoch > epoch;
    };
    const fresh: StatsDelta[] = [];
    const old: StatsDelta[] = [];
    for (const r of rows) (isNew(r) ? fresh : old).push(r);
    await insertStats(tx, fresh, 'insert');
    // Older rows: team statistics set the volume, rewards only add; each sort its own upsert.
    await insertStats(tx, old.filter((r) => r.volume !== null), 'set volume');
    await insertStats(tx, old.filter((r) => r.volume === null), 'add rewards');

    const epochs = new Map<string, { teamId: string; epoch: bigint }>();
    const parties = new Map<string, { teamId: string; party: string; first: bigint; last: bigint }>();
    for (const r of rows) {
      epochs.set(`${r.teamId}/${r.epoch}`, { teamId: r.teamId, epoch: r.epoch });
      const key = `${r.teamId}/${r.party}`;
      const p = parties.get(key);
      if (!p) parties.set(key, { teamId: r.teamId, party: r.party, first: r.epoch, last: r.epoch });
      else {
        if (r.epoch < p.first) p.first = r.epoch;
        if (r.epoch > p.last) p.last = r.epoch;
      }
    }
    const e = [...epochs.values()];
    for (const fresh of [true, false]) {
      const part = e.filter((x) => isNew(x) === fresh);
      if (part.length === 0) continue;
      await tx.query(
        `INSERT INTO team_epochs (team_id, epoch) SELECT decode(t, 'hex'), e FROM unnest($1::text[], $2::int8[]) AS u(t, e)
         ${fresh ? '' : 'ON CONFLICT DO NOTHING'}`,
        [part.map((x) => x.teamId), part.map((x) => String(x.epoch))],
      );
    }
    const p = [...parties.values()];
    await tx.query(
      `INSERT INTO team_parties AS tp (team_id, party, first_epoch, last_epoch)
       SELECT decode(t, 'hex'), decode(p, 'hex'), f, l FROM unnest($1::text[], $2::text[], $3::int8[], $4::int8[]) AS u(t, p, f, l)
       ON CONFLICT (team_id, party) DO UPDATE SET first_epoch = least(tp.first_epoch, excluded.first_epoch),
                                                  last_epoch = greatest(tp.last_epoch, excluded.last_epoch)
         -- A span that does not grow (rewards of an epoch whose statistics came in an earlier
         -- batch) is left as it is: no new row version, which costs as much as an insert here.
         WHERE excluded.first_epoch < tp.first_epoch OR excluded.last_epoch > tp.last_epoch`,
      [p.map((x) => x.teamId), p.map((x) => x.party), p.map((x) => String(x.first)), p.map((x) => String(x.last))],
    );
  }

  private async writeSummaries(tx: Queryable): Promise<void> {
    if (this.summaries.size === 0) return;
    const s = [...this.summaries.values()];
    // Payout events carry no market, so every summary's market is the empty id.
    await tx.query(
      `INSERT INTO epoch_reward_summaries AS s (epoch, asset_id, market_id, reward_type, amount)
       SELECT e, decode(a, 'hex'), ''::bytea, t, v FROM unnest($1::int8[], $2::text[], $3::text[], $4::numeric[]) AS u(e, a, t, v)
       ON CONFLICT (epoch, asset_id, market_id, reward_type) DO UPDATE SET amount = s.amount + excluded.amount`,
      [s.map((x) => String(x.epoch)), s.map((x) => x.asset), s.map((x) => x.rewardType), s.map((x) => String(x.amount))],
    );
  }
}

/** Each given team's latest epoch in team_epochs; teams without rows are absent. */
async function latestTeamEpochs(tx: Queryable, teamIds: string[]): Promise<Map<string, bigint>> {
  const rows = await tx.query<{ team_id: string; epoch: string }>(
    `SELECT x AS team_id, (SELECT max(epoch) FROM team_epochs WHERE team_id = decode(x, 'hex'))::text AS epoch
       FROM unnest($1::text[]) AS x`,
    [teamIds],
  );
  const latest = new Map<string, bigint>();
  for (const r of rows) if (r.epoch !== null) latest.set(r.team_id, BigInt(r.epoch));
  return latest;
}

/**
 * Writes team member statistics rows: 'insert' for rows known not to exist, or an upsert that
 * either sets the volume (team statistics, the last one wins) or leaves it (rewards only add).
 */
async function insertStats(tx: Queryable, rows: StatsDelta[], mode: 'insert' | 'set volume' | 'add rewards'): Promise<void> {
  if (rows.length === 0) return;
  const conflict =
    mode === 'insert'
      ? ''
      : `ON CONFLICT (team_id, party, epoch) DO UPDATE SET
           ${mode === 'set volume' ? 'quantum_volume = excluded.quantum_volume,' : ''}
           quantum_rewards = t.quantum_rewards + excluded.quantum_rewards,
           games = CASE WHEN cardinality(excluded.games) = 0 THEN t.games
                        ELSE ARRAY(SELECT DISTINCT g FROM unnest(t.games || excluded.games) AS g ORDER BY 1) END`;
  await tx.query(
    `INSERT INTO team_member_stats AS t (team_id, party, epoch, quantum_volume, quantum_rewards, games)
     SELECT decode(tm, 'hex'), decode(p, 'hex'), e, v, r,
            -- Most rows (team statistics) have no games: no subquery run for those.
            CASE WHEN gs = '' THEN '{}'::bytea[]
                 ELSE ARRAY(SELECT decode(g, 'hex') FROM unnest(string_to_array(gs, ',')) AS g ORDER BY 1) END
       FROM unnest($1::text[], $2::text[], $3::int8[], $4::numeric[], $5::numeric[], $6::text[]) AS u(tm, p, e, v, r, gs)
     ${conflict}`,
    [
      rows.map((r) => r.teamId),
      rows.map((r) => r.party),
      rows.map((r) => String(r.epoch)),
      rows.map((r) => String(r.volume ?? 0n)),
      rows.map((r) => String(r.rewards)),
      rows.map((r) => [...r.games].join(',')),
    ],
  );
}
