import { formatId, requireId } from '../../contract/ids.js';
import { DETAIL, invalidArgument } from '../../contract/errors.js';
import { PAGINATION_FIELDS, parseQuery, type FieldSpec } from '../../contract/query.js';
import { cursorField, decodeCursorObject, encodeCursor } from '../../pagination/cursor.js';
import { pageJson, pageRequest, type PaginationParams } from '../../pagination/page.js';
import { readPage, type PageExtras } from '../../pagination/sql.js';
import type { Operation } from '../operation.js';
import { teamStatsQuery, type TeamStatsRow } from './source.js';

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

const checkedId = (text: string) => requireId(text, (message) => invalidArgument(DETAIL.teamStats, ERROR_MESSAGE, message));

/** A page row's node as JSON text: ids hex, numbers decimal text, so nothing needs escaping. */
function nodeJson(r: TeamStatsRow): string {
  // Game ids are hex: the commas in the list separate them.
  const games = r.games === '' ? 0 : r.games.split(',').length;
  return (
    `{"partyId":"${formatId(r.party)}","totalQuantumVolume":"${r.total_volume}","totalQuantumRewards":"${r.total_rewards}",` +
    `"quantumRewards":[${r.rewards}],"totalGamesPlayed":"${games}","gamesPlayed":[${r.games}],"quantumVolumes":[${r.volumes}]}`
  );
}

export const listTeamMembersStatistics: Operation = {
  name: 'ListTeamMembersStatistics',
  path: '/api/v2/teams/:teamId/stats',
  errorCode: DETAIL.teamStats,
  errorMessage: ERROR_MESSAGE,
  fields: FIELDS,
  async run(store, input) {
    // Faults in the contract's order: query parsing, pagination, ids. The teamId/team_id query
    // keys are unknown here, hence ignored: the path names the team.
    const q = parseQuery(input.query, FIELDS);
    const req = pageRequest(q as PaginationParams, decodePosition);
    const teamId = checkedId(input.path.teamId ?? '');
    const partyId = q.partyId === undefined ? undefined : checkedId(q.partyId as string);
    const n = (q.aggregationEpochs as bigint | undefined) || DEFAULT_AGGREGATION_EPOCHS;

    const { sql, params } = teamStatsQuery(teamId, n, partyId, req, req.cursor?.party ?? null);
    const page = readPage<TeamStatsRow>(await store.query<TeamStatsRow & PageExtras>(sql, params));
    const body = pageJson('statistics', req, page.rows, page.otherSide, (r) => ({ node: nodeJson(r), cursor: encodePosition(r.party) }));
    return { body, head: page.head };
  },
};
