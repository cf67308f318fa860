// A stand-in for a data-node's /graphql, with fixed data, serving root fields epochview does not
// own (and a referralSets of its own, which epochview must not use). argv: port (0: any), schema
// version (1, 2 or 3: version 2 adds volumeDiscountStats, version 3 has it as the console's Fees
// document asks it: a party's page). Prints "listening <url>" once it listens.
import { createServer } from 'node:http';
import { buildSchema, graphql, parse, validate } from 'graphql';

const port = Number(process.argv[2] ?? 0);
const version = Number(process.argv[3] ?? 1);
const schema = buildSchema(`
  type Query {
    epoch: Epoch!
    games(gameId: ID): GameConnection
    party(id: ID!): Party
    referralSets: String
    broken: String
    ${version === 2 ? 'volumeDiscountStats: VolumeDiscountStats' : ''}
    ${version >= 3 ? 'volumeDiscountStats(partyId: ID!, pagination: Pagination): VolumeDiscountStatsConnection!' : ''}
  }
  input Pagination { first: Int after: String last: Int before: String }
  type VolumeDiscountStatsConnection { edges: [VolumeDiscountStatsEdge]! }
  type VolumeDiscountStatsEdge { node: VolumeDiscountStatsV3! }
  type VolumeDiscountStatsV3 { atEpoch: Int! partyId: ID! discountFactors: VolumeDiscountFactors! runningVolumeNotional: String! }
  type VolumeDiscountFactors { infrastructureFactor: String! makerFactor: String! liquidityFactor: String! }
  type Epoch { id: ID! timestamps: EpochTimestamps! }
  type EpochTimestamps { start: String! }
  type GameConnection { edges: [GameEdge!]! }
  type GameEdge { node: Game! }
  type Game { gameId: ID! name: String! }
  type Party { id: ID! parent: Party }
  type VolumeDiscountStats { discountFactor: String! }
`);
const root = {
  epoch: { id: '20', timestamps: { start: '2024-12-31T00:00:00Z' } },
  games: ({ gameId }) => ({ edges: [{ node: { gameId: gameId ?? 'aa', name: 'Wild Comets' } }] }),
  party: ({ id }) => ({ id, parent: () => root.party({ id: `${id}0` }) }),
  referralSets: 'the upstream',
  broken: () => {
    throw new Error('the upstream failed here');
  },
  volumeDiscountStats:
    version >= 3
      ? ({ partyId }) => ({
          edges: [
            {
              node: {
                atEpoch: 19,
                partyId,
                discountFactors: { infrastructureFactor: '0.01', makerFactor: '0.01', liquidityFactor: '0.01' },
                runningVolumeNotional: '12000',
              },
            },
          ],
        })
      : { discountFactor: '0.1' },
};

createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', async () => {
    const { query, variables, operationName } = JSON.parse(body);
    const invalid = validate(schema, parse(query));
    const answer =
      invalid.length > 0
        ? { errors: invalid, data: null }
        : await graphql({ schema, source: query, rootValue: root, variableValues: variables, operationName });
    res.writeHead(invalid.length > 0 ? 422 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
  });
}).listen(port, '127.0.0.1', function () {
  console.log(`listening http://127.0.0.1:${this.address().port}/graphql`);
});
