import type { FixtureExample } from '../../contract/openapi.js';

/**
 * Examples for the OpenAPI document, copied from test/fixtures (their file and name are kept, and
 * test/http/openapi-fixtures.test.ts checks that each one still equals its fixture's answer).
 */
export const EXAMPLES: readonly FixtureExample[] = [
  {
    fixture: 'teams.expected.json',
    name: 'teams statistics: aggregationEpochs=1, the last ended epoch only',
    method: 'GET',
    request: '/api/v2/teams/stats?aggregationEpochs=1',
    status: 200,
    body: {
      statistics: {
        edges: [
          {
            node: {
              teamId: 'd6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6',
              totalQuantumVolume: '8',
              totalQuantumRewards: '0',
              quantumRewards: [
                {
                  epoch: '3',
                  totalQuantumRewards: '0',
                },
              ],
              totalGamesPlayed: '0',
              gamesPlayed: [],
              quantumVolumes: [
                {
                  epoch: '3',
                  totalQuantumVolumes: '8',
                },
              ],
            },
            cursor: 'eyJJRCI6ImQ2ZDZkNmQ2ZDZkNmQ2ZDZkNmQ2ZDZkNmQ2ZDZkNmQ2ZDZkNmQ2ZDZkNmQ2ZDZkNmQ2ZDZkNmQ2ZDZkNmQ2ZDYifQ==',
          },
          {
            node: {
              teamId: 'd2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2',
              totalQuantumVolume: '7',
              totalQuantumRewards: '3',
              quantumRewards: [
                {
                  epoch: '3',
                  totalQuantumRewards: '3',
                },
              ],
              totalGamesPlayed: '1',
              gamesPlayed: ['7171717171717171717171717171717171717171717171717171717171717171'],
              quantumVolumes: [
                {
                  epoch: '3',
                  totalQuantumVolumes: '7',
                },
              ],
            },
            cursor: 'eyJJRCI6ImQyZDJkMmQyZDJkMmQyZDJkMmQyZDJkMmQyZDJkMmQyZDJkMmQyZDJkMmQyZDJkMmQyZDJkMmQyZDJkMmQyZDIifQ==',
          },
        ],
        pageInfo: {
          hasNextPage: false,
          hasPreviousPage: false,
          startCursor: 'eyJJRCI6ImQ2ZDZkNmQ2ZDZkNmQ2ZDZkNmQ2ZDZkNmQ2ZDZkNmQ2ZDZkNmQ2ZDZkNmQ2ZDZkNmQ2ZDZkNmQ2ZDZkNmQ2ZDYifQ==',
          endCursor: 'eyJJRCI6ImQyZDJkMmQyZDJkMmQyZDJkMmQyZDJkMmQyZDJkMmQyZDJkMmQyZDJkMmQyZDJkMmQyZDJkMmQyZDJkMmQyZDIifQ==',
        },
      },
    },
  },
  {
    fixture: 'errors.expected.json',
    name: 'fix: teams statistics aggregationEpochs above 2^63-1 is a 400 (not 500)',
    method: 'GET',
    request: '/api/v2/teams/stats?aggregationEpochs=9223372036854775808',
    status: 400,
    body: {
      code: 3,
      message: 'parsing field "aggregation_epochs": strconv.ParseInt: parsing "9223372036854775808": value out of range',
      details: [],
    },
  },
];
