import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import { keyedGet } from '../src/http/endpoint.ts';
import { startMetricsServer } from '../src/http/metrics.ts';
import type { App } from '../src/http/types.ts';
import { bearer, createTestContext, listen, type TestContext } from './support/context.ts';
import { insertOrg, mintKey } from './support/fixtures.ts';
import { freePort, startServerProcess } from './support/server-process.ts';

// Operations: health probes, request ids, metrics, access logs and graceful shutdown. Runs on
// whichever backing services the pass provides (SQLite alone, or PostgreSQL and Redis).

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function addProbeRoutes(app: App): void {
  keyedGet(app, '/api/test-probe/items/:item_id/', {
    scope: 'brands:read',
    schema: {},
    handler: async () => {
      await sql`select 1`.execute(app.dbs.read);
      return { ok: true };
    },
  });
}

describe('health probes', () => {
  let ctx: TestContext;
  before(async () => {
    // A limit of 1 per minute: any probe that counted against a limit would be refused.
    ctx = await createTestContext({ rateLimitPerMinute: 1 });
  });
  after(() => ctx.close());

  it('/healthz answers 200 without a key, outside the rate limit', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await ctx.app.inject({ url: '/healthz' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'ok' });
      assert.equal(res.headers.ratelimit, undefined);
      assert.equal(res.headers['cache-control'], 'no-store');
    }
  });

  it('/readyz answers 200 when the database (and Redis, when configured) answer', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await ctx.app.inject({ url: '/readyz' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {
        status: 'ready',
        checks: {
          database: 'ok',
          primaryDatabase: 'ok',
          redis: ctx.config.redisUrl ? 'ok' : 'not_configured',
        },
      });
    }
  });

  it('stays out of the API documentation', async () => {
    const paths = Object.keys((await ctx.app.inject({ url: '/api/openapi.json' })).json().paths);
    assert.ok(!paths.some((p) => p.includes('healthz') || p.includes('readyz')), paths.join(' '));
  });
});

describe('X-Request-Id', () => {
  let ctx: TestContext;
  let key: string;
  before(async () => {
    ctx = await createTestContext({}, { beforeReady: addProbeRoutes });
    key = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'));
  });
  after(() => ctx.close());

  it('is on every response, a fresh UUID when none is sent', async () => {
    const responses = [
      await ctx.app.inject({ url: '/api/test-probe/items/1/', headers: bearer(key) }),
      await ctx.app.inject({ url: '/api/test-probe/items/1/' }),
      await ctx.app.inject({ url: '/api/nothing/', headers: bearer(key) }),
      await ctx.app.inject({ method: 'POST', url: '/api/test-probe/items/1/', headers: bearer(key) }),
      await ctx.app.inject({ url: '/healthz' }),
      await ctx.app.inject({ url: '/no-such-page' }),
    ];
    assert.deepEqual(
      responses.map((r) => r.statusCode),
      [200, 401, 404, 403, 200, 404],
    );
    const ids = responses.map((r) => String(r.headers['x-request-id']));
    for (const id of ids) assert.match(id, UUID);
    assert.equal(new Set(ids).size, ids.length, 'each request its own id');
  });

  it('honours a well-formed id sent by the caller, and replaces a malformed one', async () => {
    const sent = 'lb-7f3a.2026:req_1';
    const honoured = await ctx.app.inject({ url: '/healthz', headers: { 'x-request-id': sent } });
    assert.equal(honoured.headers['x-request-id'], sent);
    for (const bad of ['has space', 'x'.repeat(129), '<script>', '']) {
      const res = await ctx.app.inject({ url: '/healthz', headers: { 'x-request-id': bad } });
      assert.match(String(res.headers['x-request-id']), UUID, JSON.stringify(bad));
    }
  });
});

describe('Prometheus metrics', () => {
  let ctx: TestContext;
  let key: string;
  let server: Server;
  let metricsUrl: string;
  before(async () => {
    ctx = await createTestContext({ rateLimitPerMinute: 2 }, { beforeReady: addProbeRoutes });
    key = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'));
    server = await startMetricsServer(ctx.app.metrics, 0, '127.0.0.1');
    metricsUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/metrics`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await ctx.close();
  });

  it('counts requests by route template and status, with latency, refusals, database time and pools', async () => {
    // Two accepted, then the third in the minute is refused (limit 2); ids differ per request.
    for (const id of [1, 2, 3])
      await ctx.app.inject({ url: `/api/test-probe/items/${id}/`, headers: bearer(key) });
    await ctx.app.inject({ url: '/healthz' });
    await ctx.app.inject({ url: '/nowhere' });

    const res = await fetch(metricsUrl);
    assert.equal(res.status, 200);
    assert.match(String(res.headers.get('content-type')), /^text\/plain/);
    const text = await res.text();
    const route = 'route="/api/test-probe/items/:item_id/"';
    assert.match(
      text,
      new RegExp(`^sightline_http_requests_total\\{method="GET",${route},status_code="200"\\} 2$`, 'm'),
    );
    assert.match(
      text,
      new RegExp(`^sightline_http_requests_total\\{method="GET",${route},status_code="429"\\} 1$`, 'm'),
    );
    assert.match(
      text,
      /^sightline_http_requests_total\{method="GET",route="\/healthz",status_code="200"\} 1$/m,
    );
    assert.match(
      text,
      /^sightline_http_requests_total\{method="GET",route="unmatched",status_code="404"\} 1$/m,
    );
    assert.doesNotMatch(text, /items\/1\//, 'no URL with ids becomes a label');
    assert.match(
      text,
      new RegExp(
        `^sightline_http_request_duration_seconds_count\\{method="GET",${route},status_code="200"\\} 2$`,
        'm',
      ),
    );
    assert.match(text, /^sightline_http_request_duration_seconds_bucket\{le="0.005",method="GET"/m);
    assert.match(text, /^sightline_rate_limit_refusals_total\{limited="key"\} 1$/m);
    assert.match(text, /^sightline_rate_limit_degraded 0$/m);
    // The key is read once (the gate keeps it for a few seconds) and the two accepted requests
    // run `select 1`: at least 3 reads.
    const reads = /^sightline_db_query_duration_seconds_count\{pool="read",outcome="ok"\} (\d+)$/m.exec(text);
    assert.ok(reads && Number(reads[1]) >= 3, `read statements: ${reads?.[1]}`);
    assert.match(text, /^sightline_db_pool_connections_in_use\{pool="read"\} 0$/m);
    assert.match(text, /^sightline_db_pool_connections_max\{pool="read"\} \d+$/m);
    assert.match(text, /^sightline_db_pool_waiting\{pool="primary"\} 0$/m);

    assert.equal((await fetch(metricsUrl.replace('/metrics', '/other'))).status, 404);
    // The API port does not serve metrics.
    assert.equal((await ctx.app.inject({ url: '/metrics' })).statusCode, 404);
  });
});

describe('the server process', () => {
  let ctx: TestContext;
  let key: string;
  before(async () => {
    ctx = await createTestContext();
    key = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'));
  });
  after(() => ctx.close());

  it('writes one structured access line per request, and never a key secret', async () => {
    const server = await startServerProcess(ctx.config, { LOG_LEVEL: 'trace' });
    const secret = key.split('_')[3] as string;
    assert.ok(secret.length >= 38);
    const wrongSecret = `${key.slice(0, -10)}AAAAAAAAAA`;
    const calls: Array<[string, Record<string, string>]> = [
      ['/api/brands/', { authorization: `Bearer ${key}` }],
      ['/api/brands/', { 'x-api-key': key }],
      ['/api/brands/', { authorization: `Bearer ${key}`, 'x-api-key': key }],
      ['/api/brands/', { authorization: `Bearer ${wrongSecret}` }],
      ['/api/brands/', { authorization: `Basic ${Buffer.from(`user:${key}`).toString('base64')}` }],
      [`/api/brands/?api_key=${key}&q=${key}`, { authorization: `Bearer ${key}` }],
      [`/api/v2/${key}/`, { 'x-api-key': key }],
    ];
    for (const [path, headers] of calls) {
      await (
        await fetch(`${server.baseUrl}${path}`, { headers: { ...headers, 'x-request-id': 'trace-me' } })
      ).text();
    }
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.exited, { code: 0, signal: null });

    const output = server.output();
    assert.ok(!output.includes(secret), 'the key secret appears nowhere in the log');
    assert.ok(!output.includes(secret.slice(0, 16)), 'not even in part');
    assert.ok(!output.includes(Buffer.from(`user:${key}`).toString('base64')));

    const access = server.logs().filter((line) => line.msg === 'request completed');
    assert.equal(access.length, calls.length);
    const keyId = key.split('_')[2];
    const first = access[0] as Record<string, unknown>;
    assert.equal(first.reqId, 'trace-me');
    assert.equal(first.method, 'GET');
    assert.equal(first.url, '/api/brands/');
    assert.equal(first.keyId, keyId, 'the key is named by its public identifier');
    assert.equal(typeof first.statusCode, 'number');
    assert.equal(typeof first.durationMs, 'number');
    assert.equal(typeof first.time, 'number');
    const inQuery = access[5] as Record<string, unknown>;
    assert.equal(
      inQuery.url,
      `/api/brands/?api_key=sl_live_${keyId}…[redacted]&q=sl_live_${keyId}…[redacted]`,
    );
  });

  it('closing the app ends a connection that never sent a request', async () => {
    const own = await createTestContext();
    const socket = connect(Number(new URL(await listen(own.app)).port), '127.0.0.1');
    await once(socket, 'connect');
    const ended = once(socket, 'close').then(() => 'ended by the server');
    const closing = own.close();
    // Left alone, Node's close would wait for the socket's headers timeout (60 s) and more: ten
    // seconds tell the two apart, and the socket is ended here either way so nothing hangs.
    const outcome = await Promise.race([ended, delay(10_000, 'still open', { ref: false })]);
    socket.destroy();
    await closing;
    assert.equal(outcome, 'ended by the server');
    assert.equal(socket.bytesRead, 0, 'it was sent nothing: it asked nothing');
  });

  it('on SIGTERM stops accepting, finishes the request in flight, closes up and exits 0', async () => {
    const metricsPort = await freePort();
    const server = await startServerProcess(ctx.config, { METRICS_PORT: String(metricsPort) });
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /^process_cpu_user_seconds_total /m);

    // Connections opened and never written to (a browser's or a balancer's preconnect), to the API
    // and to the metrics port: Node's close leaves them until the headers timeout (60 s), past the
    // 25 s grace, so the stop would end in exit 1. They are ended with the listeners.
    const preconnects = [new URL(server.baseUrl).port, metricsPort].map((port) =>
      connect(Number(port), '127.0.0.1'),
    );
    await Promise.all(preconnects.map((socket) => once(socket, 'connect')));
    const endedByServer = preconnects.map((socket) => once(socket, 'close'));

    const inFlight = fetch(`${server.baseUrl}/test/slow?ms=3000`);
    await server.waitForLog((line) => line.msg === 'slow request started');
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    await server.waitForLog((line) => String(line.msg).startsWith('shutting down'));

    // New work is turned away while the slow request runs: the connection is refused once the
    // listener has closed, or (in the moment before) answered 503 by the closing server.
    const late = await fetch(`${server.baseUrl}/healthz`).then(
      (res) => res.status,
      (error: Error) => error.message,
    );
    assert.ok(late === 'fetch failed' || late === 503, `a new request got ${late}`);
    const res = await inFlight;
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { finished: true });

    assert.deepEqual(await server.exited, { code: 0, signal: null });
    await Promise.all(endedByServer);
    // It waited for the request (3 s from its start) rather than exiting at the signal.
    assert.ok(Date.now() - signalled >= 1000, `exited ${Date.now() - signalled} ms after SIGTERM`);
    const messages = server.logs().map((line) => line.msg);
    assert.ok(messages.includes('shutdown complete'), messages.join(' | '));
    await assert.rejects(fetch(`http://127.0.0.1:${metricsPort}/metrics`), /fetch failed/);
  });
});
