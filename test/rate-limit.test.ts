import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MemoryRateLimitStore } from '../src/auth/rate-limit.ts';
import { keyedGet } from '../src/http/endpoint.ts';
import type { App } from '../src/http/types.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { insertOrg, mintKey } from './support/fixtures.ts';

// The exact rolling limit (decisions.md, Rate limit): over HTTP with a low configured limit, and
// the store itself with an injected clock for the rolling-window arithmetic.

const LIMIT = 5;
const MINUTE = 60_000;

// Probe routes, so the limiter is tested on its own whatever state the real endpoints are in.
function addProbeRoutes(app: App): void {
  const handler = async () => ({ ok: true });
  keyedGet(app, '/api/test-probe/brands/', { scope: 'brands:read', schema: {}, handler });
  keyedGet(app, '/api/test-probe/runs/', { scope: 'runs:read', schema: {}, handler });
  keyedGet(app, '/api/test-probe/pro/', { scope: 'brands:read', minimumPlan: 'pro', schema: {}, handler });
}

function rateLimitHeader(value: unknown): { remaining: number; resetSeconds: number } {
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(String(value));
  assert.ok(match, `RateLimit header: ${String(value)}`);
  return { remaining: Number(match[1]), resetSeconds: Number(match[2]) };
}

describe('rate limit over HTTP (limit 5 per minute)', () => {
  let ctx: TestContext;
  const keys: Record<string, string> = {};
  const get = (key: string, url = '/api/test-probe/brands/', remoteAddress?: string) =>
    ctx.app.inject({ url, headers: bearer(key), ...(remoteAddress ? { remoteAddress } : {}) });

  before(async () => {
    ctx = await createTestContext({ rateLimitPerMinute: LIMIT }, { beforeReady: addProbeRoutes });
    const acme = await insertOrg(ctx.dbs.primary, 'acme');
    const umbrella = await insertOrg(ctx.dbs.primary, 'umbrella', { plan: 'starter' });
    for (const name of ['first', 'second', 'fromBusyAddress'])
      keys[name] = await mintKey(ctx.dbs.primary, acme);
    keys.brandsOnly = await mintKey(ctx.dbs.primary, acme, { scopes: ['brands:read'] });
    keys.starter = await mintKey(ctx.dbs.primary, umbrella);
  });
  after(() => ctx?.close());

  it('accepts 5 requests, counting down RateLimit, then answers 429 with Retry-After', async () => {
    for (let i = 1; i <= LIMIT; i++) {
      const res = await get(keys.first as string);
      assert.equal(res.statusCode, 200, `request ${i}`);
      assert.equal(res.headers['ratelimit-policy'], '"default";q=5;w=60');
      const { remaining, resetSeconds } = rateLimitHeader(res.headers.ratelimit);
      // Request i leaves 5 - i of the 5 slots; the first slot frees a minute after request 1.
      assert.equal(remaining, LIMIT - i);
      assert.ok(resetSeconds >= 59 && resetSeconds <= 60, `t=${resetSeconds}`);
    }
    const refused = await get(keys.first as string);
    assert.equal(refused.statusCode, 429);
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
      `Retry-After ${retryAfter}`,
    );
    assert.deepEqual(refused.json(), {
      detail: `Request was throttled. Expected available in ${retryAfter} seconds.`,
    });
    assert.equal(refused.headers['ratelimit-policy'], '"default";q=5;w=60');
    assert.deepEqual(rateLimitHeader(refused.headers.ratelimit), { remaining: 0, resetSeconds: retryAfter });
  });

  it('gives every key its own quota', async () => {
    const res = await get(keys.second as string);
    assert.equal(res.statusCode, 200);
    assert.equal(rateLimitHeader(res.headers.ratelimit).remaining, LIMIT - 1);
  });

  it('does not spend a key quota on requests the gate rejects', async () => {
    const key = keys.brandsOnly as string;
    // Missing scope (403), a write method (403), both headers (401): none may use the quota. The
    // 401s come from another address so that per-address limiting of failed auth stays out of it.
    for (let i = 0; i < 2 * LIMIT; i++) {
      assert.equal((await get(key, '/api/test-probe/runs/')).statusCode, 403);
      const post = await ctx.app.inject({
        method: 'POST',
        url: '/api/test-probe/brands/',
        headers: bearer(key),
      });
      assert.equal(post.statusCode, 403);
    }
    for (let i = 0; i < LIMIT; i++) {
      const both = await ctx.app.inject({
        url: '/api/test-probe/brands/',
        headers: { ...bearer(key), 'x-api-key': key },
        remoteAddress: '192.0.2.50',
      });
      assert.equal(both.statusCode, 401);
    }
    for (let i = 1; i <= LIMIT; i++) {
      const res = await get(key);
      assert.equal(res.statusCode, 200, `accepted request ${i}`);
      assert.equal(rateLimitHeader(res.headers.ratelimit).remaining, LIMIT - i);
    }
    assert.equal((await get(key)).statusCode, 429);
  });

  it('does not spend quota on a plan refusal', async () => {
    const key = keys.starter as string;
    for (let i = 0; i < 2 * LIMIT; i++) {
      const res = await get(key, '/api/test-probe/pro/');
      assert.equal(res.statusCode, 403);
      assert.match(res.json().detail, /pro plan/);
    }
    const res = await get(key);
    assert.equal(res.statusCode, 200);
    assert.equal(rateLimitHeader(res.headers.ratelimit).remaining, LIMIT - 1);
  });

  it('limits unauthenticated traffic per client address, apart from key quotas', async () => {
    const busy = '192.0.2.10';
    for (let i = 0; i < LIMIT; i++) {
      const res = await ctx.app.inject({ url: '/api/test-probe/brands/', remoteAddress: busy });
      assert.equal(res.statusCode, 401);
    }
    const refused = await ctx.app.inject({ url: '/api/test-probe/brands/', remoteAddress: busy });
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    assert.match(refused.json().detail, /^Request was throttled\. Expected available in \d+ seconds\.$/);

    const elsewhere = await ctx.app.inject({ url: '/api/test-probe/brands/', remoteAddress: '192.0.2.11' });
    assert.equal(elsewhere.statusCode, 401);
    // A valid key calling from the throttled address still has its own full quota.
    const keyed = await get(keys.fromBusyAddress as string, '/api/test-probe/brands/', busy);
    assert.equal(keyed.statusCode, 200);
    assert.equal(rateLimitHeader(keyed.headers.ratelimit).remaining, LIMIT - 1);
  });
});

/** A deterministic stream of numbers in [0, 1) (a small LCG). */
function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('MemoryRateLimitStore: exact rolling window (60 per 60 s)', () => {
  const hit = (store: MemoryRateLimitStore, at: number, bucket = 'k') => store.hit(bucket, 60, MINUTE, at);

  it('refuses the 61st request inside one minute and says when a slot frees', async () => {
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 60; i++) {
      const decision = await hit(store, i * 1000);
      assert.equal(decision.allowed, true, `request at ${i} s`);
      assert.equal(decision.remaining, 59 - i);
    }
    // 60 accepted at 0 s..59 s; at 59.999 s the one from 0 s is still inside (frees at 60 s).
    assert.deepEqual(await hit(store, 59_999), { allowed: false, remaining: 0, resetSeconds: 1 });
  });

  it('returns capacity one slot at a time as requests age out', async () => {
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 60; i++) await hit(store, i * 1000);
    // The request from k s leaves the window at (60 + k) s: exactly one more is accepted then.
    for (let k = 0; k < 60; k++) {
      const at = MINUTE + k * 1000;
      assert.equal((await hit(store, at - 1)).allowed, false, `just before ${at} ms`);
      assert.equal((await hit(store, at)).allowed, true, `at ${at} ms`);
      assert.equal((await hit(store, at)).allowed, false, `second request at ${at} ms`);
    }
  });

  it('allows no burst across a fixed-minute boundary', async () => {
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 60; i++) assert.equal((await hit(store, 59_000)).allowed, true);
    // A fixed-window limiter would reset at 60 s and accept 60 more; a rolling one waits until the
    // burst at 59 s leaves the window, at 119 s. Half-way there, a slot is 30 s away.
    assert.deepEqual(await hit(store, 60_000), { allowed: false, remaining: 0, resetSeconds: 59 });
    assert.deepEqual(await hit(store, 89_000), { allowed: false, remaining: 0, resetSeconds: 30 });
    assert.equal((await hit(store, 118_999)).allowed, false);
    for (let i = 0; i < 60; i++) assert.equal((await hit(store, 119_000)).allowed, true);
    assert.equal((await hit(store, 119_000)).allowed, false);
  });

  it('keeps buckets apart', async () => {
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 60; i++) await hit(store, 0, 'a');
    assert.equal((await hit(store, 1, 'a')).allowed, false);
    assert.deepEqual(await hit(store, 1, 'b'), { allowed: true, remaining: 59, resetSeconds: 60 });
  });

  it('matches the definition on a long irregular stream: never 61 in a minute, never refuses early', async () => {
    const store = new MemoryRateLimitStore();
    // A deterministic stream of bursts and lulls, 5 000 requests over ~25 minutes.
    const next = lcg(42);
    let at = 0;
    const accepted: number[] = [];
    for (let i = 0; i < 5000; i++) {
      at += next() < 0.8 ? Math.floor(next() * 50) : Math.floor(next() * 5000);
      const decision = await hit(store, at);
      // The definition: accept iff fewer than 60 accepted requests lie in (at - 60 s, at].
      const inWindow = accepted.filter((t) => t > at - MINUTE).length;
      assert.equal(decision.allowed, inWindow < 60, `request ${i} at ${at} ms with ${inWindow} in window`);
      if (decision.allowed) accepted.push(at);
    }
    assert.ok(accepted.length > 300 && accepted.length < 5000, 'the stream exercised both outcomes');
  });

  it('matches the definition with a high limit, whose window holds thousands of times', async () => {
    // 1,000 a minute: the store drops the times that left the window in batches, so a window of
    // this size crosses that path many times. Remaining and reset are checked too.
    const store = new MemoryRateLimitStore();
    const next = lcg(7);
    let at = 0;
    const accepted: number[] = [];
    let first = 0; // accepted[first] is the oldest accepted time still inside (at - 60 s, at]
    let refused = 0;
    for (let i = 0; i < 30_000; i++) {
      // Bursts of 3,000 requests ~20 ms apart (3,000 a minute), then lulls of 2,000 ~100 ms apart.
      at += Math.floor(next() * (i % 5000 < 3000 ? 40 : 200));
      while (first < accepted.length && (accepted[first] as number) <= at - MINUTE) first++;
      const inWindow = accepted.length - first;
      const decision = await store.hit('k', 1000, MINUTE, at);
      assert.equal(decision.allowed, inWindow < 1000, `request ${i} at ${at} ms with ${inWindow} in window`);
      if (decision.allowed) accepted.push(at);
      else refused++;
      const oldest = accepted[first] as number;
      assert.equal(decision.remaining, 1000 - (accepted.length - first), `remaining after request ${i}`);
      assert.equal(
        decision.resetSeconds,
        Math.max(1, Math.ceil((oldest + MINUTE - at) / 1000)),
        `reset at ${i}`,
      );
    }
    assert.ok(refused > 1000 && accepted.length > 10_000, 'the stream exercised both outcomes');
  });
});
