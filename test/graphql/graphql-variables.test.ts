import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSchema, getVariableValues, type GraphQLSchema, type OperationDefinitionNode, parse } from 'graphql';
import { resolveRoot } from '../../src/graphql/execute.js';
import { ROOT_FIELDS } from '../../src/graphql/roots.js';
import { localSchema } from '../../src/graphql/schema.js';
import { coerceVariables } from '../../src/graphql/variables.js';

/** Input types of every kind, beside ours: enums, required fields, defaults, oneOf, nesting, a type that holds itself. */
const OTHER = buildSchema(`
  enum Side { BUY SELL }
  input Inner { side: Side!, ids: [ID!]! }
  input Outer { inner: Inner, list: [[Int]], flag: Boolean, ratio: Float, name: String }
  input WithDefault { n: Int = 3 }
  input Tree { label: String, children: [Tree!] }
  input Choice @oneOf { a: Int, b: String }
  type Query { f(o: Outer, d: WithDefault, t: Tree, c: Choice, s: Side, n: Int!): Int }
`);

function operation(defs: string): OperationDefinitionNode {
  return parse(`query Q(${defs}) { __typename }`).definitions[0] as OperationDefinitionNode;
}

/** The fast coercion gives graphql-js's values exactly, or leaves the request to it; returns whether it coerced. */
function compare(schema: GraphQLSchema, op: OperationDefinitionNode, inputs: Record<string, unknown>): boolean {
  const fast = coerceVariables(schema, op, inputs);
  const slow = getVariableValues(schema, op.variableDefinitions ?? [], inputs);
  if (fast === undefined) return false;
  assert.equal(slow.errors, undefined, JSON.stringify(inputs));
  assert.deepStrictEqual(fast, slow.coerced, JSON.stringify(inputs));
  return true;
}

test("variables are coerced as graphql-js's getVariableValues coerces them, or left to it", () => {
  const ours = localSchema(ROOT_FIELDS, resolveRoot);
  const page = operation('$id: ID, $pagination: Pagination, $filter: RewardSummaryFilter, $teamId: ID!, $epochs: Int');
  const plain: Record<string, unknown>[] = [
    { teamId: 'ab' },
    { teamId: 12, id: null, epochs: 30 },
    { teamId: 'ab', pagination: { first: 50, after: 'eyJ9' } },
    { teamId: 'ab', pagination: { last: 2, before: null, first: null } },
    { teamId: 'ab', pagination: null, filter: { assetIds: [], marketIds: ['m1', 2] } },
    // A single value where a list is asked: a list of one.
    { teamId: 'ab', filter: { assetIds: 'a1', fromEpoch: 3, toEpoch: null } },
    { teamId: 'ab', filter: {}, other: { ignored: [1, 2] } },
  ];
  for (const inputs of plain) assert.equal(compare(ours, page, inputs), true, JSON.stringify(inputs));
  const refused: Record<string, unknown>[] = [
    {},
    { teamId: null },
    { teamId: 1.5 },
    { teamId: true },
    { teamId: 'ab', epochs: 2 ** 31 },
    { teamId: 'ab', epochs: '3' },
    { teamId: 'ab', pagination: { first: 50, page: 2 } },
    { teamId: 'ab', pagination: [{ first: 1 }] },
    { teamId: 'ab', pagination: 'first' },
    { teamId: 'ab', filter: { assetIds: [null] } },
    { teamId: 'ab', filter: { assetIds: [{}] } },
  ];
  for (const inputs of refused) assert.equal(compare(ours, page, inputs), false, JSON.stringify(inputs));

  const other = operation('$o: Outer, $s: Side, $n: Int!');
  assert.equal(compare(OTHER, other, { n: 1, s: 'SELL', o: { inner: { side: 'BUY', ids: ['x', 7] }, list: [[1, null], 2, null] } }), true);
  assert.equal(compare(OTHER, other, { n: 1, o: { flag: false, ratio: 2.5, name: 'é<>', list: 4 } }), true);
  assert.equal(compare(OTHER, other, { n: 1, o: { inner: null } }), true);
  for (const inputs of [{ n: 1, s: 'HOLD' }, { n: 1, o: { inner: { side: 'BUY' } } }, { n: 1, o: { ratio: 'x' } }, { n: null }])
    assert.equal(compare(OTHER, other, inputs), false, JSON.stringify(inputs));
  // Defaults, oneOf inputs and a type that holds itself: graphql-js's alone.
  for (const [defs, inputs] of [
    ['$n: Int = 5', {}],
    ['$d: WithDefault', { d: {} }],
    ['$c: Choice', { c: { a: 1 } }],
    ['$t: Tree', { t: { label: 'a', children: [{ label: 'b' }] } }],
    ['$__proto__: Int', JSON.parse('{"__proto__": 5}') as Record<string, unknown>],
  ] as const)
    assert.equal(compare(OTHER, operation(defs), inputs), false, defs);
});
