import type { FixtureExample } from '../../contract/openapi.js';

/**
 * Examples for the OpenAPI document, copied from test/fixtures (their file and name are kept, and
 * test/http/openapi-fixtures.test.ts checks that each one still equals its fixture's answer).
 */
export const EXAMPLES: readonly FixtureExample[] = [
  {
    fixture: 'teams.expected.json',
    name: 'team referees: first=3',
    method: 'GET',
    request: '/api/v2/teams/referees/d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2?pagination.first=3',
    status: 200,
    body: {
      teamReferees: {
        edges: [
          {
            node: {
              teamId: 'd2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2',
              referee: 'f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6',
              joinedAt: '1717200242000000000',
              joinedAtEpoch: '1',
            },
            cursor: 'eyJQYXJ0eUlEIjoiZjZmNmY2ZjZmNmY2ZjZmNmY2ZjZmNmY2ZjZmNmY2ZjZmNmY2ZjZmNmY2ZjZmNmY2ZjZmNmY2ZjZmNmY2ZjZmNiJ9',
          },
          {
            node: {
              teamId: 'd2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2',
              referee: 'f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5',
              joinedAt: '1717200241000000000',
              joinedAtEpoch: '1',
            },
            cursor: 'eyJQYXJ0eUlEIjoiZjVmNWY1ZjVmNWY1ZjVmNWY1ZjVmNWY1ZjVmNWY1ZjVmNWY1ZjVmNWY1ZjVmNWY1ZjVmNWY1ZjVmNWY1ZjVmNSJ9',
          },
          {
            node: {
              teamId: 'd2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2',
              referee: 'f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4',
              joinedAt: '1717200240000000000',
              joinedAtEpoch: '1',
            },
            cursor: 'eyJQYXJ0eUlEIjoiZjRmNGY0ZjRmNGY0ZjRmNGY0ZjRmNGY0ZjRmNGY0ZjRmNGY0ZjRmNGY0ZjRmNGY0ZjRmNGY0ZjRmNGY0ZjRmNCJ9',
          },
        ],
        pageInfo: {
          hasNextPage: true,
          hasPreviousPage: false,
          startCursor: 'eyJQYXJ0eUlEIjoiZjZmNmY2ZjZmNmY2ZjZmNmY2ZjZmNmY2ZjZmNmY2ZjZmNmY2ZjZmNmY2ZjZmNmY2ZjZmNmY2ZjZmNmY2ZjZmNiJ9',
          endCursor: 'eyJQYXJ0eUlEIjoiZjRmNGY0ZjRmNGY0ZjRmNGY0ZjRmNGY0ZjRmNGY0ZjRmNGY0ZjRmNGY0ZjRmNGY0ZjRmNGY0ZjRmNGY0ZjRmNCJ9',
        },
      },
    },
  },
  {
    fixture: 'errors.expected.json',
    name: 'keep: route: /teams/referees/stats is ListTeamReferees with team id stats',
    method: 'GET',
    request: '/api/v2/teams/referees/stats',
    status: 400,
    body: {
      code: 3,
      message: 'InvalidArgument error',
      details: [
        {
          '@type': 'type.googleapis.com/vega.ErrorDetail',
          code: 10000,
          message: 'failed to list team referees',
          inner: "decoding 'stats': not a valid hex id (or well known exception)",
        },
      ],
    },
  },
];
