import type { Queryable } from '../../db/store.js';
import { Overlay, type EventHandlers, type OverlayReader, type Projection } from './projection.js';

/**
 * Per game id, whether its latest recurring transfer is team-scoped (game_scopes). A table of its
 * own, written by transfers and read by the team statistics rule only, so that rule's two
 * inputs (a party's team, a game's scope) are two explicit dependencies. No transfer reads the
 * scope it replaces: the overlay preloads only the games other projections ask about.
 */
export class GameScopes implements Projection {
  readonly model = 'game-scopes';
  private readonly scopes = new Overlay({
    table: 'game_scopes',
    key: 'game_id',
    columns: 'team_scoped',
    value: (r: { team_scoped: boolean }) => r.team_scoped,
  });
  /** Whether each game is team-scoped as this batch's events have left it so far. */
  readonly teamScoped: OverlayReader<boolean> = this.scopes;

  readonly folds: EventHandlers = {
    transfer: (e) => {
      // Only recurring transfers define a game's scope (not governance ones: see sources/payload.ts); the latest one wins.
      if (e.gameId !== null && e.recurringTeamScoped !== null) this.scopes.set(e.gameId, e.recurringTeamScoped);
    },
  };

  preload(tx: Queryable): Promise<void> {
    return this.scopes.preload(tx);
  }

  async write(tx: Queryable): Promise<void> {
    if (this.scopes.changed.size === 0) return;
    const ids = [...this.scopes.changed];
    await tx.query(
      `INSERT INTO game_scopes (game_id, team_scoped) SELECT decode(g, 'hex'), s FROM unnest($1::text[], $2::bool[]) AS u(g, s)
       ON CONFLICT (game_id) DO UPDATE SET team_scoped = excluded.team_scoped`,
      [ids, ids.map((g) => this.scopes.get(g)!)],
    );
  }
}
