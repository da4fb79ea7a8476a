import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Static } from 'typebox';
import type { App } from '../src/http/types.ts';
import type { Analytics } from '../src/schemas/analytics.ts';
import { ACME, appWithClock } from './support/analytics.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { BrandFixture, insertOrg, mintKey } from './support/fixtures.ts';

// Analytics figures worked out by hand from purpose-built fixtures. "Now" is pinned to
// 2026-03-15T12:00Z, so the default 30-day window is [2026-02-13T12:00Z, 2026-03-15T12:00Z) and
// its comparison window [2026-01-14T12:00Z, 2026-02-13T12:00Z).

const NOW = '2026-03-15T12:00:00.000Z';

describe('analytics', () => {
  let ctx: TestContext;
  let app: App;

  before(async () => {
    ctx = await createTestContext();
    ({ app } = await appWithClock(ctx, NOW));
  });
  after(async () => {
    await app.close();
    await ctx.close();
  });

  async function tenant(slug: string, timezone = 'UTC') {
    const orgId = await insertOrg(ctx.dbs.primary, slug, { timezone });
    const key = await mintKey(ctx.dbs.primary, orgId);
    const fixture = await BrandFixture.insert(ctx.dbs.primary, orgId, ACME);
    const get = async (url: string) => {
      const res = await app.inject({ url, headers: bearer(key) });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    return { fixture, get };
  }

  describe('metrics, platforms, coverage, share of voice and sources', () => {
    let body: Static<typeof Analytics>;
    let f: BrandFixture;
    let get: (url: string) => Promise<Record<string, unknown>>;
    let archived: number;

    before(async () => {
      const t = await tenant('metrics');
      f = t.fixture;
      get = t.get;
      const live = await f.category('Help desks');
      archived = await f.category('Old', { archived: true });
      const [p1, p2] = [await f.prompt(live), await f.prompt(live)];
      const unmonitored = await f.prompt(live, { monitored: false });
      const archivedPrompt = await f.prompt(live, { archived: true });
      const inArchivedCategory = await f.prompt(archived);
      const [globex, initech] = [await f.competitor(live, 'Globex'), await f.competitor(live, 'Initech')];

      // Previous window.
      await f.run({
        category: live,
        finishedAt: '2026-02-01T10:00:00.000Z',
        answers: [
          {
            prompt: p1,
            weight: 2,
            mentioned: true,
            rank: 3,
            sentiment: 'negative',
            mentions: [
              { competitor: globex, rank: 1 },
              { competitor: initech, rank: 2 },
            ],
            citations: ['https://other.org/y'],
          },
          { prompt: p2, weight: 2, mentions: [{ competitor: initech, rank: 1 }] },
        ],
      });
      // Current window.
      await f.run({
        category: live,
        finishedAt: '2026-03-01T10:00:00.000Z',
        answers: [
          {
            prompt: p1,
            weight: 3,
            mentioned: true,
            rank: 1,
            sentiment: 'positive',
            mentions: [{ competitor: globex, rank: 2 }],
            citations: ['https://www.example.com/a', 'https://docs.example.com/b'],
          },
          {
            prompt: p1,
            model: 'gemini',
            modelLabel: 'Gemini',
            mentions: [{ competitor: globex, rank: 1 }],
            citations: ['https://news.other.org/x'],
          },
          {
            prompt: p2,
            surface: 'ui_scrape',
            weight: 2,
            mentioned: true,
            sentiment: 'neutral',
            citations: ['https://example.com/a'],
          },
          { prompt: p2, model: 'gemini', outcome: 'error' },
          { prompt: p2, model: 'gemini', outcome: 'empty' },
          { prompt: p1, model: 'google_ai_overview', surface: 'ai_overview', outcome: 'no_result' },
          // Ineligible prompts: never counted anywhere.
          { prompt: unmonitored, weight: 5, mentioned: true, rank: 1, citations: ['https://excluded.net/'] },
          {
            prompt: archivedPrompt,
            weight: 7,
            mentioned: true,
            rank: 1,
            mentions: [{ competitor: initech, rank: 1 }],
          },
        ],
      });
      await f.run({
        category: archived,
        finishedAt: '2026-03-02T10:00:00.000Z',
        answers: [
          { prompt: inArchivedCategory, weight: 4, mentioned: true, citations: ['https://excluded.net/'] },
        ],
      });
      // An unpublished run is invisible.
      await f.run({
        category: live,
        finishedAt: '2026-03-05T10:00:00.000Z',
        published: false,
        answers: [{ prompt: p1, weight: 10, mentioned: true, rank: 1, citations: ['https://excluded.net/'] }],
      });
      body = await t.get(`/api/brands/${f.brandId}/analytics/`);
    });

    it('states the window', () => {
      assert.deepEqual(body.window, {
        range: '30d',
        start: '2026-02-13T12:00:00.000Z',
        end: '2026-03-15T12:00:00.000Z',
        asOf: '2026-03-15T12:00:00.000Z',
        timezone: 'UTC',
        selection: { kind: 'rolling', preset: '30d', startDate: '2026-02-13', endDate: '2026-03-15' },
        previous: { start: '2026-01-14T12:00:00.000Z', end: '2026-02-13T12:00:00.000Z' },
        bounds: { earliestObservationAt: '2026-02-01T10:00:00.000Z' },
      });
    });

    it('weights mention rate, rank and sentiment by sampleCount', () => {
      // Usable now: P1 chatgpt (w3, rank 1, positive), P1 gemini (w1, not mentioned), P2 chatgpt
      // ui_scrape (w2, unranked, neutral). Σw = 6; mentioned 3 + 2 = 5 → 5/6 = 0.8333.
      // Ranked: w3 at rank 1 → 3/3 = 1. Before: P1 (w2, rank 3, negative), P2 (w2, not mentioned):
      // 2/4 = 0.5, rank 3. Deltas: 0.8333 − 0.5 = 0.3333; 1 − 3 = −2.
      // Two prompts are fewer than the 3 an interval needs: no interval, and a change that cannot
      // be told from the noise.
      assert.deepEqual(body.metrics, {
        scope: 'historical_observation',
        label: 'Last 30 days',
        sampleCount: 6,
        mentionRate: {
          value: 0.8333,
          previousValue: 0.5,
          delta: 0.3333,
          suppressedReason: null,
          numerator: 5,
          denominator: 6,
          interval: null,
          intervalReason: 'too_few_prompts',
          significance: 'within_noise',
        },
        avgRank: {
          value: 1,
          previousValue: 3,
          delta: -2,
          suppressedReason: null,
          numerator: 3,
          denominator: 3,
          interval: null,
          intervalReason: 'too_few_prompts',
          significance: 'within_noise',
        },
        sentiment: {
          positive: 3,
          neutral: 2,
          negative: 0,
          previous: { positive: 0, neutral: 0, negative: 2 },
        },
      });
    });

    it('counts failed captures in coverage, never as "not mentioned"', () => {
      assert.deepEqual(body.coverage, {
        observationMethodology: 'sample_v1',
        comparableFrom: '2026-02-01T10:00:00.000Z',
        usableSampleCount: 3,
        legacyFallbackCount: 0,
        excludedMethodologyCount: 0,
        excludedErrorCount: 1,
        excludedEmptyCount: 1,
        excludedNoResultCount: 1,
        unreconstructableLegacyAnswerCount: 0,
        sampleWeightTotal: 6,
        promptCoverageCount: 2,
      });
    });

    it('splits score and mention rate by model and by surface', () => {
      // chatgpt: P1 (w3, value 1) + P2 (w2, unranked 0.5): 100·(3 + 1)/5 = 80, rate 5/5.
      // gemini: P1 (w1, value 0): 0. api: chatgpt P1 + gemini P1: 100·3/4 = 75, rate 3/4.
      // ui_scrape: P2 (w2, 0.5): 50, rate 1. One or two prompts each: no interval.
      assert.deepEqual(body.platforms, {
        scope: 'historical_observation',
        label: 'Last 30 days',
        apiPlatforms: [
          {
            model: 'chatgpt',
            modelLabel: 'ChatGPT',
            score: 80,
            mentionRate: 1,
            mentionRateInterval: null,
            mentionRateIntervalReason: 'too_few_prompts',
            totalAnswers: 2,
            totalSamples: 5,
          },
          {
            model: 'gemini',
            modelLabel: 'Gemini',
            score: 0,
            mentionRate: 0,
            mentionRateInterval: null,
            mentionRateIntervalReason: 'too_few_prompts',
            totalAnswers: 1,
            totalSamples: 1,
          },
        ],
        surfacePlatforms: [
          {
            surface: 'api',
            surfaceLabel: 'API',
            score: 75,
            mentionRate: 0.75,
            mentionRateInterval: null,
            mentionRateIntervalReason: 'too_few_prompts',
            totalAnswers: 2,
            totalSamples: 4,
          },
          {
            surface: 'ui_scrape',
            surfaceLabel: 'Web app',
            score: 50,
            mentionRate: 1,
            mentionRateInterval: null,
            mentionRateIntervalReason: 'too_few_prompts',
            totalAnswers: 1,
            totalSamples: 2,
          },
        ],
      });
    });

    it('shares voice between the brand and the competitors mentioned', () => {
      // Mentions now: brand 3 + 2 = 5, Globex 3 + 1 = 4 (total 9); before: brand 2, Globex 2,
      // Initech 2 + 2 = 4 (total 8). Brand: 5/9 = 0.5556, before 2/8 = 0.25, delta 0.3056.
      // Globex: 4/9 = 0.4444, before 0.25, delta 0.1944; rank (3·2 + 1·1)/4 = 1.75; score
      // 100·(3·0.85 + 1·1)/6 = 59.17 → 59.2. Brand score 100·(3·1 + 2·0.5)/6 = 66.7.
      // Sources of answers mentioning each: brand www.example.com, docs.example.com, example.com →
      // example.com 3; Globex: example.com 2, other.org 1. Initech is not mentioned now.
      // Two prompts: no interval, every change within the noise.
      assert.deepEqual(body.shareOfVoice, {
        scope: 'historical_observation',
        label: 'Last 30 days',
        visible: [
          {
            id: String(f.brandId),
            categoryId: null,
            name: 'Acme',
            mentions: 5,
            averageRank: 1,
            score: 66.7,
            isUserBrand: true,
            sourceBreakdown: [{ domain: 'example.com', count: 3 }],
            share: 0.5556,
            previousShare: 0.25,
            shareDelta: 0.3056,
            shareDeltaSuppressedReason: null,
            shareDeltaSignificance: 'within_noise',
            interval: null,
            intervalReason: 'too_few_prompts',
          },
          {
            id: body.shareOfVoice.visible[1]?.id ?? '',
            categoryId: body.shareOfVoice.visible[1]?.categoryId ?? null,
            name: 'Globex',
            mentions: 4,
            averageRank: 1.75,
            score: 59.2,
            isUserBrand: false,
            sourceBreakdown: [
              { domain: 'example.com', count: 2 },
              { domain: 'other.org', count: 1 },
            ],
            share: 0.4444,
            previousShare: 0.25,
            shareDelta: 0.1944,
            shareDeltaSuppressedReason: null,
            shareDeltaSignificance: 'within_noise',
            interval: null,
            intervalReason: 'too_few_prompts',
          },
        ],
        hidden: [],
      });
    });

    it('keeps the brand score a mean of prompt scores (docs/methodology.md, worked example)', async () => {
      // 1 March run: P1 = 100·(3·1 + 1·0)/4 = 75, P2 = 100·(2·0.5)/2 = 50 → (75 + 50)/2 = 62.5.
      assert.equal((await get(`/api/brands/${f.brandId}/`)).averageScore, 62.5);
    });

    it('counts nothing of an archived category, asked for by itself', async () => {
      // Its one run (2 March, in the window) has a prompt answered with w4, mentioned, citing
      // excluded.net; a prompt of an archived category is never eligible, so nothing is counted.
      const own = (await get(`/api/categories/${archived}/analytics/`)) as Static<typeof Analytics>;
      assert.equal(own.metrics.sampleCount, 0);
      assert.equal(own.metrics.mentionRate.numerator, 0);
      assert.equal(own.coverage.usableSampleCount, 0);
      assert.deepEqual(own.sources, { totalDomains: 0, totalCitations: 0, items: [] });
    });

    it('folds www. and subdomains into registrable domains', () => {
      // example.com: www.example.com/a, docs.example.com/b, example.com/a = 3 citations, 3 URLs;
      // other.org 1 (news.other.org). 4 citations: 0.75 and 0.25. Before: other.org 1 of 1.
      // Cited in two prompts (P1 both, P2 example.com): no interval.
      assert.deepEqual(body.sources, {
        totalDomains: 2,
        totalCitations: 4,
        items: [
          {
            domain: 'example.com',
            count: 3,
            share: 0.75,
            previousShare: 0,
            shareDelta: 0.75,
            shareDeltaSuppressedReason: null,
            shareDeltaSignificance: 'within_noise',
            urlCount: 3,
            interval: null,
            intervalReason: 'too_few_prompts',
          },
          {
            domain: 'other.org',
            count: 1,
            share: 0.25,
            previousShare: 1,
            shareDelta: -0.75,
            shareDeltaSuppressedReason: null,
            shareDeltaSignificance: 'within_noise',
            urlCount: 1,
            interval: null,
            intervalReason: 'too_few_prompts',
          },
        ],
      });
    });
  });

  describe('legacy data', () => {
    let t: Awaited<ReturnType<typeof tenant>>;
    let p1: number;
    let p2: number;

    before(async () => {
      t = await tenant('legacy');
      const f = t.fixture;
      const category = await f.category();
      [p1, p2] = [await f.prompt(category), await f.prompt(category)];
      // Legacy run in the previous window: P1 usable (mention data), P2 unreconstructable.
      await f.run({
        category,
        legacy: true,
        finishedAt: '2026-02-01T10:00:00.000Z',
        answers: [
          { prompt: p1, mentioned: true, rank: 1 },
          { prompt: p2, mentioned: true, hasMentionData: false },
        ],
      });
      // Current window: a legacy run on 20 February, then the first sample_v1 run on 1 March.
      await f.run({
        category,
        legacy: true,
        finishedAt: '2026-02-20T10:00:00.000Z',
        answers: [
          { prompt: p1, mentioned: true, rank: 2 },
          { prompt: p2, weight: 2, mentioned: true },
        ],
      });
      await f.run({ category, finishedAt: '2026-03-01T10:00:00.000Z', answers: [{ prompt: p1 }] });
    });

    it('falls back to legacy answers only for prompts without sample_v1 data in the window', async () => {
      const body = await t.get(`/api/brands/${t.fixture.brandId}/analytics/`);
      // Now: P1 has sample_v1 data (1 March), so its legacy answer of 20 February is excluded for
      // methodology; P2 has none, so its legacy answer (w2, mentioned) stands in. Usable: P1 (w1,
      // not mentioned) + P2 (w2, mentioned) → 2/3. Before: P1 legacy (w1, mentioned) → 1/1; P2's
      // legacy answer has no mention data. Both sides rest on legacy answers: delta 0.6667 − 1.
      assert.deepEqual(body.coverage, {
        observationMethodology: 'sample_v1',
        comparableFrom: '2026-03-01T10:00:00.000Z',
        usableSampleCount: 2,
        legacyFallbackCount: 1,
        excludedMethodologyCount: 1,
        excludedErrorCount: 0,
        excludedEmptyCount: 0,
        excludedNoResultCount: 0,
        unreconstructableLegacyAnswerCount: 0,
        sampleWeightTotal: 3,
        promptCoverageCount: 2,
      });
      assert.deepEqual(body.metrics.mentionRate, {
        value: 0.6667,
        previousValue: 1,
        delta: -0.3333,
        suppressedReason: null,
        numerator: 2,
        denominator: 3,
        interval: null,
        intervalReason: 'too_few_prompts',
        significance: 'within_noise',
      });
      const previous = await t.get(
        `/api/brands/${t.fixture.brandId}/analytics/?range=custom&start=2026-01-20&end=2026-02-10`,
      );
      assert.equal(previous.coverage.unreconstructableLegacyAnswerCount, 1);
      assert.equal(previous.coverage.legacyFallbackCount, 1);
      assert.equal(previous.coverage.usableSampleCount, 1);
    });

    it('suppresses deltas across the methodology cutover', async () => {
      // Now = 1–10 March: only the sample_v1 run (P1, not mentioned): rate 0, no ranked mention.
      // Before = 19–28 February: the legacy run of 20 February (P1 and P2 fall back): rate 3/3.
      const body = await t.get(
        `/api/brands/${t.fixture.brandId}/analytics/?range=custom&start=2026-03-01&end=2026-03-10`,
      );
      assert.deepEqual(body.window.previous, {
        start: '2026-02-19T00:00:00.000Z',
        end: '2026-03-01T00:00:00.000Z',
      });
      assert.deepEqual(body.metrics.mentionRate, {
        value: 0,
        previousValue: 1,
        delta: null,
        suppressedReason: 'cross_era',
        numerator: 0,
        denominator: 1,
        interval: null,
        intervalReason: 'too_few_prompts',
        significance: null,
      });
      assert.equal(body.metrics.avgRank.suppressedReason, 'no_data');
      assert.equal(body.coverage.legacyFallbackCount, 0);
      assert.equal(body.shareOfVoice.visible[0].shareDeltaSuppressedReason, 'no_data');
    });

    it('has no previous window for all, so every delta is no_prior', async () => {
      const body = await t.get(`/api/brands/${t.fixture.brandId}/analytics/?range=all`);
      assert.equal(body.window.start, '2026-02-01T10:00:00.000Z');
      assert.equal(body.window.previous, null);
      assert.equal(body.metrics.mentionRate.suppressedReason, 'no_prior');
      assert.equal(body.metrics.sentiment.previous, null);
    });
  });

  describe('share of voice tail and competitors tracked in several categories', () => {
    let t: Awaited<ReturnType<typeof tenant>>;
    let first: number;
    let globexA: number;

    before(async () => {
      t = await tenant('voices');
      const f = t.fixture;
      first = await f.category('First');
      const second = await f.category('Second');
      const [pa, pb] = [await f.prompt(first), await f.prompt(second)];
      // Twelve competitors mentioned 1..12 times (one answer each, weight = its count).
      const answers = [];
      for (let n = 1; n <= 12; n++) {
        const id = await f.competitor(first, `K${String(n).padStart(2, '0')}`);
        answers.push({ prompt: pa, weight: n, mentions: [{ competitor: id, rank: null }] });
      }
      globexA = await f.competitor(first, 'Globex', { canonicalKey: 'globex' });
      const globexB = await f.competitor(second, 'Globex Corp', { canonicalKey: 'globex' });
      answers.push({ prompt: pa, weight: 20, mentions: [{ competitor: globexA, rank: 1 }] });
      await f.run({ category: first, finishedAt: '2026-03-01T10:00:00.000Z', answers });
      await f.run({
        category: second,
        finishedAt: '2026-03-01T11:00:00.000Z',
        answers: [{ prompt: pb, weight: 5, mentions: [{ competitor: globexB, rank: 2 }] }],
      });
    });

    it('shows the brand and the ten most mentioned competitors, and hides the rest', async () => {
      const body = await t.get(`/api/brands/${t.fixture.brandId}/analytics/`);
      const { visible, hidden } = body.shareOfVoice;
      // Mentions: Globex 20 + 5 = 25 (one entity at brand scope), K12..K01 = 12..1 (78), brand 0.
      // Total 103. Visible: Globex, K12..K04 (ten competitors), and the brand (0, sorted last).
      assert.deepEqual(
        visible.map((v: { name: string; mentions: number }) => [v.name, v.mentions]),
        [
          ['Globex', 25],
          ['K12', 12],
          ['K11', 11],
          ['K10', 10],
          ['K09', 9],
          ['K08', 8],
          ['K07', 7],
          ['K06', 6],
          ['K05', 5],
          ['K04', 4],
          ['Acme', 0],
        ],
      );
      assert.deepEqual(
        hidden.map((v: { name: string; share: number }) => [v.name, v.share]),
        [
          ['K03', 0.0291], // 3/103
          ['K02', 0.0194], // 2/103
          ['K01', 0.0097], // 1/103
        ],
      );
      // Globex: 25/103 = 0.2427; rank (20·1 + 5·2)/25 = 1.2; tracked in two categories.
      assert.deepEqual(
        [visible[0].id, visible[0].categoryId, visible[0].share, visible[0].averageRank],
        [String(globexA), null, 0.2427, 1.2],
      );
      assert.deepEqual([visible[10].share, visible[10].shareDeltaSuppressedReason], [0, 'no_prior']);
    });

    it('names such a competitor by its lowest id whichever of its categories the window mentions it in', async () => {
      const t = await tenant('voices-window');
      const f = t.fixture;
      const [one, two] = [await f.category('One'), await f.category('Two')];
      const [p1, p2] = [await f.prompt(one), await f.prompt(two)];
      const initechA = await f.competitor(one, 'Initech', { canonicalKey: 'initech' });
      const initechB = await f.competitor(two, 'Initech Corp', { canonicalKey: 'initech' });
      await f.run({
        category: one,
        finishedAt: '2026-02-01T10:00:00.000Z',
        answers: [{ prompt: p1, mentions: [{ competitor: initechA, rank: 1 }] }],
      });
      await f.run({
        category: two,
        finishedAt: '2026-03-12T10:00:00.000Z',
        answers: [{ prompt: p2, mentions: [{ competitor: initechB, rank: 1 }] }],
      });
      // 7 days: only the second category's mention; 90 days: both.
      for (const [range, mentions] of [
        ['7d', 1],
        ['90d', 2],
      ] as const) {
        const body = await t.get(`/api/brands/${f.brandId}/analytics/?range=${range}`);
        const entry = body.shareOfVoice.visible.find((v: { isUserBrand: boolean }) => !v.isUserBrand);
        assert.deepEqual(
          [entry.id, entry.categoryId, entry.name, entry.mentions],
          [String(initechA), null, 'Initech', mentions],
          range,
        );
      }
    });

    it('counts only live categories as tracking a competitor: an archived one tracks it no more', async () => {
      const t = await tenant('voices-archived');
      const f = t.fixture;
      const old = await f.category('Old', { archived: true });
      const live = await f.category('Live');
      const umbrellaOld = await f.competitor(old, 'Umbrella', { canonicalKey: 'umbrella' });
      const umbrella = await f.competitor(live, 'Umbrella Corp', { canonicalKey: 'umbrella' });
      assert.ok(umbrellaOld < umbrella);
      await f.run({
        category: live,
        finishedAt: '2026-03-12T10:00:00.000Z',
        answers: [{ prompt: await f.prompt(live), mentions: [{ competitor: umbrella, rank: 1 }] }],
      });
      const body = await t.get(`/api/brands/${f.brandId}/analytics/`);
      const entry = body.shareOfVoice.visible.find((v: { isUserBrand: boolean }) => !v.isUserBrand);
      assert.deepEqual(
        [entry.id, entry.categoryId, entry.name],
        [String(umbrella), String(live), 'Umbrella Corp'],
      );
    });

    it('keeps to the category’s own prompts at category scope', async () => {
      const body = await t.get(`/api/categories/${first}/analytics/`);
      const globex = body.shareOfVoice.visible[0];
      // Only the first category's answers: Globex 20 of 20 + 78 = 98 → 0.2041.
      assert.deepEqual(
        [globex.name, globex.mentions, globex.categoryId, globex.share],
        ['Globex', 20, String(first), 0.2041],
      );
      assert.equal(body.shareOfVoice.visible.at(-1).categoryId, String(first));
    });
  });

  it('folds citations into registrable domains, public-suffix aware', async () => {
    const t = await tenant('domains');
    const category = await t.fixture.category();
    const prompt = await t.fixture.prompt(category);
    await t.fixture.run({
      category,
      finishedAt: '2026-03-01T10:00:00.000Z',
      answers: [
        {
          prompt,
          citations: ['https://www.bbc.co.uk/news', 'https://bbc.co.uk/sport', 'https://WWW.Example.COM/A'],
        },
        {
          prompt,
          model: 'gemini',
          citations: ['https://alice.github.io/post', 'https://www.bbc.co.uk/news'],
        },
      ],
    });
    const body = await t.get(`/api/brands/${t.fixture.brandId}/analytics/`);
    // bbc.co.uk: 3 citations of 2 URLs; github.io (alice.github.io under the ICANN suffix list)
    // and example.com 1 each. 5 citations in all.
    assert.deepEqual(
      body.sources.items.map((i: { domain: string; count: number; urlCount: number; share: number }) => [
        i.domain,
        i.count,
        i.urlCount,
        i.share,
      ]),
      [
        ['bbc.co.uk', 3, 2, 0.6],
        ['example.com', 1, 1, 0.2],
        ['github.io', 1, 1, 0.2],
      ],
    );
  });

  it('reads a custom range on the organization’s clock across a daylight-saving change', async () => {
    // New York springs forward on 2026-03-08 (UTC−5 → UTC−4): that day runs from 05:00Z to
    // 04:00Z the next day (23 hours). Runs one minute either side of each edge, weights 1, 2, 4, 8:
    // only the two inside count → sampleCount 2 + 4 = 6.
    const t = await tenant('new-york', 'America/New_York');
    const category = await t.fixture.category();
    const prompt = await t.fixture.prompt(category);
    const at = [
      ['2026-03-08T04:59:00.000Z', 1],
      ['2026-03-08T05:00:00.000Z', 2],
      ['2026-03-09T03:59:00.000Z', 4],
      ['2026-03-09T04:00:00.000Z', 8],
    ] as const;
    for (const [finishedAt, weight] of at) {
      await t.fixture.run({ category, finishedAt, answers: [{ prompt, weight, mentioned: true }] });
    }
    const body = await t.get(
      `/api/brands/${t.fixture.brandId}/analytics/?range=custom&start=2026-03-08&end=2026-03-08`,
    );
    assert.deepEqual(
      [body.window.start, body.window.end, body.window.timezone, body.window.selection],
      [
        '2026-03-08T05:00:00.000Z',
        '2026-03-09T04:00:00.000Z',
        'America/New_York',
        { kind: 'custom', preset: null, startDate: '2026-03-08', endDate: '2026-03-08' },
      ],
    );
    assert.equal(body.metrics.sampleCount, 6);
    // The day before (7 March, 24 hours of EST): 05:00Z on the 7th to 05:00Z on the 8th holds the
    // run of weight 1.
    assert.deepEqual(body.window.previous, {
      start: '2026-03-07T05:00:00.000Z',
      end: '2026-03-08T05:00:00.000Z',
    });
    assert.equal(body.metrics.mentionRate.previousValue, 1);
  });
});
