import { badIdMessage, formatId, parseId } from '../../ids.js';
import { DETAIL, invalidArgument } from '../../http/errors.js';
import { PAGINATION_FIELDS, parseQuery, type FieldSpec } from '../../http/query.js';
import { cursorField, decodeCursorObject, encodeCursor } from '../../pagination/cursor.js';
import { assemblePage, pageRequest, type PaginationParams } from '../../pagination/page.js';
import { fetchKeysetPage } from '../../pagination/sql.js';
import type { Operation } from '../operation.js';
import { teamStatsSource, type TeamStatsRow } from './source.js';

/** GET /api/v2/teams/{teamId}/stats — contract §5 ListTeamMembersStatistics. */
const FIELDS = {
  ...PAGINATION_FIELDS,
  partyId: { keys: ['partyId', 'party_id'], protoName: 'party_id', kind: 'string' },
  aggregationEpochs: { keys: ['aggregationEpochs', 'aggregation_epochs'], protoName: 'aggregation_epochs', kind: 'uint64' },
} as const satisfies Record<string, FieldSpec>;

const DEFAULT_AGGREGATION_EPOCHS = 10n;
const ERROR_MESSAGE = 'failed to list team referees';

interface Position {
  party: string;
}

function decodePosition(cursor: string): Position {
  return { party: cursorField.id(decodeCursorObject(cursor), 'ID') };
}

function encodePosition(party: string): string {
  return encodeCursor(`{"ID":"${formatId(party)}"}`);
}

function checkedId(text: string): string {
  const id = parseId(text);
  if (id === undefined) throw invalidArgument(DETAIL.teamStats, ERROR_MESSAGE, badIdMessage(text));
  return id;
}

function toNode(r: TeamStatsRow) {
  return {
    partyId: formatId(r.party),
    totalQuantumVolume: r.total_volume,
    totalQuantumRewards: r.total_rewards,
    quantumRewards: r.epochs.map((epoch, i) => ({ epoch, totalQuantumRewards: r.rewards[i]! })),
    totalGamesPlayed: String(r.games.length),
    gamesPlayed: r.games,
    quantumVolumes: r.epochs.map((epoch, i) => ({ epoch, totalQuantumVolumes: r.volumes[i]! })),
  };
}

export const listTeamMembersStatistics: Operation = {
  name: 'ListTeamMembersStatistics',
  path: '/api/v2/teams/:teamId/stats',
  errorCode: DETAIL.teamStats,
  errorMessage: ERROR_MESSAGE,
  async run(store, input) {
    // Faults in the contract's order: query parsing, pagination, ids. The teamId/team_id query
    // keys are unknown here, hence ignored: the path names the team.
    const q = parseQuery(input.query, FIELDS);
    const req = pageRequest(q as PaginationParams, decodePosition);
    const teamId = checkedId(input.path.teamId ?? '');
    const partyId = q.partyId === undefined ? undefined : checkedId(q.partyId as string);
    const n = (q.aggregationEpochs as bigint | undefined) || DEFAULT_AGGREGATION_EPOCHS;

    const source = teamStatsSource(teamId, n, partyId);
    const cursor = req.cursor ? [req.cursor.party] : null;
    const page = await fetchKeysetPage<TeamStatsRow>(store, source, req, cursor);
    const result = assemblePage(req, page.rows, page.otherSide, (r) => ({ node: toNode(r), cursor: encodePosition(r.party) }));
    return { body: { statistics: result }, head: page.head };
  },
};
