import type { FixtureExample } from '../../contract/openapi.js';

/**
 * Examples for the OpenAPI document, copied from test/fixtures (their file and name are kept, and
 * test/http/openapi-fixtures.test.ts checks that each one still equals its fixture's answer).
 */
export const EXAMPLES: readonly FixtureExample[] = [
  {
    fixture: 'teams.expected.json',
    name: 'referee history: a join then a switch, newest first',
    method: 'GET',
    request: '/api/v2/teams/referees/history/f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1',
    status: 200,
    body: {
      teamRefereeHistory: {
        edges: [
          {
            node: {
              teamId: 'd2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2',
              joinedAt: '1717203601000000000',
              joinedAtEpoch: '2',
            },
            cursor: 'eyJKb2luZWRBdEVwb2NoIjoyfQ==',
          },
          {
            node: {
              teamId: 'd1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1',
              joinedAt: '1717200240000000000',
              joinedAtEpoch: '1',
            },
            cursor: 'eyJKb2luZWRBdEVwb2NoIjoxfQ==',
          },
        ],
        pageInfo: {
          hasNextPage: false,
          hasPreviousPage: false,
          startCursor: 'eyJKb2luZWRBdEVwb2NoIjoyfQ==',
          endCursor: 'eyJKb2luZWRBdEVwb2NoIjoxfQ==',
        },
      },
    },
  },
  {
    fixture: 'teams.expected.json',
    name: 'fix: referee history: empty path value is the empty id (not 500)',
    method: 'GET',
    request: '/api/v2/teams/referees/history/',
    status: 200,
    body: {
      teamRefereeHistory: {
        edges: [],
        pageInfo: {
          hasNextPage: false,
          hasPreviousPage: false,
          startCursor: '',
          endCursor: '',
        },
      },
    },
  },
];
