import assert from 'node:assert/strict';
import { request } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { bearer } from './support/context.ts';
import { createDemoContext, type DemoContext } from './support/demo.ts';
import {
  ENDPOINTS,
  type Endpoint,
  label,
  pathFor,
  pathIds,
  urlFor,
  validQuery,
} from './support/endpoints.ts';

// No input may produce a 5xx (decisions.md, order of checks 8): every odd query value, path id
// and header gets a 4xx in the documented shape, or is harmlessly ignored.

let demo: DemoContext;
let port: number;
before(async () => {
  demo = await createDemoContext();
  await demo.ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (demo.ctx.app.server.address() as AddressInfo).port;
});
after(() => demo?.ctx.close());

const keyed = () => bearer(demo.keys.acme);
const get = (url: string, headers: Record<string, string> = keyed()) => demo.ctx.app.inject({ url, headers });

/**
 * A GET over real HTTP with the path sent byte for byte: `inject` parses URLs as WHATWG URLs,
 * which resolve `%2e%2e` and `..` segments before the server sees them.
 */
function rawGet(path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: keyed(), agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** What the suite needs of a response, from `inject` or from a raw HTTP request. */
interface Answer {
  statusCode: number;
  body: string;
}

/** Odd values as they appear in a query string (already percent-encoded where needed). */
const ODD_VALUES: readonly string[] = [
  '0',
  '-1',
  '1.5',
  'abc',
  `1${'0'.repeat(30)}`,
  '1e3',
  '',
  '%00',
  '%',
  '%ZZ',
  'NaN',
  'Infinity',
  'null',
  'true',
  '%5B%5D',
  '%7B%7D',
  encodeURIComponent('ünïcødé 🚀 文字'),
  encodeURIComponent("'; drop table brands; --"),
  encodeURIComponent('../../etc/passwd'),
  encodeURIComponent(' 1 '),
  'x'.repeat(5000),
  '2026-02-30',
  '9999-12-31',
  encodeURIComponent('2026-01-01T00:00:00+99:00'),
];

/** Numbers that are not written in decimal digits: coercion alone would accept every one. */
const NON_DECIMAL = [
  '0x10',
  '0X1F',
  '1e3',
  '1E0',
  '%201',
  '1%20',
  '1.0',
  '0b11',
  '0o17',
  '1.19e%2B203',
  '%2B1',
  '1_000',
];

/** Values a parameter must refuse with 400 naming it (when the endpoint reads that parameter). */
const MUST_REJECT: Record<string, readonly string[]> = {
  page: ['0', '-1', '1.5', 'abc', '', 'NaN', 'Infinity', '%00', ...NON_DECIMAL],
  page_size: ['0', '-1', '1.5', 'abc', '', 'NaN', 'Infinity', ...NON_DECIMAL],
  range: ['13d', '7', 'weekly', 'ALL'],
  includeHtml: ['maybe', 'yes', '%00'],
  archived: ['maybe', 'yes'],
  monitoring: ['maybe', 'ON1'],
  sort: ['sideways', '-name'],
  limit: ['abc', '-1', '1.5', 'Infinity', ...NON_DECIMAL],
  since: ['yesterday', '2026-13-45', '2026-02-30'],
  categoryId: ['abc', '1.5', 'Infinity', ...NON_DECIMAL],
  // Free text, but PostgreSQL text cannot hold NUL (and DRF refuses it too).
  q: ['%00', 'a%00b'],
  type: ['%00'],
  reportType: ['%00'],
};

/** Whatever the status, the body has the documented shape and nothing is a server error. */
function assertWellFormed(res: Answer, what: string): void {
  assert.ok(res.statusCode < 500, `${what}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  if (res.statusCode === 400) assertFieldErrors(res, what);
  else if (res.statusCode >= 400) {
    const body = JSON.parse(res.body);
    assert.equal(typeof body.detail, 'string', `${what}: {detail} body`);
  }
}

/** A DRF-style 400: an object of non-empty string arrays. Returns the field names. */
function assertFieldErrors(res: Answer, what: string): string[] {
  assert.equal(res.statusCode, 400, `${what}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  const body = JSON.parse(res.body);
  assert.ok(body && typeof body === 'object' && !Array.isArray(body), `${what}: object body`);
  const fields = Object.keys(body);
  assert.ok(fields.length > 0, `${what}: names at least one field`);
  for (const field of fields) {
    const messages = body[field];
    assert.ok(Array.isArray(messages) && messages.length > 0, `${what}: ${field} has messages`);
    for (const message of messages)
      assert.equal(typeof message, 'string', `${what}: ${field} messages are text`);
  }
  return fields;
}

const withQuery = (endpoint: Endpoint, query: string) => urlFor(endpoint, demo.fixtures, query);

/** The endpoint's valid example query with one parameter set to a raw (odd) value. */
function withOdd(endpoint: Endpoint, name: string, rawValue: string): string {
  const rest = new URLSearchParams(validQuery(endpoint, demo.fixtures));
  rest.delete(name);
  const others = rest.toString();
  return withQuery(endpoint, `${others ? `${others}&` : ''}${name}=${rawValue}`);
}

for (const endpoint of ENDPOINTS) {
  describe(label(endpoint), () => {
    it('survives every odd value of every parameter it reads (and of ones it does not)', async () => {
      const names = [...endpoint.params, 'unknown_param'];
      for (const name of names) {
        for (const value of ODD_VALUES) {
          assertWellFormed(await get(withOdd(endpoint, name, value)), `?${name}=${value.slice(0, 60)}`);
        }
        assertWellFormed(await get(withOdd(endpoint, name, `1&${name}=2`)), `repeated ${name}`);
      }
      assertWellFormed(await get(withQuery(endpoint, '&&&=&==')), 'separators only');
      assertWellFormed(await get(withQuery(endpoint, `${'p'.repeat(3000)}=1`)), 'very long parameter name');
    });

    const strict = endpoint.params.filter((name) => MUST_REJECT[name]);
    if (strict.length > 0) {
      it(`answers 400 naming the parameter for bad ${strict.join(', ')}`, async () => {
        for (const name of strict) {
          for (const value of MUST_REJECT[name] ?? []) {
            const res = await get(withOdd(endpoint, name, value));
            const fields = assertFieldErrors(res, `?${name}=${value}`);
            assert.ok(fields.includes(name), `?${name}=${value} names ${name}: ${res.body}`);
          }
          if (name === 'page' || name === 'page_size') {
            const res = await get(withOdd(endpoint, name, `1&${name}=2`));
            assert.ok(assertFieldErrors(res, `repeated ${name}`).includes(name));
          }
        }
      });
    }

    if (endpoint.params.includes('page_size')) {
      it('clamps a huge page_size and refuses a page far past the end', async () => {
        const huge = await get(withQuery(endpoint, 'page_size=1000000'));
        assert.equal(huge.statusCode, 200, huge.body.slice(0, 300));
        for (const page of ['100000', '999999999', `1${'0'.repeat(30)}`]) {
          const res = await get(withQuery(endpoint, `page=${page}`));
          assert.ok(
            [400, 404].includes(res.statusCode),
            `page=${page}: ${res.statusCode} ${res.body.slice(0, 200)}`,
          );
          if (res.statusCode === 404) assert.deepEqual(res.json(), { detail: 'Invalid page.' });
          else assertFieldErrors(res, `page=${page}`);
        }
      });
    }

    if (endpoint.params.includes('range')) {
      it('refuses malformed windows with field errors', async () => {
        const bad = [
          'start=2026-01-01',
          'end=2026-01-01',
          'range=7d&start=2026-01-01&end=2026-01-02',
          'range=custom',
          'range=custom&start=2026-01-01',
          'range=custom&start=2026-02-10&end=2026-02-01',
          'range=custom&start=2026-02-30&end=2026-03-01',
          'range=custom&start=01/02/2026&end=2026-03-01',
          'range=custom&start=2026-01-01&end=2999-01-01',
          'range=custom&start=2026-01-01T00:00:00Z&end=2026-01-02',
          'range=7d&range=30d',
          'range=',
          // A comparison period (as long as the range) that would begin before year 1000.
          'range=custom&start=1013-01-01&end=2020-01-01',
          'range=custom&start=1013-01-01&end=2020-01-01&format=csv&block=window',
        ];
        for (const query of bad) assertFieldErrors(await get(withQuery(endpoint, query)), `?${query}`);
        if (endpoint.params.includes('since')) {
          assertFieldErrors(await get(withQuery(endpoint, 'since=all&range=7d')), 'since mixed with range');
        }
      });
    }

    const ids = pathIds(endpoint);
    if (ids.length > 0) {
      it('answers 404 {"detail":"Not found."} to odd path ids', async () => {
        const odd = [
          '0',
          '-1',
          '1e3',
          '+1',
          '1.0',
          '0x1',
          '%201',
          '99999999999999999999',
          '9'.repeat(200),
          '9'.repeat(400),
          'abc',
          '%2e%2e',
          '..',
          '%00',
          '%E2%82%AC',
          'null',
        ];
        for (const id of ids) {
          for (const value of odd) {
            const url = pathFor(endpoint, demo.fixtures, { [id]: value });
            const res = await rawGet(url);
            assert.equal(res.statusCode, 404, `${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
            assert.deepEqual(JSON.parse(res.body), { detail: 'Not found.' }, url);
          }
        }
      });
    }
  });
}

describe('integer query parameters', () => {
  it('every one the document declares is refused in any form but decimal digits', async () => {
    const doc = (await demo.ctx.app.inject({ url: '/api/openapi.json' })).json();
    const integers = new Set<string>();
    for (const operation of Object.values(
      doc.paths as Record<string, { get?: { parameters?: unknown[] } }>,
    )) {
      for (const parameter of (operation.get?.parameters ?? []) as Array<{
        in: string;
        name: string;
        schema: { type?: string };
      }>) {
        if (parameter.in === 'query' && parameter.schema.type === 'integer') integers.add(parameter.name);
      }
    }
    assert.deepEqual([...integers].sort(), ['categoryId', 'limit', 'page', 'page_size']);
    for (const name of integers) {
      for (const value of NON_DECIMAL)
        assert.ok(MUST_REJECT[name]?.includes(value), `${name}=${value} is exercised`);
    }
  });

  it('a non-decimal form is "A valid integer is required.", after the lookup, like any bad value', async () => {
    const runs = ENDPOINTS.find((e) => e.path === '/api/runs/{run_id}/') as Endpoint;
    for (const value of NON_DECIMAL) {
      const res = await get(withOdd(runs, 'page', value));
      assert.deepEqual(JSON.parse(res.body), { page: ['A valid integer is required.'] }, value);
      const hidden = await get(withOdd(runs, 'page', value), bearer(demo.keys.globex));
      assert.equal(hidden.statusCode, 404, `${value}: another organization's run is not found first`);
    }
    const decimal = await get(withOdd(runs, 'page', '01'));
    assert.equal(decimal.statusCode, 200, 'leading zeros are still decimal');
  });
});

describe('odd requests anywhere', () => {
  const url = () => urlFor(ENDPOINTS[1] as Endpoint, demo.fixtures);

  it('answers 401 to odd Authorization and X-API-Key headers', async () => {
    const odd: Array<Record<string, string>> = [
      { authorization: 'Bearer' },
      { authorization: 'Bearer ' },
      { authorization: 'Basic x' },
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: `Bearer ${demo.keys.acme} extra` },
      { authorization: `Token ${demo.keys.acme}` },
      { authorization: `Bearer ${'k'.repeat(10_000)}` },
      { authorization: `Bearer sl_live_${'A'.repeat(8)}_${'B'.repeat(10_000)}` },
      { authorization: 'Bearer sl_live_ünïcødé_🚀' },
      { 'x-api-key': '' },
      { 'x-api-key': ' ' },
      { 'x-api-key': 'k'.repeat(10_000) },
      { 'x-api-key': `${demo.keys.acme}\u0000` },
    ];
    for (const headers of odd) {
      const res = await get(url(), headers);
      const what = JSON.stringify(headers).slice(0, 80);
      assert.equal(res.statusCode, 401, `${what}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      assert.equal(typeof res.json().detail, 'string', what);
    }
    // An X-API-Key left empty presents no key at all, nor a second header beside Authorization.
    for (const blank of ['', ' ']) {
      const res = await get(url(), { 'x-api-key': blank });
      assert.deepEqual(res.json(), { detail: 'Authentication credentials were not provided.' });
      const beside = await get(url(), { 'x-api-key': blank, ...bearer(demo.keys.acme) });
      assert.equal(beside.statusCode, 200, beside.body);
    }
  });

  it('ignores a parameter an endpoint does not read, NUL characters and all', async () => {
    for (const endpoint of ENDPOINTS) {
      const plain = await get(withQuery(endpoint, validQuery(endpoint, demo.fixtures)));
      assert.equal(plain.statusCode, 200, label(endpoint));
      const unread = ['x=%00', 'x=a%00b', 'block=%00', 'x=1&x=%00'].filter(
        (odd) => !endpoint.params.includes(odd.split('=')[0] as string),
      );
      for (const odd of unread) {
        const res = await get(withQuery(endpoint, `${validQuery(endpoint, demo.fixtures)}&${odd}`));
        assert.equal(res.statusCode, 200, `${label(endpoint)} ?${odd}: ${res.body.slice(0, 200)}`);
      }
    }
  });

  it('refuses a Host that is not a host name, so that no link points elsewhere', async () => {
    const list = `/api/brands/${demo.fixtures.brandId}/runs/?page_size=1`;
    const refused = { non_field_errors: ['The Host header is not a valid host name.'] };
    for (const host of ['a/b', 'x@y', 'a b', 'evil.example/#', 'a:b:c', 'a:123456', '[::1']) {
      const res = await get(list, { ...keyed(), host });
      assert.equal(res.statusCode, 400, `Host: ${host}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      assert.deepEqual(res.json(), refused);
    }
    // An empty Host, which inject and Node's client would replace: written on a socket.
    const socket = connect(port, '127.0.0.1');
    socket.end(`GET ${list} HTTP/1.1\r\nHost: \r\nAuthorization: ${keyed().authorization}\r\n\r\n`);
    let raw = '';
    for await (const chunk of socket) raw += chunk;
    assert.match(raw, /^HTTP\/1\.1 400 /);
    assert.deepEqual(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)), refused);
    for (const [host, origin] of [
      ['api.example.com', 'http://api.example.com'],
      ['api.example.com:8443', 'http://api.example.com:8443'],
      ['127.0.0.1:8000', 'http://127.0.0.1:8000'],
      ['[::1]:8000', 'http://[::1]:8000'],
      ['sightline_api:8000', 'http://sightline_api:8000'],
    ]) {
      const res = await get(list, { ...keyed(), host: host as string });
      assert.equal(res.statusCode, 200, `Host: ${host}`);
      assert.ok(String(res.json().next).startsWith(`${origin}/api/`), `Host: ${host}: ${res.json().next}`);
    }
  });

  it('names the NUL character when a parameter the endpoint reads holds one', async () => {
    const res = await get(`/api/brands/${demo.fixtures.brandId}/reports/latest/?type=%00`);
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { type: ['Null characters are not allowed.'] });
  });

  it('answers malformed paths (sent raw) with a 4xx in the documented shapes', async () => {
    const paths = [
      '/api/brands/%E0%A4%A/',
      '/api/brands/%/',
      '/api//brands/',
      '/api/brands/../brands/',
      `/api/brands/${demo.fixtures.brandId}/%2e%2e/`,
      `/api/${'x'.repeat(5000)}/`,
    ];
    for (const path of paths) {
      const res = await rawGet(path);
      assert.ok(res.statusCode >= 400, `${path}: ${res.statusCode}`);
      assertWellFormed(res, path);
    }
  });
});
