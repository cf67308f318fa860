/**
 * Examples for the OpenAPI document, copied from the shared fixtures (their file and name are
 * kept, and test/openapi-fixtures.test.ts checks each one still equals its fixture's answer).
 */
export interface FixtureExample {
  /** The fixtures file and the entry's name. */
  fixture: string;
  name: string;
  method: string;
  request: string;
  status: number;
  body: unknown;
}

export const EXAMPLES: Readonly<Record<string, readonly FixtureExample[]>> = {
  "ListReferralSets": [
    {
      "fixture": "referral-sets.expected.json",
      "name": "tie: first=2 oldest first",
      "method": "GET",
      "request": "/api/v2/referral-sets?pagination.first=2&pagination.newestFirst=false",
      "status": 200,
      "body": {
        "referralSets": {
          "edges": [
            {
              "node": {
                "id": "36f675cc81e74ef5e8e25d940ed904759531985d5d9dc9f81818e811892f902b",
                "referrer": "0cb1e29c658cda1495e60af593bd04cf0fd630f1f29d0da9953f48f1a09f76b5",
                "createdAt": "1709250000250000000",
                "updatedAt": "1709250000250000000",
                "totalMembers": "1"
              },
              "cursor": "eyJDcmVhdGVkQXQiOiIyMDI0LTAyLTI5VDIzOjQwOjAwLjI1WiIsIklEIjoiMzZmNjc1Y2M4MWU3NGVmNWU4ZTI1ZDk0MGVkOTA0NzU5NTMxOTg1ZDVkOWRjOWY4MTgxOGU4MTE4OTJmOTAyYiJ9"
            },
            {
              "node": {
                "id": "8d116ece1738f7d93d9c172411e20b8f6b0d549b6f03675a1600a35a099950d8",
                "referrer": "6b4cb2424a23d5962217beaddbc496cb8e81973e0becd7b03898d190f9ebdacc",
                "createdAt": "1709250000250000000",
                "updatedAt": "1709250000250000000",
                "totalMembers": "2"
              },
              "cursor": "eyJDcmVhdGVkQXQiOiIyMDI0LTAyLTI5VDIzOjQwOjAwLjI1WiIsIklEIjoiOGQxMTZlY2UxNzM4ZjdkOTNkOWMxNzI0MTFlMjBiOGY2YjBkNTQ5YjZmMDM2NzVhMTYwMGEzNWEwOTk5NTBkOCJ9"
            }
          ],
          "pageInfo": {
            "hasNextPage": true,
            "hasPreviousPage": false,
            "startCursor": "eyJDcmVhdGVkQXQiOiIyMDI0LTAyLTI5VDIzOjQwOjAwLjI1WiIsIklEIjoiMzZmNjc1Y2M4MWU3NGVmNWU4ZTI1ZDk0MGVkOTA0NzU5NTMxOTg1ZDVkOWRjOWY4MTgxOGU4MTE4OTJmOTAyYiJ9",
            "endCursor": "eyJDcmVhdGVkQXQiOiIyMDI0LTAyLTI5VDIzOjQwOjAwLjI1WiIsIklEIjoiOGQxMTZlY2UxNzM4ZjdkOTNkOWMxNzI0MTFlMjBiOGY2YjBkNTQ5YjZmMDM2NzVhMTYwMGEzNWEwOTk5NTBkOCJ9"
          }
        }
      }
    },
    {
      "fixture": "referral-sets.expected.json",
      "name": "by id",
      "method": "GET",
      "request": "/api/v2/referral-sets?referralSetId=46f5a1b4b156d1ad330c16a3831d03bf9b2bd6c0816bee06f92e23399ccea098",
      "status": 200,
      "body": {
        "referralSets": {
          "edges": [
            {
              "node": {
                "id": "46f5a1b4b156d1ad330c16a3831d03bf9b2bd6c0816bee06f92e23399ccea098",
                "referrer": "3f665edef10637ce81fc069e7a609683ceaf4915888564e88216858f73ccef03",
                "createdAt": "1709251500123456000",
                "updatedAt": "1709251500123456000",
                "totalMembers": "11"
              },
              "cursor": "eyJDcmVhdGVkQXQiOiIyMDI0LTAzLTAxVDAwOjA1OjAwLjEyMzQ1NloiLCJJRCI6IjQ2ZjVhMWI0YjE1NmQxYWQzMzBjMTZhMzgzMWQwM2JmOWIyYmQ2YzA4MTZiZWUwNmY5MmUyMzM5OWNjZWEwOTgifQ=="
            }
          ],
          "pageInfo": {
            "hasNextPage": false,
            "hasPreviousPage": false,
            "startCursor": "eyJDcmVhdGVkQXQiOiIyMDI0LTAzLTAxVDAwOjA1OjAwLjEyMzQ1NloiLCJJRCI6IjQ2ZjVhMWI0YjE1NmQxYWQzMzBjMTZhMzgzMWQwM2JmOWIyYmQ2YzA4MTZiZWUwNmY5MmUyMzM5OWNjZWEwOTgifQ==",
            "endCursor": "eyJDcmVhdGVkQXQiOiIyMDI0LTAzLTAxVDAwOjA1OjAwLjEyMzQ1NloiLCJJRCI6IjQ2ZjVhMWI0YjE1NmQxYWQzMzBjMTZhMzgzMWQwM2JmOWIyYmQ2YzA4MTZiZWUwNmY5MmUyMzM5OWNjZWEwOTgifQ=="
          }
        }
      }
    },
    {
      "fixture": "referral-sets.expected.json",
      "name": "by id, unknown id",
      "method": "GET",
      "request": "/api/v2/referral-sets?referralSetId=abababababababababababababababababababababababababababababababab",
      "status": 200,
      "body": {
        "referralSets": {
          "edges": [],
          "pageInfo": {
            "hasNextPage": false,
            "hasPreviousPage": false,
            "startCursor": "",
            "endCursor": ""
          }
        }
      }
    },
    {
      "fixture": "errors.expected.json",
      "name": "parse: int32 not a number",
      "method": "GET",
      "request": "/api/v2/referral-sets?pagination.first=abc",
      "status": 400,
      "body": {
        "code": 3,
        "message": "parsing field \"first\": strconv.ParseInt: parsing \"abc\": invalid syntax",
        "details": []
      }
    },
    {
      "fixture": "errors.expected.json",
      "name": "pagination: first=0",
      "method": "GET",
      "request": "/api/v2/referral-sets?pagination.first=0",
      "status": 400,
      "body": {
        "code": 3,
        "message": "InvalidArgument error",
        "details": [
          {
            "@type": "type.googleapis.com/vega.ErrorDetail",
            "code": 10028,
            "message": "invalid pagination",
            "inner": "pagination limit must be in range 0-5000"
          }
        ]
      }
    },
    {
      "fixture": "errors.expected.json",
      "name": "pagination: bad base64 (no padding)",
      "method": "GET",
      "request": "/api/v2/referral-sets?pagination.after=eyJ",
      "status": 400,
      "body": {
        "code": 3,
        "message": "InvalidArgument error",
        "details": [
          {
            "@type": "type.googleapis.com/vega.ErrorDetail",
            "code": 10028,
            "message": "invalid pagination",
            "inner": "failed to decode after cursor: failed to decode cursor: illegal base64 data at input byte 0"
          }
        ]
      }
    },
    {
      "fixture": "errors.expected.json",
      "name": "id: referralSetId not hex",
      "method": "GET",
      "request": "/api/v2/referral-sets?referralSetId=zz",
      "status": 400,
      "body": {
        "code": 3,
        "message": "InvalidArgument error",
        "details": [
          {
            "@type": "type.googleapis.com/vega.ErrorDetail",
            "code": 10000,
            "message": "decoding 'zz': not a valid hex id (or well known exception)",
            "inner": ""
          }
        ]
      }
    }
  ],
  "ListTeamMembersStatistics": [
    {
      "fixture": "team-stats.expected.json",
      "name": "data-node test: team2, partyId=member21",
      "method": "GET",
      "request": "/api/v2/teams/a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2/stats?aggregationEpochs=2&partyId=c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1",
      "status": 200,
      "body": {
        "statistics": {
          "edges": [
            {
              "node": {
                "partyId": "c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1",
                "totalQuantumVolume": "2",
                "totalQuantumRewards": "11",
                "quantumRewards": [
                  {
                    "epoch": "2",
                    "totalQuantumRewards": "5"
                  },
                  {
                    "epoch": "3",
                    "totalQuantumRewards": "6"
                  }
                ],
                "totalGamesPlayed": "1",
                "gamesPlayed": [
                  "2202020202020202020202020202020202020202020202020202020202020202"
                ],
                "quantumVolumes": [
                  {
                    "epoch": "2",
                    "totalQuantumVolumes": "1"
                  },
                  {
                    "epoch": "3",
                    "totalQuantumVolumes": "1"
                  }
                ]
              },
              "cursor": "eyJJRCI6ImMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzEifQ=="
            }
          ],
          "pageInfo": {
            "hasNextPage": false,
            "hasPreviousPage": false,
            "startCursor": "eyJJRCI6ImMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzEifQ==",
            "endCursor": "eyJJRCI6ImMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzFjMWMxYzEifQ=="
          }
        }
      }
    },
    {
      "fixture": "team-stats.expected.json",
      "name": "team2, default aggregationEpochs (10): fewer epochs of data, left out",
      "method": "GET",
      "request": "/api/v2/teams/a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2/stats",
      "status": 200,
      "body": {
        "statistics": {
          "edges": [],
          "pageInfo": {
            "hasNextPage": false,
            "hasPreviousPage": false,
            "startCursor": "",
            "endCursor": ""
          }
        }
      }
    },
    {
      "fixture": "errors.expected.json",
      "name": "fix: uint64 above 2^63-1 is a 400 (not 500)",
      "method": "GET",
      "request": "/api/v2/teams/a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2/stats?aggregationEpochs=9223372036854775808",
      "status": 400,
      "body": {
        "code": 3,
        "message": "parsing field \"aggregation_epochs\": strconv.ParseInt: parsing \"9223372036854775808\": value out of range",
        "details": []
      }
    },
    {
      "fixture": "errors.expected.json",
      "name": "pagination: last=0",
      "method": "GET",
      "request": "/api/v2/teams/a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2/stats?pagination.last=0",
      "status": 400,
      "body": {
        "code": 3,
        "message": "InvalidArgument error",
        "details": [
          {
            "@type": "type.googleapis.com/vega.ErrorDetail",
            "code": 10028,
            "message": "invalid pagination",
            "inner": "pagination limit must be in range 0-5000"
          }
        ]
      }
    },
    {
      "fixture": "errors.expected.json",
      "name": "id: team id in the path not hex",
      "method": "GET",
      "request": "/api/v2/teams/xyz/stats",
      "status": 400,
      "body": {
        "code": 3,
        "message": "InvalidArgument error",
        "details": [
          {
            "@type": "type.googleapis.com/vega.ErrorDetail",
            "code": 10000,
            "message": "failed to list team referees",
            "inner": "decoding 'xyz': not a valid hex id (or well known exception)"
          }
        ]
      }
    }
  ],
  "ListEpochRewardSummaries": [
    {
      "fixture": "epoch-summaries.expected.json",
      "name": "research pagination matrix: first=3 newestFirst=false",
      "method": "GET",
      "request": "/api/v2/rewards/epoch/summaries?filter.assetIds=8AA92225C32ADB54E527FCB1AEE2930CBADB4DF6F068AB2C2D667EB057EF00FA&pagination.first=3&pagination.newestFirst=false",
      "status": 200,
      "body": {
        "summaries": {
          "edges": [
            {
              "node": {
                "epoch": "637",
                "assetId": "8aa92225c32adb54e527fcb1aee2930cbadb4df6f068ab2c2d667eb057ef00fa",
                "marketId": "",
                "rewardType": "ACCOUNT_TYPE_UNSPECIFIED",
                "amount": "1"
              },
              "cursor": "eyJlcG9jaF9pZCI6NjM3LCJhc3NldF9pZCI6IjhhYTkyMjI1YzMyYWRiNTRlNTI3ZmNiMWFlZTI5MzBjYmFkYjRkZjZmMDY4YWIyYzJkNjY3ZWIwNTdlZjAwZmEiLCJtYXJrZXRfaWQiOiIiLCJyZXdhcmRfdHlwZSI6IkFDQ09VTlRfVFlQRV9VTlNQRUNJRklFRCIsImFtb3VudCI6IjEifQ=="
            },
            {
              "node": {
                "epoch": "642",
                "assetId": "8aa92225c32adb54e527fcb1aee2930cbadb4df6f068ab2c2d667eb057ef00fa",
                "marketId": "",
                "rewardType": "ACCOUNT_TYPE_UNSPECIFIED",
                "amount": "0"
              },
              "cursor": "eyJlcG9jaF9pZCI6NjQyLCJhc3NldF9pZCI6IjhhYTkyMjI1YzMyYWRiNTRlNTI3ZmNiMWFlZTI5MzBjYmFkYjRkZjZmMDY4YWIyYzJkNjY3ZWIwNTdlZjAwZmEiLCJtYXJrZXRfaWQiOiIiLCJyZXdhcmRfdHlwZSI6IkFDQ09VTlRfVFlQRV9VTlNQRUNJRklFRCIsImFtb3VudCI6IjAifQ=="
            },
            {
              "node": {
                "epoch": "643",
                "assetId": "8aa92225c32adb54e527fcb1aee2930cbadb4df6f068ab2c2d667eb057ef00fa",
                "marketId": "",
                "rewardType": "ACCOUNT_TYPE_UNSPECIFIED",
                "amount": "1"
              },
              "cursor": "eyJlcG9jaF9pZCI6NjQzLCJhc3NldF9pZCI6IjhhYTkyMjI1YzMyYWRiNTRlNTI3ZmNiMWFlZTI5MzBjYmFkYjRkZjZmMDY4YWIyYzJkNjY3ZWIwNTdlZjAwZmEiLCJtYXJrZXRfaWQiOiIiLCJyZXdhcmRfdHlwZSI6IkFDQ09VTlRfVFlQRV9VTlNQRUNJRklFRCIsImFtb3VudCI6IjEifQ=="
            }
          ],
          "pageInfo": {
            "hasNextPage": true,
            "hasPreviousPage": false,
            "startCursor": "eyJlcG9jaF9pZCI6NjM3LCJhc3NldF9pZCI6IjhhYTkyMjI1YzMyYWRiNTRlNTI3ZmNiMWFlZTI5MzBjYmFkYjRkZjZmMDY4YWIyYzJkNjY3ZWIwNTdlZjAwZmEiLCJtYXJrZXRfaWQiOiIiLCJyZXdhcmRfdHlwZSI6IkFDQ09VTlRfVFlQRV9VTlNQRUNJRklFRCIsImFtb3VudCI6IjEifQ==",
            "endCursor": "eyJlcG9jaF9pZCI6NjQzLCJhc3NldF9pZCI6IjhhYTkyMjI1YzMyYWRiNTRlNTI3ZmNiMWFlZTI5MzBjYmFkYjRkZjZmMDY4YWIyYzJkNjY3ZWIwNTdlZjAwZmEiLCJtYXJrZXRfaWQiOiIiLCJyZXdhcmRfdHlwZSI6IkFDQ09VTlRfVFlQRV9VTlNQRUNJRklFRCIsImFtb3VudCI6IjEifQ=="
          }
        }
      }
    },
    {
      "fixture": "epoch-summaries.expected.json",
      "name": "marketIds=deadbeef matches nothing (payouts carry no market)",
      "method": "GET",
      "request": "/api/v2/rewards/epoch/summaries?filter.marketIds=deadbeef",
      "status": 200,
      "body": {
        "summaries": {
          "edges": [],
          "pageInfo": {
            "hasNextPage": false,
            "hasPreviousPage": false,
            "startCursor": "",
            "endCursor": ""
          }
        }
      }
    },
    {
      "fixture": "errors.expected.json",
      "name": "parse: toEpoch not a number",
      "method": "GET",
      "request": "/api/v2/rewards/epoch/summaries?filter.toEpoch=two",
      "status": 400,
      "body": {
        "code": 3,
        "message": "parsing field \"to_epoch\": strconv.ParseUint: parsing \"two\": invalid syntax",
        "details": []
      }
    },
    {
      "fixture": "errors.expected.json",
      "name": "fix: cursor is base64 but not JSON",
      "method": "GET",
      "request": "/api/v2/referral-sets?pagination.after=bm90IGpzb24%3D",
      "status": 400,
      "body": {
        "code": 3,
        "message": "InvalidArgument error",
        "details": [
          {
            "@type": "type.googleapis.com/vega.ErrorDetail",
            "code": 10028,
            "message": "invalid pagination",
            "inner": "failed to decode after cursor: invalid cursor"
          }
        ]
      }
    },
    {
      "fixture": "errors.expected.json",
      "name": "id: asset id not hex",
      "method": "GET",
      "request": "/api/v2/rewards/epoch/summaries?filter.assetIds=FBTC",
      "status": 400,
      "body": {
        "code": 3,
        "message": "InvalidArgument error",
        "details": [
          {
            "@type": "type.googleapis.com/vega.ErrorDetail",
            "code": 140001,
            "message": "failed to get summary",
            "inner": "could not decode asset ID: decoding 'FBTC': not a valid hex id (or well known exception)"
          }
        ]
      }
    }
  ],
  "shared": [
    {
      "fixture": "errors.expected.json",
      "name": "route: trailing slash",
      "method": "GET",
      "request": "/api/v2/referral-sets/",
      "status": 404,
      "body": {
        "code": 5,
        "message": "Not Found",
        "details": []
      }
    },
    {
      "fixture": "errors.expected.json",
      "name": "method: POST",
      "method": "POST",
      "request": "/api/v2/referral-sets",
      "status": 501,
      "body": {
        "code": 12,
        "message": "Method Not Allowed",
        "details": []
      }
    }
  ]
};
