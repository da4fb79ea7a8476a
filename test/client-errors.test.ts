import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { insertOrg, mintKey } from './support/fixtures.ts';
import { type RawResponse, rawExchange } from './support/raw-http.ts';

// Requests that Node's HTTP parser or Fastify refuse before any route runs still answer in the
// contract's shapes (field errors for 400, `{"detail"}` otherwise), never Fastify's own
// `{error, message, statusCode}`, and every status they can produce is in the OpenAPI document.
// Sent over raw sockets: no HTTP client would send these bytes.

let ctx: TestContext;
let port: number;
let key: string;
before(async () => {
  ctx = await createTestContext();
  key = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'));
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (ctx.app.server.address() as AddressInfo).port;
});
after(() => ctx?.close());

const request = (lines: string[]) => rawExchange(port, lines.join('\r\n'));
const get = (headers: string[], target = '/api/brands/') =>
  request([`GET ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', ...headers]);

function assertContractShape(res: RawResponse, status: number, label: string): void {
  assert.equal(res.statusCode, status, `${label}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  assert.match(res.headers['content-type'] ?? '', /^application\/json/, label);
  assert.ok(res.headers['x-request-id'], `${label}: X-Request-Id`);
  assert.equal(res.headers['cache-control'], 'private, no-store', `${label}: Cache-Control`);
  const body = JSON.parse(res.body);
  for (const field of ['error', 'message', 'statusCode', 'code'])
    assert.ok(!(field in body), `${label}: ${res.body}`);
  if (status === 400) {
    for (const messages of Object.values(body)) {
      assert.ok(Array.isArray(messages) && messages.every((m) => typeof m === 'string'), label);
    }
  } else {
    assert.deepEqual(Object.keys(body), ['detail'], label);
    assert.equal(typeof body.detail, 'string');
  }
}

describe('requests refused before routing', () => {
  it('a control byte in a header is a 400 in field-error shape', async () => {
    for (const byte of ['\x00', '\x01', '\x07', '\x1b', '\x7f']) {
      for (const header of [
        `X-Note: a${byte}b`,
        `User-Agent: ${byte}`,
        `Authorization: Bearer ${key}${byte}`,
      ]) {
        const res = await get([header]);
        assertContractShape(res, 400, JSON.stringify(header));
        assert.deepEqual(JSON.parse(res.body), { non_field_errors: ['The request is not valid HTTP.'] });
      }
    }
  });

  it('headers or a request line over 16 KB are a 431 {"detail"}', async () => {
    const variants: Array<[string, () => Promise<RawResponse>]> = [
      ['one big header', () => get([`X-Big: ${'a'.repeat(17_000)}`])],
      ['a big key header', () => get([`Authorization: Bearer ${key}${'a'.repeat(17_000)}`])],
      ['many headers', () => get(Array.from({ length: 400 }, (_, i) => `X-H${i}: ${'b'.repeat(40)}`))],
      ['a long query string', () => get([], `/api/brands/?q=${'c'.repeat(17_000)}`)],
      ['a long path', () => get([], `/api/brands/${'1'.repeat(17_000)}/`)],
    ];
    for (const [label, send] of variants) {
      const res = await send();
      assertContractShape(res, 431, label);
      assert.match(JSON.parse(res.body).detail, /at most 16 KB/);
    }
  });

  it('a malformed request line or framing is a 400 in field-error shape', async () => {
    const variants: string[][] = [
      ['GET /api/brands/ HTTP/9.9', 'Host: x'],
      ['G@T /api/brands/ HTTP/1.1', 'Host: x'],
      ['GET /api/ brands/ HTTP/1.1', 'Host: x'],
      ['GET /api/brands/ HTTP/1.1', 'Host: x', 'Content-Length: 3', 'Transfer-Encoding: chunked'],
      ['GET /api/brands/ HTTP/1.1', 'Host: x', 'Content-Length: abc'],
      ['GET /api/brands/ HTTP/1.1', 'Host: x', 'Bad Header Name: 1'],
    ];
    for (const lines of variants) assertContractShape(await request(lines), 400, lines.join(' | '));
  });

  it('an HTTP/1.1 request without Host is a 400 in field-error shape', async () => {
    const res = await request(['GET /api/brands/ HTTP/1.1', 'Connection: close', `X-API-Key: ${key}`]);
    assertContractShape(res, 400, 'no Host');
    assert.deepEqual(JSON.parse(res.body), {
      non_field_errors: ['An HTTP/1.1 request must have a Host header.'],
    });
  });

  it('a path that is not validly percent-encoded is a 400 in field-error shape', async () => {
    for (const target of ['/api/brands/%E0%A4%A/', '/api/brands/%/', '/api/%ZZ/']) {
      assertContractShape(await get([`X-API-Key: ${key}`], target), 400, target);
    }
  });

  it('Fastify’s own refusals inside the lifecycle speak the contract too', async () => {
    const big = 'a'.repeat(1_100_000);
    const tooLarge = await request([
      'POST /upload HTTP/1.1',
      'Host: x',
      'Content-Type: application/json',
      `Content-Length: ${big.length}`,
      'Connection: close',
      '',
      big,
    ]);
    assertContractShape(tooLarge, 413, 'body over the limit');
    const badJson = await request([
      'POST /healthz HTTP/1.1',
      'Host: x',
      'Content-Type: application/json',
      'Content-Length: 2',
      'Connection: close',
      '',
      '{x',
    ]);
    assertContractShape(badJson, 400, 'unparsable JSON body');
  });

  it('the OpenAPI document lists every status an API request can get', async () => {
    const doc = (await ctx.app.inject({ url: '/api/openapi.json', headers: bearer(key) })).json();
    for (const [path, operations] of Object.entries(
      doc.paths as Record<string, Record<string, { responses: object }>>,
    )) {
      if (!operations.get) continue;
      const statuses = Object.keys(operations.get.responses);
      for (const status of ['400', '401', '403', '404', '408', '429', '431', '500', '503']) {
        assert.ok(statuses.includes(status), `${path} documents ${status}`);
      }
    }
  });
});
