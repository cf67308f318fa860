import type { Queryable } from '../../db/store.js';
import type { EventHandlers, OverlayReader, Projection } from './projection.js';
import type { Membership } from './teams.js';

interface StatsDelta {
  teamId: string;
  party: string;
  epoch: bigint;
  /** Set by team statistics (last one wins); null when only rewards touched the row. */
  volume: bigint | null;
  rewards: bigint;
  /** The games of the rewards counted in the row, for team_party_games. */
  games: Set<string>;
}

/**
 * Team member statistics rows keyed (team, party, epoch), with the distinct epochs of each team
 * and each party's span of epochs in a team, and the epochs in which each party played each game
 * (team_member_stats, team_epochs, team_parties, team_party_games); and the same per team: its
 * sums per epoch, its span of epochs and the epochs in which it played each game (team_epoch_stats,
 * team_stats_spans, team_games).
 *
 * A reward counts for a team when its game's latest recurring transfer is team-scoped and the
 * party is in a team at payout time: the rule reads two other projections' state as it stands at
 * that event in chain order, given to the constructor.
 */
export class TeamMemberStats implements Projection {
  readonly model = 'team-member-stats';
  private readonly rows = new Map<string, StatsDelta>();

  constructor(
    private readonly teamOf: OverlayReader<Membership>,
    private readonly teamScoped: OverlayReader<boolean>,
  ) {}

  readonly touches: EventHandlers = {
    rewardPayout: (e) => {
      if (e.gameId === null) return;
      this.teamScoped.want(e.gameId);
      this.teamOf.want(e.party);
    },
  };

  readonly folds: EventHandlers = {
    teamsStatsUpdated: (e) => {
      for (const team of e.stats) {
        for (const m of team.members) this.row(team.teamId, m.partyId, e.atEpoch).volume = m.volume;
      }
    },
    rewardPayout: (e) => {
      // Counted for teams: a team-scoped game, and the party in a team at payout time.
      if (e.gameId === null || this.teamScoped.get(e.gameId) !== true) return;
      const membership = this.teamOf.get(e.party);
      if (!membership) return;
      const row = this.row(membership.teamId, e.party, e.epoch);
      row.rewards += e.quantumAmount;
      row.games.add(e.gameId);
    },
  };

  private row(teamId: string, party: string, epoch: bigint): StatsDelta {
    const key = `${teamId}/${party}/${epoch}`;
    let row = this.rows.get(key);
    if (!row) {
      row = { teamId, party, epoch, volume: null, rewards: 0n, games: new Set() };
      this.rows.set(key, row);
    }
    return row;
  }

  async write(tx: Queryable): Promise<void> {
    if (this.rows.size === 0) return;
    const rows = [...this.rows.values()];
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
    // The team's sums move by each member row's change: read before the rows are written.
    await addTeamEpochStats(tx, rows, await storedVolumes(tx, old));
    await insertStats(tx, fresh, 'insert');
    // Older rows: team statistics set the volume, rewards only add; each sort its own upsert.
    await insertStats(
      tx,
      old.filter((r) => r.volume !== null),
      'set volume',
    );
    await insertStats(
      tx,
      old.filter((r) => r.volume === null),
      'add rewards',
    );
    await addPartyGames(tx, rows);
    await addTeamGames(tx, rows);

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
    await addTeamSpans(tx, p);
  }
}

/** Widens each team's span of epochs with statistics (team_stats_spans) to its parties' spans in the batch. */
async function addTeamSpans(tx: Queryable, parties: { teamId: string; first: bigint; last: bigint }[]): Promise<void> {
  const teams = new Map<string, { first: bigint; last: bigint }>();
  for (const { teamId, first, last } of parties) {
    const span = teams.get(teamId);
    if (!span) teams.set(teamId, { first, last });
    else {
      if (first < span.first) span.first = first;
      if (last > span.last) span.last = last;
    }
  }
  const t = [...teams.entries()];
  await tx.query(
    `INSERT INTO team_stats_spans AS ts (team_id, first_epoch, last_epoch)
     SELECT decode(t, 'hex'), f, l FROM unnest($1::text[], $2::int8[], $3::int8[]) AS u(t, f, l)
     ON CONFLICT (team_id) DO UPDATE SET first_epoch = least(ts.first_epoch, excluded.first_epoch),
                                         last_epoch = greatest(ts.last_epoch, excluded.last_epoch)
       WHERE excluded.first_epoch < ts.first_epoch OR excluded.last_epoch > ts.last_epoch`,
    [t.map(([id]) => id), t.map(([, s]) => String(s.first)), t.map(([, s]) => String(s.last))],
  );
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

/** The stored volumes of the rows given that exist (those whose volume this batch sets), by their key team/party/epoch. */
async function storedVolumes(tx: Queryable, rows: StatsDelta[]): Promise<Map<string, bigint>> {
  const set = rows.filter((r) => r.volume !== null);
  const stored = new Map<string, bigint>();
  if (set.length === 0) return stored;
  const found = await tx.query<{ t: string; p: string; e: string; v: string }>(
    `SELECT u.t, u.p, u.e::text AS e, s.quantum_volume::text AS v
       FROM unnest($1::text[], $2::text[], $3::int8[]) AS u(t, p, e)
       JOIN team_member_stats AS s ON s.team_id = decode(u.t, 'hex') AND s.party = decode(u.p, 'hex') AND s.epoch = u.e`,
    [set.map((r) => r.teamId), set.map((r) => r.party), set.map((r) => String(r.epoch))],
  );
  for (const r of found) stored.set(`${r.t}/${r.p}/${r.e}`, BigInt(r.v));
  return stored;
}

/**
 * Adds the batch's member row changes to their team's sums of the epoch (team_epoch_stats): a
 * row's rewards are added; a volume set replaces the row's stored one, so the team's sum moves by
 * the difference.
 */
async function addTeamEpochStats(tx: Queryable, rows: StatsDelta[], stored: Map<string, bigint>): Promise<void> {
  const sums = new Map<string, { teamId: string; epoch: bigint; volume: bigint; rewards: bigint }>();
  for (const r of rows) {
    const key = `${r.teamId}/${r.epoch}`;
    let sum = sums.get(key);
    if (!sum) {
      sum = { teamId: r.teamId, epoch: r.epoch, volume: 0n, rewards: 0n };
      sums.set(key, sum);
    }
    if (r.volume !== null) sum.volume += r.volume - (stored.get(`${r.teamId}/${r.party}/${r.epoch}`) ?? 0n);
    sum.rewards += r.rewards;
  }
  const s = [...sums.values()];
  await tx.query(
    `INSERT INTO team_epoch_stats AS t (team_id, epoch, quantum_volume, quantum_rewards)
     SELECT decode(tm, 'hex'), e, v, r FROM unnest($1::text[], $2::int8[], $3::numeric[], $4::numeric[]) AS u(tm, e, v, r)
     ON CONFLICT (team_id, epoch) DO UPDATE SET quantum_volume = t.quantum_volume + excluded.quantum_volume,
                                                quantum_rewards = t.quantum_rewards + excluded.quantum_rewards`,
    [s.map((x) => x.teamId), s.map((x) => String(x.epoch)), s.map((x) => String(x.volume)), s.map((x) => String(x.rewards))],
  );
}

/** Adds each row's epoch to the epochs of its games in team_games, as addPartyGames does per party. */
async function addTeamGames(tx: Queryable, rows: StatsDelta[]): Promise<void> {
  const played = rows.flatMap((r) => [...r.games].map((game) => ({ r, game })));
  if (played.length === 0) return;
  await tx.query(
    `INSERT INTO team_games AS g (team_id, game_id, epochs)
     SELECT decode(t, 'hex'), decode(gm, 'hex'), range_agg(int8range(e, e, '[]'))
       FROM unnest($1::text[], $2::text[], $3::int8[]) AS u(t, gm, e)
      GROUP BY t, gm
     ON CONFLICT (team_id, game_id) DO UPDATE SET epochs = g.epochs + excluded.epochs
       WHERE NOT g.epochs @> excluded.epochs`,
    [played.map((x) => x.r.teamId), played.map((x) => x.game), played.map((x) => String(x.r.epoch))],
  );
}

/**
 * Adds each row's epoch to the epochs of its games in team_party_games: a range of epochs only
 * grows, and a row already counted (rewards of an epoch with earlier ones) leaves it as it is.
 */
async function addPartyGames(tx: Queryable, rows: StatsDelta[]): Promise<void> {
  const played = rows.flatMap((r) => [...r.games].map((game) => ({ r, game })));
  if (played.length === 0) return;
  await tx.query(
    `INSERT INTO team_party_games AS g (team_id, party, game_id, epochs)
     SELECT decode(t, 'hex'), decode(p, 'hex'), decode(gm, 'hex'), range_agg(int8range(e, e, '[]'))
       FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[]) AS u(t, p, gm, e)
      GROUP BY t, p, gm
     ON CONFLICT (team_id, party, game_id) DO UPDATE SET epochs = g.epochs + excluded.epochs
       WHERE NOT g.epochs @> excluded.epochs`,
    [played.map((x) => x.r.teamId), played.map((x) => x.r.party), played.map((x) => x.game), played.map((x) => String(x.r.epoch))],
  );
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
           quantum_rewards = t.quantum_rewards + excluded.quantum_rewards`;
  await tx.query(
    `INSERT INTO team_member_stats AS t (team_id, party, epoch, quantum_volume, quantum_rewards)
     SELECT decode(tm, 'hex'), decode(p, 'hex'), e, v, r
       FROM unnest($1::text[], $2::text[], $3::int8[], $4::numeric[], $5::numeric[]) AS u(tm, p, e, v, r)
     ${conflict}`,
    [
      rows.map((r) => r.teamId),
      rows.map((r) => r.party),
      rows.map((r) => String(r.epoch)),
      rows.map((r) => String(r.volume ?? 0n)),
      rows.map((r) => String(r.rewards)),
    ],
  );
}
