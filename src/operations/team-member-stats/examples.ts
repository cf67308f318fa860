import type { FixtureExample } from '../../contract/openapi.js';

/**
 * Examples for the OpenAPI document, copied from test/fixtures (their file and name are kept, and
 * test/http/openapi-fixtures.test.ts checks that each one still equals its fixture's answer).
 */
export const EXAMPLES: readonly FixtureExample[] = [
  {
    fixture: 'team-stats.expected.json',
    name: 'data-node test: team2, partyId=member21',
    method: 'GET',
    request:
      '/api/v2/teams/a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2/stats?aggregationEpochs=2&partyId=c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1',
    status: 200,
    body: {
      statistics: {
        edges: [
          {
            node: {
              partyId: 'c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1',
              totalQuantumVolume: '2',
              totalQuantumRewards: '11',
              quantumRewards: [
                {
                  epoch: '2',
                  totalQuantumRewards: '5',
                },
                {
                  epoch: '3',
                  totalQuantumRewards: '6',
                },
              ],
              totalGamesPlayed: '1',
              gamesPlayed: ['2202020202020202020202020202020202020202020202020202020202020202'],
              quantumVolumes: [
                {
                  epoch: '2',
                  totalQuantumVolumes: '1',
                },
                {
                  epoch: '3',
                  totalQuantumVolumes: '1',
                },
              ],
            },
            cursor: 'eyJJRCI6ImMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzEifQ==',
          },
        ],
        pageInfo: {
          hasNextPage: false,
          hasPreviousPage: false,
          startCursor: 'eyJJRCI6ImMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzEifQ==',
          endCursor: 'eyJJRCI6ImMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzEifQ==',
        },
      },
    },
  },
  {
    fixture: 'team-stats.expected.json',
    name: 'team2, default aggregationEpochs (10): fewer epochs of data, left out',
    method: 'GET',
    request: '/api/v2/teams/a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2/stats',
    status: 200,
    body: {
      statistics: {
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
  {
    fixture: 'errors.expected.json',
    name: 'fix: uint64 above 2^63-1 is a 400 (not 500)',
    method: 'GET',
    request: '/api/v2/teams/a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2/stats?aggregationEpochs=9223372036854775808',
    status: 400,
    body: {
      code: 3,
      message: 'parsing field "aggregation_epochs": strconv.ParseInt: parsing "9223372036854775808": value out of range',
      details: [],
    },
  },
  {
    fixture: 'errors.expected.json',
    name: 'pagination: last=0',
    method: 'GET',
    request: '/api/v2/teams/a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2/stats?pagination.last=0',
    status: 400,
    body: {
      code: 3,
      message: 'InvalidArgument error',
      details: [
        {
          '@type': 'type.googleapis.com/vega.ErrorDetail',
          code: 10028,
          message: 'invalid pagination',
          inner: 'pagination limit must be in range 0-5000',
        },
      ],
    },
  },
  {
    fixture: 'errors.expected.json',
    name: 'id: team id in the path not hex',
    method: 'GET',
    request: '/api/v2/teams/xyz/stats',
    status: 400,
    body: {
      code: 3,
      message: 'InvalidArgument error',
      details: [
        {
          '@type': 'type.googleapis.com/vega.ErrorDetail',
          code: 10000,
          message: 'failed to list team referees',
          inner: "decoding 'xyz': not a valid hex id (or well known exception)",
        },
      ],
    },
  },
];
