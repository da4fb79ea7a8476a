import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';
import type { App } from '../src/http/types.ts';
import { ACME, appWithClock } from './support/analytics.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { BrandFixture, insertOrg, mintKey } from './support/fixtures.ts';

// The analytics cache (src/analytics/window.ts AnalyticsCache): window sums kept per data version
// and served again while a window's ends pass no run. Every answer of the app that keeps them is
// compared with the answer of an app on the same database and clock that keeps nothing, so what
// is checked is that the cache never changes a body, and when it is used at all.

const NOW = Date.parse('2026-03-15T12:00:00.000Z');
const MINUTE = 60_000;
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('analytics cache', () => {
  let ctx: TestContext;
  let cached: App;
  let fresh: App;
  let clocks: { now: Date }[];
  let f: BrandFixture;
  let key: string;
  let categoryA: number;
  let p1: number;
  const setNow = (ms: number) => {
    for (const clock of clocks) clock.now = new Date(ms);
  };

  const lookups = () => {
    const stats = cached.analyticsCache?.stats();
    assert.ok(stats, 'the cache is on by default');
    return stats;
  };

  /** A request to the app that keeps sums, with the cache lookups it made. */
  async function cachedGet(url: string) {
    const before = lookups();
    const kept = await cached.inject({ url, headers: bearer(key) });
    const after = lookups();
    assert.equal(kept.statusCode, 200, kept.body);
    return { kept, misses: after.misses - before.misses, hits: after.hits - before.hits };
  }

  /** The same request to both apps: the kept answer must be the fresh one. */
  async function both(url: string) {
    const { kept, misses, hits } = await cachedGet(url);
    const reference = await fresh.inject({ url, headers: bearer(key) });
    assert.equal(kept.body, reference.body, url);
    return { body: kept.json(), misses, hits };
  }

  /**
   * Asks until a request is served wholly from the cache. On SQLite the second request is; on
   * PostgreSQL the version is the cluster's snapshot, which other test files move when they write.
   */
  async function servedFromCache(ask: () => Promise<{ misses: number; hits: number }>) {
    for (let attempt = 0; attempt < 200; attempt++) {
      const answer = await ask();
      if (answer.misses === 0 && answer.hits > 0) return;
    }
    assert.fail('no request was served from the cache');
  }

  before(async () => {
    ctx = await createTestContext();
    const apps = await Promise.all([
      appWithClock(ctx, iso(NOW)),
      appWithClock(ctx, iso(NOW), { analyticsCacheBytes: 0, responseCacheBytes: 0 }),
    ]);
    [cached, fresh] = apps.map((a) => a.app) as [App, App];
    clocks = apps.map((a) => a.clock);
    const orgId = await insertOrg(ctx.dbs.primary, 'acme');
    key = await mintKey(ctx.dbs.primary, orgId);
    f = await BrandFixture.insert(ctx.dbs.primary, orgId, ACME);
    categoryA = await f.category('A');
    const categoryB = await f.category('B');
    p1 = await f.prompt(categoryA);
    const p2 = await f.prompt(categoryA);
    const p3 = await f.prompt(categoryB);
    const globex = await f.competitor(categoryA, 'Globex');
    // A run every eight days from 2025-11-20 to 2026-03-12, alternating categories, the answers
    // changing with the run so that every window has different sums; and one run an hour after "now".
    const start = Date.parse('2025-11-20T10:00:00.000Z');
    for (let i = 0; start + i * 8 * DAY < NOW; i++) {
      const inA = i % 2 === 0;
      await f.run({
        category: inA ? categoryA : categoryB,
        finishedAt: iso(start + i * 8 * DAY),
        answers: inA
          ? [
              {
                prompt: p1,
                mentioned: i % 3 !== 0,
                rank: (i % 3) + 1,
                mentions: [{ competitor: globex, rank: 1 }],
                citations: [`https://site${i % 4}.example/page`],
              },
              { prompt: p2, mentioned: i % 4 === 0, weight: 2 },
            ]
          : [{ prompt: p3, mentioned: true, rank: (i % 2) + 1, citations: ['https://acme.example/'] }],
      });
    }
    await f.run({
      category: categoryB,
      finishedAt: iso(NOW + 60 * MINUTE),
      answers: [{ prompt: p3, mentioned: true, rank: 1 }],
    });
  });
  after(async () => {
    await cached.close();
    await fresh.close();
    await ctx.close();
  });

  it('answers every window and scope as a fresh computation does, and again from the cache', async () => {
    const custom = 'range=custom&start=2025-12-01&end=2026-01-20';
    const brand = `/api/brands/${f.brandId}/analytics/`;
    const category = `/api/categories/${categoryA}/analytics/`;
    setNow(NOW);
    for (const [base, queries] of [
      [brand, ['range=7d', 'range=90d', 'range=all', custom]],
      [category, ['range=30d', 'range=all']],
    ] as const) {
      for (const query of queries) {
        const url = `${base}?${query}`;
        assert.ok((await both(url)).body.coverage.usableSampleCount > 0, url);
      }
      // Kept, then served again: the same body as a fresh computation.
      const url = `${base}?range=90d`;
      await servedFromCache(() => cachedGet(url));
      await both(url);
    }
  });

  it('serves a window whose ends moved with the clock but passed no run from the cache', async () => {
    const url = `/api/brands/${f.brandId}/analytics/?range=7d`;
    let minutes = 0;
    await servedFromCache(async () => {
      setNow(NOW);
      await cachedGet(url);
      // A different window each time: its start and end are later, and no run finished between.
      minutes += 1;
      setNow(NOW + minutes * MINUTE);
      return cachedGet(url);
    });
    const moved = await both(url);
    assert.equal(moved.body.window.end, iso(NOW + minutes * MINUTE));
  });

  it('reads afresh when the end passes a run, and counts that run', async () => {
    const url = `/api/brands/${f.brandId}/analytics/?range=7d`;
    setNow(NOW + 30 * MINUTE);
    const before = await both(url);
    // The run an hour after NOW now lies inside the window.
    setNow(NOW + 90 * MINUTE);
    const after = await both(url);
    assert.ok(after.misses > 0);
    assert.ok(after.body.coverage.usableSampleCount > before.body.coverage.usableSampleCount);
  });

  it('answers from the new data right after a commit', async () => {
    const url = `/api/brands/${f.brandId}/analytics/?range=30d`;
    setNow(NOW);
    await servedFromCache(() => cachedGet(url));
    const before = await both(url);
    await f.run({
      category: categoryA,
      finishedAt: iso(NOW - 5 * 3_600_000),
      answers: [{ prompt: p1, mentioned: true, rank: 1, weight: 3 }],
    });
    // One more usable answer (coverage counts answers; its weight is the samples).
    const after = await both(url);
    assert.equal(after.body.coverage.usableSampleCount, before.body.coverage.usableSampleCount + 1);
  });

  it('answers score histories as a fresh computation does, and again from the cache', async () => {
    setNow(NOW);
    for (const base of [
      `/api/brands/${f.brandId}/score-history/`,
      `/api/categories/${categoryA}/score-history/`,
    ]) {
      for (const query of ['', '?range=90d', '?since=all', '?since=2026-01-01', '?range=all&limit=5']) {
        const url = `${base}${query}`;
        assert.ok((await both(url)).body.points.length > 0, url);
      }
      const url = `${base}?since=all`;
      await servedFromCache(() => cachedGet(url));
      await both(url);
    }
  });

  it('names the window asked, when another window over the same runs was kept', async () => {
    const base = `/api/brands/${f.brandId}/score-history/`;
    setNow(NOW);
    // range=30d starts at 2026-02-13T12:00Z: the same runs as since that instant, another label.
    await servedFromCache(async () => {
      await cachedGet(`${base}?range=30d`);
      return cachedGet(`${base}?since=2026-02-13T12:00:00.000Z`);
    });
    const since = await both(`${base}?since=2026-02-13T12:00:00.000Z`);
    assert.match(since.body.windowedDelta.spanLabel, /^since /);
    assert.equal((await both(`${base}?range=30d`)).body.windowedDelta.spanLabel, '30d');
  });

  it("never serves one organization's kept sums to another", async () => {
    const url = `/api/brands/${f.brandId}/analytics/?range=90d`;
    setNow(NOW);
    await servedFromCache(() => cachedGet(url));
    const globex = await insertOrg(ctx.dbs.primary, 'globex');
    const globexKey = await mintKey(ctx.dbs.primary, globex);
    const before = lookups();
    const other = await cached.inject({ url, headers: bearer(globexKey) });
    assert.equal(other.statusCode, 404);
    // Refused before the handler: the cache was not even asked.
    assert.deepEqual(lookups(), before);
  });

  it('reports its lookups and size as metrics', async () => {
    const metrics = await cached.metrics.metrics();
    assert.match(metrics, /^sightline_analytics_cache_lookups_total\{outcome="hit"\} [1-9]\d*$/m);
    assert.match(metrics, /^sightline_analytics_cache_bytes [1-9]\d*$/m);
  });

  it('is sized by ANALYTICS_CACHE_MB: 16 MiB by default, 0 for none, a clear error otherwise', () => {
    assert.equal(loadConfig({}).analyticsCacheBytes, 16 * 1024 * 1024);
    assert.equal(loadConfig({ ANALYTICS_CACHE_MB: '0' }).analyticsCacheBytes, 0);
    assert.throws(() => loadConfig({ ANALYTICS_CACHE_MB: 'lots' }), ConfigError);
    assert.throws(() => loadConfig({ ANALYTICS_CACHE_MB: '-1' }), ConfigError);
  });
});
