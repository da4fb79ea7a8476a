import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AnalyticsCache, kept } from '../src/analytics/cache.ts';
import { scoreHistory } from '../src/analytics/history-scores.ts';
import { loadWindow, type WindowData } from '../src/analytics/window.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { type HistoryQuery, parseHistory, parseRange } from '../src/domain/windows.ts';
import type { Parsed } from '../src/errors.ts';
import type { App } from '../src/http/types.ts';
import { ACME, appWithClock } from './support/analytics.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { BrandFixture, insertOrg, mintKey } from './support/fixtures.ts';

// The analytics cache (src/analytics/window.ts AnalyticsCache): window sums kept per data version
// and served again while a window's ends pass no run. Every answer of the app that keeps them is
// compared with the answer of an app on the same database and clock that keeps nothing: the cache
// never changes a body. When a value is kept and served again is checked on loadWindow and
// scoreHistory themselves, each against the same call without a cache.

const NOW = Date.parse('2026-03-15T12:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('analytics cache', () => {
  let ctx: TestContext;
  let cached: App;
  let fresh: App;
  let clocks: { now: Date }[];
  let f: BrandFixture;
  let orgId: number;
  let key: string;
  let categoryA: number;
  let categoryB: number;
  let p1: number;
  let p3: number;
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

  // On PostgreSQL the app's data version is the cluster's snapshot, which the other test files
  // move whenever they write to their own databases: while `held` is set, the caching app sees
  // that one version, as it would on a cluster of its own (this database does not change then).
  let held: string | undefined;

  /** The second of two requests under one data version is served wholly from the cache. */
  async function servedFromCache(ask: () => Promise<{ misses: number; hits: number }>) {
    held = await ctx.dbs.dataVersion();
    try {
      await ask();
      const again = await ask();
      assert.equal(again.misses, 0, 'the second request read nothing afresh');
      assert.ok(again.hits > 0, 'the second request was served from the cache');
    } finally {
      held = undefined;
    }
  }

  before(async () => {
    ctx = await createTestContext();
    const apps = await Promise.all([
      appWithClock(
        ctx,
        iso(NOW),
        {},
        {
          ...ctx.dbs,
          dataVersion: () => (held === undefined ? ctx.dbs.dataVersion() : Promise.resolve(held)),
        },
      ),
      appWithClock(ctx, iso(NOW), { analyticsCacheBytes: 0, responseCacheBytes: 0 }),
    ]);
    [cached, fresh] = apps.map((a) => a.app) as [App, App];
    clocks = apps.map((a) => a.clock);
    orgId = await insertOrg(ctx.dbs.primary, 'acme');
    key = await mintKey(ctx.dbs.primary, orgId);
    f = await BrandFixture.insert(ctx.dbs.primary, orgId, ACME);
    categoryA = await f.category('A');
    categoryB = await f.category('B');
    p1 = await f.prompt(categoryA);
    const p2 = await f.prompt(categoryA);
    p3 = await f.prompt(categoryB);
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
    }
    // Kept, then served again: the same body as a fresh computation.
    const url = `${brand}?range=90d`;
    await servedFromCache(() => cachedGet(url));
    await both(url);
  });

  // What is kept and when, through a cache of the test's own under a version nothing moves (on
  // PostgreSQL the app's version is the cluster's snapshot, which the other test files move).
  const ownCache = () => ({ cache: new AnalyticsCache(16 * 1024 * 1024), version: 'one version' });
  type Lookups = { misses: number; hits: number };
  /** The misses and hits of `use` since `since`, each counted by hand with what they were. */
  const assertLookups = (
    use: { cache: AnalyticsCache },
    since: Lookups,
    [misses, missed]: [number, string],
    [hits, hit]: [number, string],
  ) => {
    assert.equal(use.cache.stats().misses, since.misses + misses, missed);
    assert.equal(use.cache.stats().hits, since.hits + hits, hit);
  };
  const usable = (data: WindowData) => data.current.classification.coverage.usableSampleCount;
  const valid = <T>(parsed: Parsed<T>): T => {
    assert.ok(parsed.ok);
    return parsed.value;
  };

  it('serves a window whose ends moved with the clock but passed no run from the cache', async () => {
    const use = ownCache();
    const scope = { orgId, brandId: f.brandId };
    const at = (ms: number) => valid(parseRange({ range: '7d' }, new Date(ms), 'UTC'));
    const first = await loadWindow(ctx.dbs.read, scope, at(NOW), use);
    const { misses, hits } = use.cache.stats();
    // Five minutes later: both ends moved, and no run finished in those minutes at either end.
    const moved = await loadWindow(ctx.dbs.read, scope, at(NOW + 5 * MINUTE), use);
    assert.equal(use.cache.stats().misses, misses);
    assert.equal(use.cache.stats().hits, hits + 3, 'bounds and both sides');
    assert.notEqual(moved.window.end.getTime(), first.window.end.getTime());
    assert.deepEqual(moved, await loadWindow(ctx.dbs.read, scope, at(NOW + 5 * MINUTE)));
  });

  it('reads afresh when the end passes a run, and counts that run', async () => {
    const use = ownCache();
    const scope = { orgId, brandId: f.brandId };
    const at = (ms: number) => valid(parseRange({ range: '7d' }, new Date(ms), 'UTC'));
    const before = await loadWindow(ctx.dbs.read, scope, at(NOW + 30 * MINUTE), use);
    const since = use.cache.stats();
    // The run an hour after NOW (category B) now lies inside the window; the previous week's ends
    // (13:30 a week and two weeks earlier) passed none.
    const after = await loadWindow(ctx.dbs.read, scope, at(NOW + 90 * MINUTE), use);
    assertLookups(
      use,
      since,
      [3, "the current side, and B's part of the day holding its end (coverage and sums)"],
      [
        6,
        "bounds, the previous side, and the current side's part before that day and A's part of it (coverage and sums of each)",
      ],
    );
    assert.equal(usable(after), usable(before) + 1);
    assert.deepEqual(after, await loadWindow(ctx.dbs.read, scope, at(NOW + 90 * MINUTE)));
  });

  it('answers from the new data right after a commit', async () => {
    const url = `/api/brands/${f.brandId}/analytics/?range=30d`;
    setNow(NOW);
    await cachedGet(url);
    const before = await both(url);
    await f.run({
      category: categoryA,
      finishedAt: iso(NOW - 5 * HOUR),
      answers: [{ prompt: p1, mentioned: true, rank: 1, weight: 3 }],
    });
    // One more usable answer (coverage counts answers; its weight is the samples).
    const after = await both(url);
    assert.equal(after.body.coverage.usableSampleCount, before.body.coverage.usableSampleCount + 1);
  });

  it('names a renamed brand and competitor in the next answer, its sums kept', async () => {
    const url = `/api/brands/${f.brandId}/analytics/?range=90d`;
    setNow(NOW);
    await cachedGet(url);
    const names = (body: { shareOfVoice: { visible: { name: string }[] } }) =>
      body.shareOfVoice.visible.map((item) => item.name).sort();
    assert.deepEqual(names((await both(url)).body), ['Acme', 'Globex']);
    const rename = (table: 'brands' | 'competitors', from: string, to: string) =>
      ctx.dbs.primary.updateTable(table).set({ name: to }).where('name', '=', from).execute();
    await rename('brands', 'Acme', 'Acme Renamed');
    await rename('competitors', 'Globex', 'Globex Corporation');
    try {
      const after = await both(url);
      assert.deepEqual(names(after.body), ['Acme Renamed', 'Globex Corporation']);
      assert.ok(after.hits > 0, 'the sides were served from the cache');
    } finally {
      await rename('brands', 'Acme Renamed', 'Acme');
      await rename('competitors', 'Globex Corporation', 'Globex');
    }
  });

  it('answers score histories as a fresh computation does', async () => {
    setNow(NOW);
    for (const base of [
      `/api/brands/${f.brandId}/score-history/`,
      `/api/categories/${categoryA}/score-history/`,
    ]) {
      for (const query of ['', '?range=90d', '?since=all', '?since=2026-01-01', '?range=all&limit=5']) {
        const url = `${base}${query}`;
        assert.ok((await both(url)).body.points.length > 0, url);
      }
    }
  });

  it('answers category deltas as a fresh computation does, and again from the cache', async () => {
    setNow(NOW);
    for (const query of ['', '?range=90d', '?since=2026-01-01', '?since=all']) {
      const url = `/api/brands/${f.brandId}/category-deltas/${query}`;
      const { body } = await both(url);
      assert.deepEqual(Object.keys(body.deltas).sort(), [String(categoryA), String(categoryB)].sort(), url);
    }
    const url = `/api/brands/${f.brandId}/category-deltas/?range=30d`;
    await servedFromCache(() => cachedGet(url));
    // range=30d a minute later passes no run: the same deltas, and still the window's own label.
    setNow(NOW + MINUTE);
    const { kept, misses } = await cachedGet(url);
    assert.equal(misses, 0);
    assert.equal(kept.json().deltas[String(categoryA)].spanLabel, '30d');
    await both(url);
  });

  it('keeps a score history, and names the window asked when another over the same runs was kept', async () => {
    const use = ownCache();
    const scope = { brandId: f.brandId };
    const history = (query: HistoryQuery) =>
      valid(parseHistory(query, new Date(NOW + 5 * MINUTE), 'UTC')).window;
    const all = history({ since: 'all' });
    await scoreHistory(ctx.dbs.read, orgId, scope, all, use);
    const { misses } = use.cache.stats();
    const again = await scoreHistory(ctx.dbs.read, orgId, scope, all, use);
    assert.equal(use.cache.stats().misses, misses);
    assert.deepEqual(again, await scoreHistory(ctx.dbs.read, orgId, scope, all));
    // range=30d five minutes after NOW starts at 2026-02-13T12:05Z: the same runs as since
    // 12:00 that day, under another label.
    await scoreHistory(ctx.dbs.read, orgId, scope, history({ range: '30d' }), use);
    const since = history({ since: '2026-02-13T12:00:00.000Z' });
    const named = await scoreHistory(ctx.dbs.read, orgId, scope, since, use);
    assert.equal(
      use.cache.stats().misses,
      misses + 2,
      'the since window is served what range=30d kept: the history, and its part before the last day',
    );
    assert.match(named.delta.spanLabel, /^since /);
    assert.deepEqual(named, await scoreHistory(ctx.dbs.read, orgId, scope, since));
  });

  it('keeps sums and histories across commits that leave the scope alone', async () => {
    const use = ownCache();
    const scope = { orgId, brandId: f.brandId };
    const window = valid(parseRange({ range: '90d' }, new Date(NOW + 5 * MINUTE), 'UTC'));
    const all = valid(parseHistory({ since: 'all' }, new Date(NOW + 5 * MINUTE), 'UTC')).window;
    await loadWindow(ctx.dbs.read, scope, window, use);
    await scoreHistory(ctx.dbs.read, orgId, { brandId: f.brandId }, all, use);
    await use.cache.settled();
    // Another organization's import, and a key's last use: commits, none of this brand's data.
    const initech = await insertOrg(ctx.dbs.primary, 'initech');
    const other = await BrandFixture.insert(ctx.dbs.primary, initech, { name: 'Initech' });
    const otherCategory = await other.category('A');
    await other.run({
      category: otherCategory,
      finishedAt: iso(NOW - DAY),
      answers: [{ prompt: await other.prompt(otherCategory), mentioned: true, rank: 1 }],
    });
    await ctx.dbs.primary
      .updateTable('api_keys')
      .set({ last_used_at: iso(NOW) })
      .execute();
    use.version = 'after other commits';
    const { misses, hits } = use.cache.stats();
    const kept = await loadWindow(ctx.dbs.read, scope, window, use);
    const history = await scoreHistory(ctx.dbs.read, orgId, { brandId: f.brandId }, all, use);
    assert.equal(use.cache.stats().misses, misses + 1, 'only the bounds, kept for one version');
    assert.equal(use.cache.stats().hits, hits + 3, 'both sides and the history');
    assert.deepEqual(kept, await loadWindow(ctx.dbs.read, scope, window));
    assert.deepEqual(history, await scoreHistory(ctx.dbs.read, orgId, { brandId: f.brandId }, all));
  });

  it("reads afresh when the scope's prompts change eligibility or its categories' runs are refreshed", async () => {
    const use = ownCache();
    const brandScope = { orgId, brandId: f.brandId };
    const categoryScope = { ...brandScope, categoryId: categoryA };
    const window = valid(parseRange({ range: '90d' }, new Date(NOW + 5 * MINUTE), 'UTC'));
    // Each load's stamps read again before the next commit, so that what it kept is known.
    const load = async (scope: typeof brandScope, cache?: typeof use) => {
      const data = await loadWindow(ctx.dbs.read, scope, window, cache);
      await cache?.cache.settled();
      return data;
    };
    const first = await load(brandScope, use);
    await load(categoryScope, use);

    // p1 no longer monitored: every window over its category is read again, without it.
    await ctx.dbs.primary.updateTable('prompts').set({ is_monitored: 0 }).where('id', '=', p1).execute();
    try {
      use.version = 'p1 unmonitored';
      const since = use.cache.stats();
      const without = await load(brandScope, use);
      assertLookups(
        use,
        since,
        [
          11,
          "the bounds, both sides, and the coverage and sums of their parts before the day holding their ends and of category A's part of that day",
        ],
        [4, "category B's part of each side's last day (coverage and sums)"],
      );
      assert.ok(usable(without) < usable(first));
      assert.deepEqual(without, await load(brandScope));
    } finally {
      await ctx.dbs.primary.updateTable('prompts').set({ is_monitored: 1 }).where('id', '=', p1).execute();
    }
    use.version = 'p1 monitored again';
    assert.deepEqual(await load(brandScope, use), first, 'kept from before');

    // A run refreshed this morning in the brand's other category, on the day holding the window's
    // end: the brand's current side is read again, but only category B's part of that day; the
    // part before the day, category A's part of it, the previous side (the 90 days before) and
    // category A's own sums are kept.
    await f.run({
      category: categoryB,
      finishedAt: iso(NOW - 3 * HOUR),
      answers: [{ prompt: p3, mentioned: true, rank: 2 }],
    });
    use.version = 'after a run in B';
    const since = use.cache.stats();
    const brand = await load(brandScope, use);
    assertLookups(
      use,
      since,
      [4, "the brand: bounds, the current side, and B's part of the day (coverage and sums)"],
      [
        5,
        "the brand's previous side, and its current side's part before the day and A's part of the day (coverage and sums)",
      ],
    );
    assert.equal(usable(brand), usable(first) + 1);
    await load(categoryScope, use);
    assertLookups(use, since, [5, 'category A: its bounds only'], [7, "category A's two sides"]);
    assert.deepEqual(brand, await load(brandScope));

    // A run refreshed yesterday: inside the current side's part before the day, which is read
    // again too; both categories' parts of the last day are kept.
    await f.run({
      category: categoryB,
      finishedAt: iso(NOW - DAY),
      answers: [{ prompt: p3, mentioned: true, rank: 1 }],
    });
    use.version = 'after a run yesterday';
    const earlier = use.cache.stats();
    const again = await load(brandScope, use);
    assertLookups(
      use,
      earlier,
      [4, 'the bounds, the current side and its part before the day (coverage and sums)'],
      [5, "the previous side, and A's and B's parts of the last day (coverage and sums)"],
    );
    assert.equal(usable(again), usable(brand) + 1);
    assert.deepEqual(again, await load(brandScope));
  });

  it("keeps a history's part before its last day when a run of that day is refreshed", async () => {
    const use = ownCache();
    const scope = { brandId: f.brandId };
    const at = valid(parseHistory({ since: 'all' }, new Date(NOW + 5 * MINUTE), 'UTC')).window;
    const days30 = valid(parseHistory({ range: '30d' }, new Date(NOW + 5 * MINUTE), 'UTC')).window;
    const histories = async () => {
      const both = await Promise.all(
        [at, days30].map((window) => scoreHistory(ctx.dbs.read, orgId, scope, window, use)),
      );
      await use.cache.settled();
      return both;
    };
    const fresh = () =>
      Promise.all([at, days30].map((window) => scoreHistory(ctx.dbs.read, orgId, scope, window)));
    const first = await histories();
    // The window ends on 2026-03-15 at 12:05: a run that morning (as each new run is) leaves the
    // part before 2026-03-15 as it was.
    await f.run({
      category: categoryB,
      finishedAt: iso(NOW - 3 * HOUR),
      answers: [{ prompt: p3, mentioned: false }],
    });
    use.version = 'after a run this morning';
    let { misses, hits } = use.cache.stats();
    const next = await histories();
    assert.equal(use.cache.stats().misses, misses + 2, 'each history');
    assert.equal(use.cache.stats().hits, hits + 2, "each history's part before the day");
    assert.deepEqual(next, await fresh());
    assert.deepEqual(
      next.map((history) => history.points.length),
      first.map((history) => history.points.length + 1),
      'one point more, the new run',
    );
    // A run yesterday: that part is read again too.
    await f.run({
      category: categoryA,
      finishedAt: iso(NOW - DAY),
      answers: [{ prompt: p1, mentioned: true, rank: 3 }],
    });
    use.version = 'after a run yesterday';
    ({ misses, hits } = use.cache.stats());
    assert.deepEqual(await histories(), await fresh());
    assert.equal(use.cache.stats().misses, misses + 4, 'each history and its part');
    assert.equal(use.cache.stats().hits, hits);
  });

  it("advances a refreshed run's day, and its 4-day block for instances from before day generations", async () => {
    const hooli = await insertOrg(ctx.dbs.primary, 'hooli');
    const other = await BrandFixture.insert(ctx.dbs.primary, hooli, { name: 'Hooli' });
    const category = await other.category('A');
    const prompt = await other.prompt(category);
    const generations = async () =>
      (
        await ctx.dbs.primary
          .selectFrom('aggregate_generations')
          .select(['block', 'generation'])
          .where('org_id', '=', hooli)
          .orderBy('block')
          .execute()
      ).map((row) => ({ block: Number(row.block), generation: Number(row.generation) }));
    // 2026-03-15 is UTC day 20527 (one-day block 1 000 000 + 20527); its 4-day block starts on
    // day 20524 (20527 − 20527 mod 4), stored as 4 000 000 + 20524.
    await other.run({
      category,
      finishedAt: iso(NOW - 3 * HOUR),
      answers: [{ prompt, mentioned: true, rank: 1 }],
    });
    assert.deepEqual(await generations(), [
      { block: 1_020_527, generation: 1 },
      { block: 4_020_524, generation: 1 },
    ]);
    // A run the day before: day 20526, the same 4-day block, which moves again.
    await other.run({ category, finishedAt: iso(NOW - DAY), answers: [{ prompt, mentioned: false }] });
    assert.deepEqual(await generations(), [
      { block: 1_020_526, generation: 1 },
      { block: 1_020_527, generation: 1 },
      { block: 4_020_524, generation: 2 },
    ]);
  });

  it("keeps one category's part of the last day when a run of another category lands that day", async () => {
    const use = ownCache();
    const scope = { orgId, brandId: f.brandId };
    const window = valid(parseRange({ range: '90d' }, new Date(NOW + 5 * MINUTE), 'UTC'));
    // Both categories have answers on 2026-03-15 before the second load: A's at 10:00, B's from
    // the tests above (09:00).
    await f.run({
      category: categoryA,
      finishedAt: iso(NOW - 2 * HOUR),
      answers: [{ prompt: p1, mentioned: true, rank: 1 }],
    });
    const first = await loadWindow(ctx.dbs.read, scope, window, use);
    await use.cache.settled();
    await f.run({
      category: categoryB,
      finishedAt: iso(NOW - HOUR),
      answers: [{ prompt: p3, mentioned: true, rank: 2 }],
    });
    use.version = 'after a run in B at 11:00';
    const since = use.cache.stats();
    const next = await loadWindow(ctx.dbs.read, scope, window, use);
    assertLookups(
      use,
      since,
      [4, "bounds, the current side, and B's part of the day (coverage and sums)"],
      [
        5,
        "the previous side, and the current side's part before the day and A's part of it (coverage and sums)",
      ],
    );
    assert.equal(usable(next), usable(first) + 1);
    assert.deepEqual(next, await loadWindow(ctx.dbs.read, scope, window));
  });

  it("never serves one organization's kept sums to another", async () => {
    const url = `/api/brands/${f.brandId}/analytics/?range=90d`;
    setNow(NOW);
    await cachedGet(url);
    // On PostgreSQL that answer's sums are kept once their stamp, read again, holds: after the
    // answer, so its entry could land between the two counts below (seen once in CI: 70 → 71).
    await cached.analyticsCache?.settled();
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

// Whether a value read under a stamp is kept: only if nothing it rests on moved while it was read.
// SQLite's data version, read again in process, settles it without a statement when no commit
// happened meanwhile; otherwise (or on PostgreSQL, which has no such read) the stamp is read again.
describe('analytics cache: keeping a value read under a stamp', () => {
  /** `kept` over one key whose loads give 1, 2, …; `unchanged` reads the stamp again. */
  const oneKey = (versionNow: (() => string) | undefined, unchanged: () => Promise<boolean>) => {
    const use = { cache: new AnalyticsCache(1024 * 1024), version: '7', versionNow };
    const counted = { loads: 0 };
    const ask = () =>
      kept(
        use,
        'scope side',
        async () => ++counted.loads,
        () => 1,
        unchanged,
      );
    return { use, ask, counted };
  };
  const keptTwice = async (versionNow: (() => string) | undefined, stampHolds: boolean) => {
    let stampReads = 0;
    const { ask, counted } = oneKey(versionNow, async () => {
      stampReads++;
      return stampHolds;
    });
    const values = [await ask(), await ask()];
    return { values, loads: counted.loads, stampReads };
  };

  it('keeps it without reading the stamp again when the data version has not moved', async () => {
    assert.deepEqual(await keptTwice(() => '7', false), { values: [1, 1], loads: 1, stampReads: 0 });
  });

  it('reads the stamp again when the data version moved, and keeps it if the stamp holds', async () => {
    assert.deepEqual(await keptTwice(() => '8', true), { values: [1, 1], loads: 1, stampReads: 1 });
  });

  it('does not keep it when the data version and the stamp both moved', async () => {
    assert.deepEqual(await keptTwice(() => '8', false), { values: [1, 2], loads: 2, stampReads: 2 });
  });

  it('reads the stamp again where the data version cannot be read in process (PostgreSQL)', async () => {
    assert.deepEqual(await keptTwice(undefined, true), { values: [1, 1], loads: 1, stampReads: 1 });
    assert.deepEqual(await keptTwice(undefined, false), { values: [1, 2], loads: 2, stampReads: 2 });
  });

  it('answers before the stamp is read again; a lookup of the same key meanwhile waits for that read', async () => {
    const stampRead = Promise.withResolvers<boolean>();
    const { use, ask, counted } = oneKey(undefined, () => stampRead.promise);
    assert.equal(await ask(), 1, 'answered while the stamp is still being read');
    const second = ask();
    const other = kept(
      use,
      'another side',
      async () => 'other',
      () => 1,
    );
    assert.equal(await other, 'other', 'another key does not wait');
    stampRead.resolve(true);
    assert.equal(await second, 1);
    assert.equal(counted.loads, 1, 'the second lookup found the value kept once the stamp held');
    await use.cache.settled();
    assert.equal(use.cache.checking.size, 0, 'nothing left under way');
  });
});
