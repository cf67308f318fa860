/**
 * The compiled writers' kept edges (compiled.ts, KeptEdges): a page of the row cache's texts
 * (one Buffer a row) answers byte for byte as the same page of the store's text (one string),
 * first and again from the kept edges, and a row's new text (a new version, a new Buffer) is
 * written afresh, never answered from the old one's edge.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type OperationDefinitionNode, parse } from 'graphql';
import { compile, writeAnswer } from '../../src/graphql/compiled.js';
import { resolveRoot } from '../../src/graphql/execute.js';
import { ROOT_FIELDS } from '../../src/graphql/roots.js';
import { localSchema } from '../../src/graphql/schema.js';
import { keptEdges, PageResult } from '../../src/pagination/result.js';

const schema = localSchema(ROOT_FIELDS, resolveRoot);

function compiled(query: string) {
  const document = parse(query);
  const c = compile(schema, document, document.definitions[0] as OperationDefinitionNode);
  assert.ok(c, 'compiled');
  return c;
}

const referralSet = (id: string, members: string, updatedAt: string) =>
  `{"node":{"id":"${id}","referrer":"${'b'.repeat(64)}","createdAt":"1700000000123456789","updatedAt":"${updatedAt}","totalMembers":"${members}"},"cursor":"${Buffer.from(id).toString('base64')}"}`;

const page = (edges: string[] | Buffer[]) =>
  new PageResult('referralSets', typeof edges[0] === 'string' ? edges.join(',') : keptEdges(edges as Buffer[]), true, false, null);

test('kept edges answer as the store text does, and a new text is written afresh', () => {
  const query = '{ referralSets { edges { node { id totalMembers updatedAt __typename } cursor } pageInfo { startCursor hasNextPage } } }';
  const c = compiled(query);
  const texts = [referralSet('a1', '3', '0'), referralSet('a2', '7', '1700000001000000000')];
  const buffers = texts.map((t) => Buffer.from(t));
  const expected = writeAnswer(c, [page(texts)]).toString();
  assert.match(expected, /"totalMembers":3,"updatedAt":null,"__typename":"ReferralSet"\},"cursor":"YTE="\}/);
  assert.equal(writeAnswer(c, [page(buffers)]).toString(), expected);
  assert.equal(writeAnswer(c, [page(buffers)]).toString(), expected, 'from the kept edges');
  // The row a2 changed: its new version's text is another Buffer.
  const changed = [buffers[0]!, Buffer.from(referralSet('a2', '8', '1700000002000000000'))];
  const after = writeAnswer(c, [page(changed)]).toString();
  assert.equal(after, writeAnswer(c, [page([texts[0]!, referralSet('a2', '8', '1700000002000000000')])]).toString());
  assert.match(after, /"totalMembers":8,"updatedAt":"2023-11-14T22:13:22Z"/);
  // Another selection of the same rows keeps its own edges.
  const other = compiled('{ referralSets { edges { cursor node { id } } } }');
  assert.equal(
    writeAnswer(other, [page(buffers)]).toString(),
    '{"data":{"referralSets":{"edges":[{"cursor":"YTE=","node":{"id":"a1"}},{"cursor":"YTI=","node":{"id":"a2"}}]}}}',
  );
  assert.equal(
    writeAnswer(c, [page([])]).toString(),
    '{"data":{"referralSets":{"edges":[],"pageInfo":{"startCursor":"","hasNextPage":true}}}}',
  );
});
