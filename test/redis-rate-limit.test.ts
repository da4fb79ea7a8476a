import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildApp } from '../src/app.ts';
import { RedisRateLimitStore } from '../src/auth/redis-rate-limit.ts';
import { keyedGet } from '../src/http/endpoint.ts';
import type { App } from '../src/http/types.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { insertOrg, mintKey } from './support/fixtures.ts';

// The shared rate limit on Redis (decisions.md: exact across instances): two app instances on one
// Redis, the rolling window with an injected clock and with Redis's own, and the per-instance
// fallback while Redis is unreachable. scripts/test.mjs runs this file in its PostgreSQL + Redis
// pass; run alone, it uses the machine's local services.
process.env.TEST_DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/test';
process.env.TEST_REDIS_URL ||= 'redis://127.0.0.1:6379';
const redisUrl = process.env.TEST_REDIS_URL;
const MINUTE = 60_000;

const uniquePrefix = () => `sl_test:${randomBytes(6).toString('hex')}:`;

interface LogLine {
  level: 'error' | 'warn';
  message: string;
}

function capturingLogger(lines: LogLine[]) {
  return {
    error: (_: unknown, message?: string) => lines.push({ level: 'error', message: String(message) }),
    warn: (message: unknown) => lines.push({ level: 'warn', message: String(message) }),
  } as never;
}

function addProbeRoute(app: App): void {
  keyedGet(app, '/api/test-probe/ok/', {
    scope: 'brands:read',
    schema: {},
    handler: async () => ({ ok: true }),
  });
}

function remainingOf(header: unknown): number {
  const match = /;r=(\d+);/.exec(String(header));
  assert.ok(match, `RateLimit header ${String(header)}`);
  return Number(match[1]);
}

describe('two instances on one Redis share one exact limit', () => {
  let ctx: TestContext;
  let instances: [App, App];
  let orgId: number;

  before(async () => {
    ctx = await createTestContext();
    orgId = await insertOrg(ctx.dbs.primary, 'acme');
    // Two apps as two deployments would run them: their own stores, one Redis, one key prefix.
    const config = { ...ctx.config, redisUrl, redisKeyPrefix: uniquePrefix(), rateLimitPerMinute: 60 };
    const build = async () => {
      const app = await buildApp(config, { databases: ctx.dbs, logger: false });
      addProbeRoute(app);
      await app.ready();
      return app;
    };
    instances = [await build(), await build()];
  });
  after(async () => {
    for (const app of instances) await app.close();
    await ctx.close();
  });

  it("refuses a key's 61st request in the minute on whichever instance it lands", async () => {
    const key = await mintKey(ctx.dbs.primary, orgId);
    const started = Date.now();
    for (let i = 1; i <= 60; i++) {
      const app = instances[i % 2] as App;
      const res = await app.inject({ url: '/api/test-probe/ok/', headers: bearer(key) });
      assert.equal(res.statusCode, 200, `request ${i}`);
      // Request i leaves 60 − i slots, counted across both instances.
      assert.equal(remainingOf(res.headers.ratelimit), 60 - i, `request ${i}`);
    }
    for (const app of instances) {
      const res = await app.inject({ url: '/api/test-probe/ok/', headers: bearer(key) });
      assert.equal(res.statusCode, 429);
      const retryAfter = Number(res.headers['retry-after']);
      // The first request's slot frees 60 s after it was made: 60 s minus the time since.
      const since = Math.ceil((Date.now() - started) / 1000);
      assert.ok(retryAfter <= 60 && retryAfter >= 60 - since - 1, `Retry-After ${retryAfter}`);
      assert.deepEqual(res.json(), {
        detail: `Request was throttled. Expected available in ${retryAfter} seconds.`,
      });
    }
  });

  it('accepts exactly 60 of 100 simultaneous requests spread over both instances', async () => {
    const key = await mintKey(ctx.dbs.primary, orgId);
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (instances[i % 2] as App).inject({ url: '/api/test-probe/ok/', headers: bearer(key) }),
      ),
    );
    const counts = { 200: 0, 429: 0 } as Record<number, number>;
    for (const res of responses) counts[res.statusCode] = (counts[res.statusCode] ?? 0) + 1;
    assert.deepEqual(counts, { 200: 60, 429: 40 });
  });
});

describe('RedisRateLimitStore: the window rolls (60 per 60 s)', () => {
  it('with an injected clock, across two store instances, capacity returns one slot at a time', async () => {
    const prefix = uniquePrefix();
    const stores = [
      new RedisRateLimitStore({ url: redisUrl, prefix, clock: 'caller' }),
      new RedisRateLimitStore({ url: redisUrl, prefix, clock: 'caller' }),
    ];
    try {
      const t0 = 1_800_000_000_000;
      const hit = (i: number, at: number) =>
        (stores[i % 2] as RedisRateLimitStore).hit('key:roll', 60, MINUTE, at);
      // One request a second, t0 … t0+59 s, alternating stores: all 60 fit.
      for (let i = 0; i < 60; i++) assert.equal((await hit(i, t0 + i * 1000)).allowed, true, `request ${i}`);
      // t0+59.999 s: 60 requests in the last minute, refused; the t0 slot frees in 1 ms → 1 s.
      assert.deepEqual(await hit(0, t0 + 59_999), { allowed: false, remaining: 0, resetSeconds: 1 });
      // t0+60 s: the t0 request has left the window (exactly 60 s old), one slot is free.
      assert.deepEqual(await hit(1, t0 + 60_000), { allowed: true, remaining: 0, resetSeconds: 1 });
      // Still t0+60 s: that slot is taken again; the next frees when t0+1 s ages out, in 1 s.
      assert.deepEqual(await hit(0, t0 + 60_000), { allowed: false, remaining: 0, resetSeconds: 1 });
      // t0+61 s: the t0+1 s request left; one more fits.
      assert.equal((await hit(1, t0 + 61_000)).allowed, true);
      // t0+120.5 s: everything at or before t0+60.5 s has left, so only the t0+61 s request is
      // inside. With this one 2 of 60 are used: 58 remain; t0+61 s frees in 0.5 s → 1 s.
      assert.deepEqual(await hit(0, t0 + 120_500), { allowed: true, remaining: 58, resetSeconds: 1 });
    } finally {
      for (const store of stores) await store.close();
    }
  });

  it("with Redis's own clock, a short window frees its slots in real time", async () => {
    const store = new RedisRateLimitStore({ url: redisUrl, prefix: uniquePrefix() });
    try {
      // The `now` passed in is ignored: a far-off value proves it.
      const hit = () => store.hit('key:short', 2, 1000, 0);
      assert.equal((await hit()).allowed, true);
      assert.equal((await hit()).allowed, true);
      const refused = await hit();
      assert.equal(refused.allowed, false);
      assert.equal(refused.resetSeconds, 1);
      await sleep(1100);
      assert.deepEqual(await hit(), { allowed: true, remaining: 1, resetSeconds: 1 });
    } finally {
      await store.close();
    }
  });
});

/** A TCP relay to Redis that the test can cut and restore, to stage an outage. */
class RedisRelay {
  port = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly target: URL;

  constructor(target: string) {
    this.target = new URL(target);
  }

  async start(port = 0): Promise<void> {
    this.server = createServer((client) => {
      const upstream = new Socket();
      upstream.connect(Number(this.target.port || 6379), this.target.hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => this.sockets.delete(socket));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

describe('when Redis is unreachable', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  it('keeps answering with per-instance limits, reports it in readiness and metrics', async () => {
    // Nothing listens on port 1.
    const app = await buildApp(
      { ...ctx.config, redisUrl: 'redis://127.0.0.1:1', rateLimitPerMinute: 3 },
      { databases: ctx.dbs, logger: false },
    );
    addProbeRoute(app);
    await app.ready();
    try {
      const key = await mintKey(ctx.dbs.primary, await insertOrg(ctx.dbs.primary, 'acme'));
      const statuses = [];
      for (let i = 0; i < 4; i++) {
        statuses.push((await app.inject({ url: '/api/test-probe/ok/', headers: bearer(key) })).statusCode);
      }
      // The limit of 3 still holds, in this instance's memory.
      assert.deepEqual(statuses, [200, 200, 200, 429]);

      const ready = await app.inject({ url: '/readyz' });
      assert.equal(ready.statusCode, 200);
      assert.deepEqual(ready.json(), {
        status: 'degraded',
        checks: { database: 'ok', primaryDatabase: 'ok', redis: 'unreachable' },
      });
      const metrics = await app.metrics.metrics();
      assert.match(metrics, /^sightline_rate_limit_degraded 1$/m);
      assert.match(metrics, /^sightline_rate_limit_fallback_decisions_total 4$/m);
    } finally {
      await app.close();
    }
  });

  it('logs the outage once, and the recovery once, and shares the limit again afterwards', async () => {
    const relay = new RedisRelay(redisUrl);
    await relay.start();
    const lines: LogLine[] = [];
    const store = new RedisRateLimitStore({
      url: `redis://127.0.0.1:${relay.port}`,
      prefix: uniquePrefix(),
      logger: capturingLogger(lines),
    });
    try {
      assert.equal((await store.hit('key:k', 100, MINUTE, Date.now())).allowed, true);
      assert.equal(store.degraded, false);

      await relay.cut();
      for (let i = 0; i < 20; i++) {
        assert.equal((await store.hit('key:k', 100, MINUTE, Date.now())).allowed, true);
        await sleep(10);
      }
      assert.equal(store.degraded, true);
      assert.equal(await store.ping(), false);
      assert.deepEqual(
        lines.map((l) => l.level),
        ['error'],
        'one loud line for the whole outage, however many requests and reconnect attempts',
      );
      assert.match(lines[0]?.message ?? '', /per instance/);

      await relay.start(relay.port);
      for (let i = 0; i < 100 && store.degraded; i++) await sleep(50);
      assert.equal(store.degraded, false, 'reconnected by itself');
      assert.equal(await store.ping(), true);
      assert.deepEqual(
        lines.map((l) => l.level),
        ['error', 'warn'],
      );
      // Back on Redis: the one request made before the outage is still in the shared window.
      assert.equal((await store.hit('key:k', 100, MINUTE, Date.now())).remaining, 100 - 2);
    } finally {
      await store.close();
      await relay.cut();
    }
  });
});

describe('a Redis that refuses its password', () => {
  it('is logged as unreachable without the password it was given', async () => {
    const ctx = await createTestContext();
    const url = new URL(redisUrl);
    url.username = 'sightline-user';
    url.password = 'RedisSecretPw9';
    const lines: string[] = [];
    const app = await buildApp(
      { ...ctx.config, redisUrl: url.href, redisKeyPrefix: uniquePrefix() },
      {
        databases: ctx.dbs,
        logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } },
      },
    );
    try {
      await app.ready();
      for (let i = 0; i < 100 && !lines.some((l) => l.includes('Redis is unreachable')); i++) await sleep(20);
      const refused = lines.find((l) => l.includes('Redis is unreachable'));
      assert.ok(refused, lines.join(''));
      // ioredis puts the AUTH command, password and all, on the error it reports.
      assert.match(refused, /WRONGPASS/);
      assert.ok(!lines.join('').includes('RedisSecretPw9'), refused);
    } finally {
      await app.close();
      await ctx.close();
    }
  });
});
