import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { canonicalUrl } from '../src/http/canonical-url.ts';
import { createDemoContext, type DemoContext } from './support/demo.ts';
import { rawGet } from './support/raw-http.ts';

// The gate decides on the route the router matched, and both read one normalised path: however a
// path is spelled on the wire (escapes in any case, double slashes, dot segments), a keyed
// endpoint is never served without authentication, nor the public demo list without its
// per-address limit.
// Requests go over raw sockets: `inject` would normalise the paths before the server saw them.

const LIMIT = 20;
let demo: DemoContext;
let port: number;
before(async () => {
  // Each test speaks from its own client address (X-Forwarded-For), so its per-address budget is
  // its own.
  demo = await createDemoContext({ rateLimitPerMinute: LIMIT, trustProxy: true });
  await demo.ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (demo.ctx.app.server.address() as AddressInfo).port;
});
after(() => demo?.ctx.close());

/** Spellings of `/api/<rest>` that the router resolves to the same route. */
function spellings(rest: string): string[] {
  const [first = '', ...others] = rest.split('/');
  return [
    `/%61pi/${rest}`,
    `/%61%70%69/${rest}`,
    `/ap%69/${rest}`,
    `/a%70%69/${rest}`,
    `/api/${rest.replace('n', '%6e')}`,
    `/api/${rest.replace('n', '%6E')}`,
    `/api/%${first.charCodeAt(0).toString(16)}${first.slice(1)}/${others.join('/')}`,
    `/api/%${first.charCodeAt(0).toString(16).toUpperCase()}${first.slice(1)}/${others.join('/')}`,
    `/api/${first}/${others.join('/').replace(/\d/, (digit) => `%3${digit}`)}`,
  ];
}

/** Spellings that name no route (the router keeps empty and dot segments), yet point at one. */
function detours(rest: string): string[] {
  return [
    `/api//${rest.replaceAll('/', '//')}`,
    `/api/x/../${rest}`,
    `/api/./${rest}`,
    `/api/x/%2e%2e/${rest}`,
    `/api/x/%2E%2e/${rest}`,
    `/%61pi/x/%2e./${rest}`,
  ];
}

const from = (address: string) => [['X-Forwarded-For', address]] as const;

describe('the gate sees the path the router sees', () => {
  it('normalises escapes as the router does, and nothing else', () => {
    assert.equal(canonicalUrl('/%61pi/brands/'), '/api/brands/');
    assert.equal(canonicalUrl('/%41PI/%7e/%2e%2E/'), '/API/~/../');
    assert.equal(canonicalUrl('//api/./x/../brands/'), '//api/./x/../brands/', 'segments are the router’s');
    // Reserved characters stay escaped (in canonical upper case): `%2F` is not a separator.
    assert.equal(canonicalUrl('/%2fapi/brands%2f'), '/%2Fapi/brands%2F');
    assert.equal(canonicalUrl('/api/%25%61'), '/api/%25a', 'decoded once, never twice');
    assert.equal(canonicalUrl('/api/%zz/%'), '/api/%zz/%', 'a bad escape is left for the router to refuse');
    assert.equal(
      canonicalUrl('/api/brands/?q=%61//../x'),
      '/api/brands/?q=%61//../x',
      'the query is untouched',
    );
    assert.equal(canonicalUrl('*'), '*');
    assert.equal(canonicalUrl('http://h/%61pi/'), 'http://h/api/');
  });

  it('the public demo list spends the per-address limit however its path is spelled', async () => {
    const paths = spellings(`brands/${demo.fixtures.brandId}/categories/`);
    assert.ok(paths.length < LIMIT);
    for (const path of paths) {
      const res = await rawGet(port, path, from('203.0.113.1'));
      assert.equal(res.statusCode, 200, `${path}: ${res.body.slice(0, 200)}`);
      assert.ok(JSON.parse(res.body).results.length > 0, path);
    }
    // Every one of those was counted: the budget left is exactly what they did not use.
    for (let i = paths.length; i < LIMIT; i++) {
      assert.equal((await rawGet(port, '/api/brands/9/categories/', from('203.0.113.1'))).statusCode, 200);
    }
    const refused = await rawGet(port, spellings('brands/9/categories/')[0] as string, from('203.0.113.1'));
    assert.equal(refused.statusCode, 429, refused.body);
    assert.ok(refused.headers['retry-after']);
  });

  it('a detour to the public demo list is no route: a key is asked for, and the address budget spent', async () => {
    const paths = detours(`brands/${demo.fixtures.brandId}/categories/`);
    for (const path of paths) {
      const res = await rawGet(port, path, from('203.0.113.6'));
      assert.equal(res.statusCode, 401, `${path}: ${res.body}`);
    }
    for (let i = paths.length; i < LIMIT; i++) {
      assert.equal((await rawGet(port, '/api/brands/9/categories/', from('203.0.113.6'))).statusCode, 200);
    }
    assert.equal((await rawGet(port, '/api/brands/9/categories/', from('203.0.113.6'))).statusCode, 429);
  });

  it('another brand’s category list asks for a key however it is spelled', async () => {
    for (const path of spellings(`brands/${demo.fixtures.plainBrandId}/categories/`)) {
      const res = await rawGet(port, path, from('203.0.113.2'));
      assert.equal(res.statusCode, 401, `${path}: ${res.body}`);
    }
  });

  it('a keyed endpoint is authenticated and counted however its path is spelled', async () => {
    const key = await demo.mint('acme');
    for (const path of spellings(`brands/${demo.fixtures.brandId}/`)) {
      const anonymous = await rawGet(port, path, from('203.0.113.3'));
      assert.equal(anonymous.statusCode, 401, `${path}: ${anonymous.body}`);
      assert.equal(JSON.parse(anonymous.body).detail, 'Authentication credentials were not provided.');
      const keyed = await rawGet(port, path, [['Authorization', `Bearer ${key}`]]);
      assert.equal(keyed.statusCode, 200, `${path}: ${keyed.body.slice(0, 200)}`);
      assert.equal(JSON.parse(keyed.body).id, String(demo.fixtures.brandId));
      assert.match(keyed.headers.ratelimit ?? '', /^"default";r=\d+;t=\d+$/, path);
    }
    for (const path of detours(`brands/${demo.fixtures.brandId}/`)) {
      assert.equal((await rawGet(port, path, from('203.0.113.7'))).statusCode, 401, path);
      const keyed = await rawGet(port, path, [['Authorization', `Bearer ${key}`]]);
      assert.equal(keyed.statusCode, 404, `${path}: ${keyed.body}`);
      assert.match(keyed.headers.ratelimit ?? '', /^"default";r=\d+;t=\d+$/, path);
    }
  });

  it('paths no route serves are never answered by a handler, and the /api area is gated in any case', async () => {
    const key = demo.keys.acme;
    // `%2F` is not a separator and the router is case-sensitive: no endpoint answers these.
    for (const path of ['/%2Fapi/brands/', '/api%2Fbrands/', '/api/brands%2F9/', '//api/brands/']) {
      const res = await rawGet(port, path, [['Authorization', `Bearer ${key}`]]);
      assert.equal(res.statusCode, 404, `${path}: ${res.body}`);
      assert.deepEqual(JSON.parse(res.body), { detail: 'Not found.' });
    }
    for (const path of ['/API/brands/', '/Api/brands/9/categories/', '/api/nothing/']) {
      const res = await rawGet(port, path, from('203.0.113.4'));
      assert.equal(res.statusCode, 401, `${path}: ${res.body}`);
    }
    for (const path of ['/API/V2/brands/', '/api/%76%32/brands/', '/api//billing', '/api/%6Frgs/1/']) {
      const res = await rawGet(port, path, [['X-API-Key', key]]);
      assert.equal(res.statusCode, 403, `${path}: ${res.body}`);
      assert.match(JSON.parse(res.body).detail, /not available to API keys/);
    }
  });
});

describe('an over-long path id', () => {
  const ids = ['1'.repeat(101), '9'.repeat(1000), 'x'.repeat(300), `${'1'.repeat(200)}%41`];

  it('without a key is 401: authentication comes first', async () => {
    for (const id of ids) {
      for (const path of [`/api/brands/${id}/`, `/api/brands/${demo.fixtures.brandId}/reports/${id}/`]) {
        const res = await rawGet(port, path, from('203.0.113.5'));
        assert.equal(res.statusCode, 401, `${path.slice(0, 60)}: ${res.body}`);
      }
    }
  });

  it('with a key is 404 after the gate, with the RateLimit headers of a spent request', async () => {
    const key = await demo.mint('acme');
    let remaining = Number.POSITIVE_INFINITY;
    for (const id of ids) {
      const res = await rawGet(port, `/api/runs/${id}/status/`, [['Authorization', `Bearer ${key}`]]);
      assert.equal(res.statusCode, 404, res.body);
      assert.deepEqual(JSON.parse(res.body), { detail: 'Not found.' });
      const left = Number(/;r=(\d+);/.exec(res.headers.ratelimit ?? '')?.[1]);
      assert.ok(left < remaining, `quota spent: ${res.headers.ratelimit}`);
      remaining = left;
    }
  });
});
