import type { FixtureExample } from '../../contract/openapi.js';

/**
 * Examples for the OpenAPI document, copied from test/fixtures (their file and name are kept, and
 * test/http/openapi-fixtures.test.ts checks that each one still equals its fixture's answer).
 */
export const EXAMPLES: readonly FixtureExample[] = [
  {
    fixture: 'epoch-summaries.expected.json',
    name: 'research pagination matrix: first=3 newestFirst=false',
    method: 'GET',
    request:
      '/api/v2/rewards/epoch/summaries?filter.assetIds=8AA92225C32ADB54E527FCB1AEE2930CBADB4DF6F068AB2C2D667EB057EF00FA&pagination.first=3&pagination.newestFirst=false',
    status: 200,
    body: {
      summaries: {
        edges: [
          {
            node: {
              epoch: '637',
              assetId: '8aa92225c32adb54e527fcb1aee2930cbadb4df6f068ab2c2d667eb057ef00fa',
              marketId: '',
              rewardType: 'ACCOUNT_TYPE_UNSPECIFIED',
              amount: '1',
            },
            cursor:
              'eyJlcG9jaF9pZCI6NjM3LCJhc3NldF9pZCI6IjhhYTkyMjI1YzMyYWRiNTRlNTI3ZmNiMWFlZTI5MzBjYmFkYjRkZjZmMDY4YWIyYzJkNjY3ZWIwNTdlZjAwZmEiLCJtYXJrZXRfaWQiOiIiLCJyZXdhcmRfdHlwZSI6IkFDQ09VTlRfVFlQRV9VTlNQRUNJRklFRCIsImFtb3VudCI6IjEifQ==',
          },
          {
            node: {
              epoch: '642',
              assetId: '8aa92225c32adb54e527fcb1aee2930cbadb4df6f068ab2c2d667eb057ef00fa',
              marketId: '',
              rewardType: 'ACCOUNT_TYPE_UNSPECIFIED',
              amount: '0',
            },
            cursor:
              'eyJlcG9jaF9pZCI6NjQyLCJhc3NldF9pZCI6IjhhYTkyMjI1YzMyYWRiNTRlNTI3ZmNiMWFlZTI5MzBjYmFkYjRkZjZmMDY4YWIyYzJkNjY3ZWIwNTdlZjAwZmEiLCJtYXJrZXRfaWQiOiIiLCJyZXdhcmRfdHlwZSI6IkFDQ09VTlRfVFlQRV9VTlNQRUNJRklFRCIsImFtb3VudCI6IjAifQ==',
          },
          {
            node: {
              epoch: '643',
              assetId: '8aa92225c32adb54e527fcb1aee2930cbadb4df6f068ab2c2d667eb057ef00fa',
              marketId: '',
              rewardType: 'ACCOUNT_TYPE_UNSPECIFIED',
              amount: '1',
            },
            cursor:
              'eyJlcG9jaF9pZCI6NjQzLCJhc3NldF9pZCI6IjhhYTkyMjI1YzMyYWRiNTRlNTI3ZmNiMWFlZTI5MzBjYmFkYjRkZjZmMDY4YWIyYzJkNjY3ZWIwNTdlZjAwZmEiLCJtYXJrZXRfaWQiOiIiLCJyZXdhcmRfdHlwZSI6IkFDQ09VTlRfVFlQRV9VTlNQRUNJRklFRCIsImFtb3VudCI6IjEifQ==',
          },
        ],
        pageInfo: {
          hasNextPage: true,
          hasPreviousPage: false,
          startCursor:
            'eyJlcG9jaF9pZCI6NjM3LCJhc3NldF9pZCI6IjhhYTkyMjI1YzMyYWRiNTRlNTI3ZmNiMWFlZTI5MzBjYmFkYjRkZjZmMDY4YWIyYzJkNjY3ZWIwNTdlZjAwZmEiLCJtYXJrZXRfaWQiOiIiLCJyZXdhcmRfdHlwZSI6IkFDQ09VTlRfVFlQRV9VTlNQRUNJRklFRCIsImFtb3VudCI6IjEifQ==',
          endCursor:
            'eyJlcG9jaF9pZCI6NjQzLCJhc3NldF9pZCI6IjhhYTkyMjI1YzMyYWRiNTRlNTI3ZmNiMWFlZTI5MzBjYmFkYjRkZjZmMDY4YWIyYzJkNjY3ZWIwNTdlZjAwZmEiLCJtYXJrZXRfaWQiOiIiLCJyZXdhcmRfdHlwZSI6IkFDQ09VTlRfVFlQRV9VTlNQRUNJRklFRCIsImFtb3VudCI6IjEifQ==',
        },
      },
    },
  },
  {
    fixture: 'epoch-summaries.expected.json',
    name: 'marketIds=deadbeef matches nothing (payouts carry no market)',
    method: 'GET',
    request: '/api/v2/rewards/epoch/summaries?filter.marketIds=deadbeef',
    status: 200,
    body: {
      summaries: {
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
    name: 'parse: toEpoch not a number',
    method: 'GET',
    request: '/api/v2/rewards/epoch/summaries?filter.toEpoch=two',
    status: 400,
    body: {
      code: 3,
      message: 'parsing field "to_epoch": strconv.ParseUint: parsing "two": invalid syntax',
      details: [],
    },
  },
  {
    fixture: 'errors.expected.json',
    name: 'fix: cursor is base64 but not JSON',
    method: 'GET',
    request: '/api/v2/referral-sets?pagination.after=bm90IGpzb24%3D',
    status: 400,
    body: {
      code: 3,
      message: 'InvalidArgument error',
      details: [
        {
          '@type': 'type.googleapis.com/vega.ErrorDetail',
          code: 10028,
          message: 'invalid pagination',
          inner: 'failed to decode after cursor: invalid cursor',
        },
      ],
    },
  },
  {
    fixture: 'errors.expected.json',
    name: 'id: asset id not hex',
    method: 'GET',
    request: '/api/v2/rewards/epoch/summaries?filter.assetIds=FBTC',
    status: 400,
    body: {
      code: 3,
      message: 'InvalidArgument error',
      details: [
        {
          '@type': 'type.googleapis.com/vega.ErrorDetail',
          code: 140001,
          message: 'failed to get summary',
          inner: "could not decode asset ID: decoding 'FBTC': not a valid hex id (or well known exception)",
        },
      ],
    },
  },
];
