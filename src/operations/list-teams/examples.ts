import type { FixtureExample } from '../../contract/openapi.js';

/**
 * Examples for the OpenAPI document, copied from test/fixtures (their file and name are kept, and
 * test/http/openapi-fixtures.test.ts checks that each one still equals its fixture's answer).
 */
export const EXAMPLES: readonly FixtureExample[] = [
  {
    fixture: 'teams.expected.json',
    name: 'teams: by id, a name that needs escaping and explicit empty URLs',
    method: 'GET',
    request: '/api/v2/teams?teamId=d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3',
    status: 200,
    body: {
      teams: {
        edges: [
          {
            node: {
              teamId: 'd3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3',
              referrer: 'e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3',
              name: '<b>"three"</b> & co',
              teamUrl: '',
              avatarUrl: '',
              createdAt: '1717200180000000000',
              closed: false,
              createdAtEpoch: '1',
              allowList: [],
              totalMembers: '1',
            },
            cursor:
              'eyJDcmVhdGVkQXQiOiIyMDI0LTA2LTAxVDAwOjAzOjAwWiIsIklEIjoiZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkMyJ9',
          },
        ],
        pageInfo: {
          hasNextPage: false,
          hasPreviousPage: false,
          startCursor:
            'eyJDcmVhdGVkQXQiOiIyMDI0LTA2LTAxVDAwOjAzOjAwWiIsIklEIjoiZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkMyJ9',
          endCursor:
            'eyJDcmVhdGVkQXQiOiIyMDI0LTA2LTAxVDAwOjAzOjAwWiIsIklEIjoiZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkM2QzZDNkMyJ9',
        },
      },
    },
  },
  {
    fixture: 'teams.expected.json',
    name: 'fix: teams: by party, removed from every team: empty page with an empty pageInfo',
    method: 'GET',
    request: '/api/v2/teams?partyId=f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2',
    status: 200,
    body: {
      teams: {
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
    name: 'id: teams teamId not hex',
    method: 'GET',
    request: '/api/v2/teams?teamId=zz',
    status: 400,
    body: {
      code: 3,
      message: 'InvalidArgument error',
      details: [
        {
          '@type': 'type.googleapis.com/vega.ErrorDetail',
          code: 10000,
          message: 'failed to list teams',
          inner: "decoding 'zz': not a valid hex id (or well known exception)",
        },
      ],
    },
  },
];
