/**
 * The explorer's pages as HTTP: `/` and the page routes answer the built front-end's HTML
 * (revalidated each visit), its fingerprinted files are served with their content types and a
 * year-long immutable cache lifetime, and everything else keeps the contract's 404 body. Pages
 * and files carry the security headers (Content-Security-Policy and friends); API answers do not.
 *
 * The pages do not depend on the data, so this runs on one store (the first of the run's).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { useServedStore } from '../helpers/served-store.js';
import { EXPLORER_PAGE_HEADERS, pageHeadersOf, NO_PAGE_HEADERS } from '../helpers/page-headers.js';
import { get } from '../helpers/server.js';
import { STORE_KINDS } from '../helpers/stores.js';

const NOT_FOUND = '{"code":5,"message":"Not Found","details":[]}';
const ASSETS_DIR = new URL('../../dist/web/assets/', import.meta.url);

describe(`explorer pages over HTTP (${STORE_KINDS[0]})`, () => {
  const served = useServedStore(STORE_KINDS[0]!);

  test('every page route answers the HTML entry, with the base that leads back to the root', async () => {
    const routes: [string, string][] = [
      ['/', './'],
      ['/explorer/rewards', '../'],
      ['/explorer/referral-sets', '../'],
      ['/explorer/teams', '../'],
      ['/explorer/teams/00ff', '../../'],
      ['/explorer/rewards?asset=ab&epochs=5', '../'],
    ];
    for (const [path, base] of routes) {
      const res = await get(`${served.url}${path}`);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8', path);
      assert.equal(res.headers.get('cache-control'), 'no-cache', path);
      assert.ok(res.text.includes(`<base href="${base}">`), `${path}: base ${base}`);
      assert.ok(!/https?:\/\//.test(res.text), `${path} names no other origin`);
      assert.deepEqual(pageHeadersOf(res.headers), EXPLORER_PAGE_HEADERS, path);
    }
  });

  test('the fingerprinted files: content type, immutable for a year, gzip, the bytes built', async () => {
    const html = (await get(`${served.url}/`)).text;
    const names = [...html.matchAll(/explorer\/assets\/(main-[A-Z0-9]+\.(js|css))/g)].map((m) => m[1]!);
    assert.deepEqual(names.map((n) => n.split('.').pop()).sort(), ['css', 'js']);
    for (const name of names) {
      const built = readFileSync(new URL(name, ASSETS_DIR));
      const plain = await fetch(`${served.url}/explorer/assets/${name}`, { headers: { 'accept-encoding': 'identity' } });
      assert.equal(plain.status, 200, name);
      assert.equal(plain.headers.get('content-type'), name.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      assert.equal(plain.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(plain.headers.get('content-encoding'), null);
      assert.deepEqual(Buffer.from(await plain.arrayBuffer()), built);
      assert.deepEqual(pageHeadersOf(plain.headers), EXPLORER_PAGE_HEADERS, name);

      // fetch decodes the gzip: the bytes it gives are the file's again.
      const gz = await fetch(`${served.url}/explorer/assets/${name}`, { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(gz.headers.get('content-encoding'), 'gzip');
      assert.equal(gz.headers.get('vary'), 'accept-encoding');
      assert.deepEqual(Buffer.from(await gz.arrayBuffer()), built);
    }
    const gzHtml = await fetch(`${served.url}/explorer/teams`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gzHtml.headers.get('cache-control'), 'no-cache');
    assert.ok((await gzHtml.text()).startsWith('<!doctype html>'));
  });

  test('HEAD of a page answers its headers without a body', async () => {
    const res = await fetch(`${served.url}/explorer/rewards`, { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.deepEqual(pageHeadersOf(res.headers), EXPLORER_PAGE_HEADERS);
    assert.equal(await res.text(), '');
  });

  test('unknown files and paths keep the contract 404 body; the API is unchanged', async () => {
    for (const path of [
      '/explorer/assets/main-NOPE.js',
      '/explorer/assets/',
      '/explorer',
      '/explorer/',
      '/explorer/teams/',
      '/explorer/teams/ab/cd',
      '/explorer/unknown',
      '/api/v2/unknown',
      '/api/v2/referral-sets/',
      '/index.html',
    ]) {
      const res = await get(`${served.url}${path}`);
      assert.equal(res.status, 404, path);
      assert.equal(res.headers.get('content-type'), 'application/json', path);
      assert.equal(res.text, NOT_FOUND, path);
    }
    const api = await get(`${served.url}/api/v2/referral-sets?pagination.first=1`);
    assert.equal(api.status, 200);
    assert.equal(
      api.text,
      '{"referralSets":{"edges":[],"pageInfo":{"hasNextPage":false,"hasPreviousPage":false,"startCursor":"","endCursor":""}}}',
    );
    // The page headers stay on the pages: the API's answers and 404s are the data-node's.
    for (const res of [api, await get(`${served.url}/api/v2/unknown`), await get(`${served.url}/nope`)]) {
      assert.deepEqual(pageHeadersOf(res.headers), NO_PAGE_HEADERS);
    }
  });
});
