import type { FixtureExample } from '../../contract/openapi.js';

/**
 * Examples for the OpenAPI document, copied from test/fixtures (their file and name are kept, and
 * test/http/openapi-fixtures.test.ts checks that each one still equals its fixture's answer).
 */
export const EXAMPLES: readonly FixtureExample[] = [
  {
    fixture: 'referral-sets.expected.json',
    name: 'tie: first=2 oldest first',
    method: 'GET',
    request: '/api/v2/referral-sets?pagination.first=2&pagination.newestFirst=false',
    status: 200,
    body: {
      referralSets: {
        edges: [
          {
            node: {
              id: '36f675cc81e74ef5e8e25d940ed904759531985d5d9dc9f81818e811892f902b',
              referrer: '0cb1e29c658cda1495e60af593bd04cf0fd630f1f29d0da9953f48f1a09f76b5',
              createdAt: '1709250000250000000',
              updatedAt: '1709250000250000000',
              totalMembers: '1',
            },
            cursor:
              'eyJDcmVhdGVkQXQiOiIyMDI0LTAyLTI5VDIzOjQwOjAwLjI1WiIsIklEIjoiMzZmNjc1Y2M4MWU3NGVmNWU4ZTI1ZDk0MGVkOTA0NzU5NTMxOTg1ZDVkOWRjOWY4MTgxOGU4MTE4OTJmOTAyYiJ9',
          },
          {
            node: {
              id: '8d116ece1738f7d93d9c172411e20b8f6b0d549b6f03675a1600a35a099950d8',
              referrer: '6b4cb2424a23d5962217beaddbc496cb8e81973e0becd7b03898d190f9ebdacc',
              createdAt: '1709250000250000000',
              updatedAt: '1709250000250000000',
              totalMembers: '2',
            },
            cursor:
              'eyJDcmVhdGVkQXQiOiIyMDI0LTAyLTI5VDIzOjQwOjAwLjI1WiIsIklEIjoiOGQxMTZlY2UxNzM4ZjdkOTNkOWMxNzI0MTFlMjBiOGY2YjBkNTQ5YjZmMDM2NzVhMTYwMGEzNWEwOTk5NTBkOCJ9',
          },
        ],
        pageInfo: {
          hasNextPage: true,
          hasPreviousPage: false,
          startCursor:
            'eyJDcmVhdGVkQXQiOiIyMDI0LTAyLTI5VDIzOjQwOjAwLjI1WiIsIklEIjoiMzZmNjc1Y2M4MWU3NGVmNWU4ZTI1ZDk0MGVkOTA0NzU5NTMxOTg1ZDVkOWRjOWY4MTgxOGU4MTE4OTJmOTAyYiJ9',
          endCursor:
            'eyJDcmVhdGVkQXQiOiIyMDI0LTAyLTI5VDIzOjQwOjAwLjI1WiIsIklEIjoiOGQxMTZlY2UxNzM4ZjdkOTNkOWMxNzI0MTFlMjBiOGY2YjBkNTQ5YjZmMDM2NzVhMTYwMGEzNWEwOTk5NTBkOCJ9',
        },
      },
    },
  },
  {
    fixture: 'referral-sets.expected.json',
    name: 'by id',
    method: 'GET',
    request: '/api/v2/referral-sets?referralSetId=46f5a1b4b156d1ad330c16a3831d03bf9b2bd6c0816bee06f92e23399ccea098',
    status: 200,
    body: {
      referralSets: {
        edges: [
          {
            node: {
              id: '46f5a1b4b156d1ad330c16a3831d03bf9b2bd6c0816bee06f92e23399ccea098',
              referrer: '3f665edef10637ce81fc069e7a609683ceaf4915888564e88216858f73ccef03',
              createdAt: '1709251500123456000',
              updatedAt: '1709251500123456000',
              totalMembers: '11',
            },
            cursor:
              'eyJDcmVhdGVkQXQiOiIyMDI0LTAzLTAxVDAwOjA1OjAwLjEyMzQ1NloiLCJJRCI6IjQ2ZjVhMWI0YjE1NmQxYWQzMzBjMTZhMzgzMWQwM2JmOWIyYmQ2YzA4MTZiZWUwNmY5MmUyMzM5OWNjZWEwOTgifQ==',
          },
        ],
        pageInfo: {
          hasNextPage: false,
          hasPreviousPage: false,
          startCursor:
            'eyJDcmVhdGVkQXQiOiIyMDI0LTAzLTAxVDAwOjA1OjAwLjEyMzQ1NloiLCJJRCI6IjQ2ZjVhMWI0YjE1NmQxYWQzMzBjMTZhMzgzMWQwM2JmOWIyYmQ2YzA4MTZiZWUwNmY5MmUyMzM5OWNjZWEwOTgifQ==',
          endCursor:
            'eyJDcmVhdGVkQXQiOiIyMDI0LTAzLTAxVDAwOjA1OjAwLjEyMzQ1NloiLCJJRCI6IjQ2ZjVhMWI0YjE1NmQxYWQzMzBjMTZhMzgzMWQwM2JmOWIyYmQ2YzA4MTZiZWUwNmY5MmUyMzM5OWNjZWEwOTgifQ==',
        },
      },
    },
  },
  {
    fixture: 'referral-sets.expected.json',
    name: 'by id, unknown id',
    method: 'GET',
    request: '/api/v2/referral-sets?referralSetId=abababababababababababababababababababababababababababababababab',
    status: 200,
    body: {
      referralSets: {
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
    name: 'parse: int32 not a number',
    method: 'GET',
    request: '/api/v2/referral-sets?pagination.first=abc',
    status: 400,
    body: {
      code: 3,
      message: 'parsing field "first": strconv.ParseInt: parsing "abc": invalid syntax',
      details: [],
    },
  },
  {
    fixture: 'errors.expected.json',
    name: 'pagination: first=0',
    method: 'GET',
    request: '/api/v2/referral-sets?pagination.first=0',
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
    name: 'pagination: bad base64 (no padding)',
    method: 'GET',
    request: '/api/v2/referral-sets?pagination.after=eyJ',
    status: 400,
    body: {
      code: 3,
      message: 'InvalidArgument error',
      details: [
        {
          '@type': 'type.googleapis.com/vega.ErrorDetail',
          code: 10028,
          message: 'invalid pagination',
          inner: 'failed to decode after cursor: failed to decode cursor: illegal base64 data at input byte 0',
        },
      ],
    },
  },
  {
    fixture: 'errors.expected.json',
    name: 'id: referralSetId not hex',
    method: 'GET',
    request: '/api/v2/referral-sets?referralSetId=zz',
    status: 400,
    body: {
      code: 3,
      message: 'InvalidArgument error',
      details: [
        {
          '@type': 'type.googleapis.com/vega.ErrorDetail',
          code: 10000,
          message: "decoding 'zz': not a valid hex id (or well known exception)",
          inner: '',
        },
      ],
    },
  },
];
