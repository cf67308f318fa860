import assert from 'node:assert/strict';
import type { Connection } from '../../src/contract/message.js';
import { get, UNCOMPRESSED } from './server.js';

type Page = Connection<unknown>;

/**
 * Walks a paged operation with `size`-row pages forward (first/after) and backward
 * (last/before), in both display orders, and checks that every walk yields exactly the rows of
 * the one-page answer, in order, with exact hasNextPage/hasPreviousPage on every page.
 * `base` is the request URL with its filters; `key` is the top-level key of the body.
 */
export async function assertPagingConsistent(base: string, key: string, size: number): Promise<number> {
  const sep = base.includes('?') ? '&' : '?';
  const fetchPage = async (params: string): Promise<Page> => {
    const res = await get(`${base}${sep}${params}`, UNCOMPRESSED);
    assert.equal(res.status, 200, res.text);
    return (res.body as Record<string, Page>)[key]!;
  };
  let total = 0;
  for (const newestFirst of [true, false]) {
    const all = (await fetchPage(`pagination.first=5000&pagination.newestFirst=${newestFirst}`)).edges;
    total = all.length;
    const nodes = all.map((e) => JSON.stringify(e.node));

    // Forward.
    const forward: string[] = [];
    let after: string | null = null;
    for (let i = 0; ; i++) {
      const page: Page = await fetchPage(
        `pagination.first=${size}&pagination.newestFirst=${newestFirst}${after ? `&pagination.after=${encodeURIComponent(after)}` : ''}`,
      );
      forward.push(...page.edges.map((e) => JSON.stringify(e.node)));
      assert.equal(page.pageInfo.hasPreviousPage, i > 0 && all.length > 0, `forward page ${i} hasPreviousPage`);
      assert.equal(page.pageInfo.hasNextPage, forward.length < all.length, `forward page ${i} hasNextPage`);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    assert.deepEqual(forward, nodes, `forward walk, newestFirst=${newestFirst}`);

    // Backward.
    const backward: string[] = [];
    let before: string | null = null;
    for (let i = 0; ; i++) {
      const page: Page = await fetchPage(
        `pagination.last=${size}&pagination.newestFirst=${newestFirst}` +
          (before ? `&pagination.before=${encodeURIComponent(before)}` : ''),
      );
      backward.unshift(...page.edges.map((e) => JSON.stringify(e.node)));
      assert.equal(page.pageInfo.hasNextPage, i > 0 && all.length > 0, `backward page ${i} hasNextPage`);
      assert.equal(page.pageInfo.hasPreviousPage, backward.length < all.length, `backward page ${i} hasPreviousPage`);
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    assert.deepEqual(backward, nodes, `backward walk, newestFirst=${newestFirst}`);
  }
  return total;
}
