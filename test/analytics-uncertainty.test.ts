import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { App } from '../src/http/types.ts';
import { ACME, appWithClock } from './support/analytics.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { type Answer, BrandFixture, insertOrg, mintKey } from './support/fixtures.ts';

// Intervals and significance served by the analytics endpoints (methodology.md "Uncertainty"),
// worked out by hand from purpose-built fixtures. "Now" is 2026-03-15T12:00Z: the default 30-day
// window is [2026-02-13T12:00Z, 2026-03-15T12:00Z), its comparison window the 30 days before.
//
// Constants used by hand below (printed tables):
//   z = Φ⁻¹(0.975) = 1.959964, z² = 3.841459
//   t(0.975) with 2, 3, 19 df = 4.302653, 3.182446, 2.093024
//   df factor c = (z / t)²: 2 df → 0.207503, 3 df → 0.379292, 19 df → 0.876895
//   Wilson at p = 1 with effective n: low n / (n + z²), high 1 (mirror image at p = 0).

const NOW = '2026-03-15T12:00:00.000Z';
const CURRENT = '2026-03-01T10:00:00.000Z';
const PREVIOUS = '2026-02-01T10:00:00.000Z';

describe('analytics intervals and significance', () => {
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

  async function tenant(slug: string) {
    const orgId = await insertOrg(ctx.dbs.primary, slug, { timezone: 'UTC' });
    const key = await mintKey(ctx.dbs.primary, orgId);
    const fixture = await BrandFixture.insert(ctx.dbs.primary, orgId, ACME);
    const category = await fixture.category();
    const prompts = async (n: number) => {
      const ids: number[] = [];
      for (let i = 0; i < n; i++) ids.push(await fixture.prompt(category));
      return ids;
    };
    const run = (finishedAt: string, answers: Answer[]) => fixture.run({ category, finishedAt, answers });
    const get = async (path: string) => {
      const res = await app.inject({ url: `/api/brands/${fixture.brandId}/${path}`, headers: bearer(key) });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    const analytics = () => get('analytics/');
    /** The brand's windowed score delta and its one category's (category deltas) have these fields. */
    const windowedDeltasHave = async (expected: Record<string, unknown>) => {
      const [history, categories] = await Promise.all([get('score-history/'), get('category-deltas/')]);
      for (const delta of [history.windowedDelta, categories.deltas[String(category)]]) {
        const served = Object.fromEntries(Object.keys(expected).map((field) => [field, delta[field]]));
        assert.deepEqual(served, expected);
      }
    };
    return { fixture, category, prompts, run, analytics, windowedDeltasHave };
  }

  /** One prompt's answers: `mentioned` of `weight` samples name the brand (at `rank`), the rest not. */
  const split = (prompt: number, mentioned: number, weight: number, rank?: number): Answer[] => [
    { prompt, weight: mentioned, mentioned: true, rank: rank ?? null },
    { prompt, weight: weight - mentioned },
  ];

  it('serves the mention rate and average rank intervals over prompts (methodology example)', async () => {
    const t = await tenant('worked-example');
    const [p1, p2, p3, p4] = (await t.prompts(4)) as [number, number, number, number];
    await t.run(CURRENT, [
      ...split(p1, 8, 10, 1),
      ...split(p2, 6, 10, 2),
      ...split(p3, 2, 10, 1),
      ...split(p4, 4, 10, 3),
    ]);
    const { metrics } = await t.analytics();
    // Mention rate 20 / 40 = 0.5. Residuals 8−5, 6−5, 2−5, 4−5 = 3, 1, −3, −1; squares 20.
    // Cluster variance (4/3)·20 / 40² = 0.016667 over the binomial 0.25 / 40 = 0.00625: design
    // effect 2.6667, effective 40 / 2.6667 = 15 × 0.379292 = 5.68938. Half-width at ½:
    // 1.959964 / (2·√(5.68938 + 3.841459)) = 0.317433 → 0.182567 … 0.817433, outward 0.1825 … 0.8175.
    // No previous window data: the delta is suppressed (no_prior), so no significance.
    assert.deepEqual(
      [metrics.mentionRate.value, metrics.mentionRate.interval, metrics.mentionRate.intervalReason],
      [0.5, { low: 0.1825, high: 0.8175 }, null],
    );
    assert.deepEqual(
      [metrics.mentionRate.suppressedReason, metrics.mentionRate.significance],
      ['no_prior', null],
    );
    // Average rank: Σ w·rank = 8·1 + 6·2 + 2·1 + 4·3 = 34 over 20 → 1.7. Residuals
    // 8 − 1.7·8 = −5.6, 12 − 1.7·6 = 1.8, 2 − 1.7·2 = −1.4, 12 − 1.7·4 = 5.2; squares
    // 31.36 + 3.24 + 1.96 + 27.04 = 63.6. Variance (4/3)·63.6 / 20² = 0.212, √ = 0.460435;
    // half-width t(3)·0.460435 = 3.182446·0.460435 = 1.465308: 0.234692 … 3.165308, never below
    // rank 1 → 1 … 3.17 (high rounded up).
    assert.deepEqual(
      [metrics.avgRank.value, metrics.avgRank.interval, metrics.avgRank.intervalReason],
      [1.7, { low: 1, high: 3.17 }, null],
    );
  });

  it('serves share-of-voice, source and platform intervals over prompts', async () => {
    const t = await tenant('shares');
    const globex = await t.fixture.competitor(t.category, 'Globex');
    const ps = await t.prompts(3);
    // Prompt n (1, 2, 3): one answer of weight n naming the brand and Globex, citing n URLs of
    // a.com and n of b.com.
    const urls = (n: number) =>
      Array.from({ length: n }, (_, i) => [`https://a.com/${i}`, `https://b.com/${i}`]).flat();
    await t.run(
      CURRENT,
      ps.map((prompt, i) => ({
        prompt,
        weight: i + 1,
        mentioned: true,
        mentions: [{ competitor: globex, rank: null }],
        citations: urls(i + 1),
      })),
    );
    const body = await t.analytics();
    // Brand and Globex each hold 1 of 2, 2 of 4, 3 of 6 mentions per prompt: 6 / 12 = 0.5, every
    // residual 0, so the design effect is floored at 1: effective 12 × 0.207503 = 2.49004.
    // Half-width 1.959964 / (2·√(2.49004 + 3.841459)) = 0.389461: 0.110539 … 0.889461 →
    // 0.1105 … 0.8895. a.com and b.com: 1 of 2, 2 of 4, 3 of 6 citations, the same figures.
    const band = { share: 0.5, interval: { low: 0.1105, high: 0.8895 }, intervalReason: null };
    for (const e of body.shareOfVoice.visible) {
      assert.deepEqual(
        { share: e.share, interval: e.interval, intervalReason: e.intervalReason },
        band,
        e.name,
      );
    }
    for (const s of body.sources.items) {
      assert.deepEqual(
        { share: s.share, interval: s.interval, intervalReason: s.intervalReason },
        band,
        s.domain,
      );
    }
    // One engine, every answer mentions the brand: samples 1 + 2 + 3, so 6 / 6 = 1, where the data
    // show no spread and the assumed correlation stands in: design effect 1 + (6/3 − 1)·0.3 = 1.3,
    // effective 6 / 1.3 = 4.615385 × 0.207503 = 0.957705; Wilson low 0.957705 / (0.957705 +
    // 3.841459) = 0.199556 → 0.1995 … 1.
    const [engine] = body.platforms.apiPlatforms;
    assert.deepEqual(
      [engine.mentionRate, engine.mentionRateInterval, engine.mentionRateIntervalReason],
      [1, { low: 0.1995, high: 1 }, null],
    );
  });

  it('gives no interval when fewer prompts than the minimum have data, however many samples', async () => {
    const t = await tenant('two-prompts');
    const [p1, p2] = (await t.prompts(2)) as [number, number];
    await t.run(PREVIOUS, [...split(p1, 10, 50, 1), ...split(p2, 10, 50, 1)]);
    await t.run(CURRENT, [...split(p1, 40, 50, 1), ...split(p2, 40, 50, 1)]);
    const { metrics, platforms } = await t.analytics();
    // 100 samples, but from 2 prompts (the minimum is 3): 80 / 100 against 20 / 100 is a delta of
    // 0.6 that cannot be told from the noise without an interval on either side.
    assert.deepEqual(
      [metrics.mentionRate.value, metrics.mentionRate.delta, metrics.mentionRate.interval],
      [0.8, 0.6, null],
    );
    assert.equal(metrics.mentionRate.intervalReason, 'too_few_prompts');
    assert.equal(metrics.mentionRate.significance, 'within_noise');
    // Every prompt ranks the brand 1: too few prompts is checked first.
    assert.equal(metrics.avgRank.intervalReason, 'too_few_prompts');
    assert.equal(platforms.apiPlatforms[0].mentionRateIntervalReason, 'too_few_prompts');
  });

  it('counts the prompts of the usable rows only: eligible ones, legacy answers only as a fallback', async () => {
    const t = await tenant('eligible-clusters');
    const [p1, p2, p3] = (await t.prompts(3)) as [number, number, number];
    const unmonitored = await t.fixture.prompt(t.category, { monitored: false });
    // A legacy run: P3 has no sample_v1 answer in the window, so its legacy answer stands in; P1's
    // (not mentioned) is excluded for methodology.
    await t.fixture.run({
      category: t.category,
      legacy: true,
      finishedAt: '2026-02-20T10:00:00.000Z',
      answers: [
        { prompt: p1, weight: 2 },
        { prompt: p3, weight: 2, mentioned: true },
      ],
    });
    await t.run(CURRENT, [
      { prompt: p1, weight: 2, mentioned: true },
      { prompt: p2, weight: 2, mentioned: true },
      { prompt: unmonitored, weight: 2 },
    ]);
    const { metrics, coverage } = await t.analytics();
    // Usable: P1 and P2 (sample_v1) and P3 (legacy fallback), 2 samples each, all mentioned: 6 / 6
    // = 1 over 3 prompts (the unmonitored prompt's and P1's legacy answers, not mentioned, would
    // have lowered it). As in the platform case above: 0.1995 … 1.
    assert.equal(coverage.legacyFallbackCount, 1);
    assert.deepEqual(
      [metrics.mentionRate.value, metrics.mentionRate.interval, metrics.mentionRate.intervalReason],
      [1, { low: 0.1995, high: 1 }, null],
    );
  });

  it('calls a large-looking change on few samples within the noise', async () => {
    const t = await tenant('few-samples');
    const ps = await t.prompts(3);
    await t.run(
      PREVIOUS,
      ps.map((prompt) => ({ prompt, weight: 2 })),
    );
    await t.run(
      CURRENT,
      ps.map((prompt) => ({ prompt, weight: 2, mentioned: true })),
    );
    const { metrics } = await t.analytics();
    // 3 prompts × 2 samples, from 0 % to 100 %: a delta of 1. At 100 % the assumed correlation
    // stands in: design effect 1 + (6/3 − 1)·0.3 = 1.3, effective 6 / 1.3 = 4.615385 × 0.207503
    // = 0.957705; low 0.957705 / (0.957705 + 3.841459) = 0.199556 → 0.1995 … 1. Before (0 %):
    // 0 … 0.800444. The difference's low end 1 − √((1 − 0.199556)² + (0.800444 − 0)²)
    // = 1 − 0.800444·√2 = −0.132 < 0.
    assert.deepEqual(
      [metrics.mentionRate.value, metrics.mentionRate.previousValue, metrics.mentionRate.delta],
      [1, 0, 1],
    );
    assert.deepEqual(metrics.mentionRate.interval, { low: 0.1995, high: 1 });
    assert.equal(metrics.mentionRate.significance, 'within_noise');
  });

  it('calls a modest change on many samples moved', async () => {
    const t = await tenant('many-samples');
    const ps = await t.prompts(20);
    // 20 prompts × 50 samples. Before: 10 prompts at 27/50 and 10 at 18/50 (450 / 1000 = 0.45);
    // now 32/50 and 23/50 (550 / 1000 = 0.55).
    await t.run(
      PREVIOUS,
      ps.flatMap((prompt, i) => split(prompt, i < 10 ? 27 : 18, 50)),
    );
    await t.run(
      CURRENT,
      ps.flatMap((prompt, i) => split(prompt, i < 10 ? 32 : 23, 50)),
    );
    const { metrics } = await t.analytics();
    // Now: residuals ±4.5, squares 20 × 20.25 = 405; variance (20/19)·405 / 1000² = 0.00042632
    // over the binomial 0.55·0.45 / 1000 = 0.0002475: design effect 1.722488, effective
    // 1000 / 1.722488 = 580.5556 × 0.876895 = 509.0864. Wilson: z²/n = 0.0075458; centre
    // (0.55 + 0.0037729) / 1.0075458 = 0.549626; half (1.959964 / 1.0075458)·√(0.2475 / 509.0864
    // + 3.841459 / (4·509.0864²)) = 1.945285·0.022133 = 0.043055: 0.506571 … 0.592681 →
    // 0.5065 … 0.5927. Before, the mirror image: 0.407319 … 0.493429.
    // Difference 0.1; its low end 0.1 − √((0.55 − 0.506571)² + (0.493429 − 0.45)²)
    // = 0.1 − 0.043429·√2 = 0.1 − 0.061418 = 0.0386 > 0.
    assert.deepEqual(
      [metrics.mentionRate.value, metrics.mentionRate.previousValue, metrics.mentionRate.delta],
      [0.55, 0.45, 0.1],
    );
    assert.deepEqual(metrics.mentionRate.interval, { low: 0.5065, high: 0.5927 });
    assert.equal(metrics.mentionRate.significance, 'moved');
  });

  // The windowed score delta (score history and category deltas): the latest score is a mean of
  // prompt scores, so its interval is the prompt-mean one (binomial reference trials
  // k² / Σ 1/samples); significance compares it with the boundary score's the same way.
  // Prompt scores: rank 1 → 100, rank 4 → 55, rank 5 → 40, mentioned without rank → 50, not
  // mentioned → 0.

  it('calls a large-looking score change on few prompts within the noise', async () => {
    const t = await tenant('score-few-prompts');
    const [p1, p2, p3] = (await t.prompts(3)) as [number, number, number];
    // Boundary (before 13 February 12:00): 0, 0, 50 → 16.7; now 100, 100, 50 → 83.3. Two samples each.
    await t.run(PREVIOUS, [
      { prompt: p1, weight: 2 },
      { prompt: p2, weight: 2 },
      { prompt: p3, weight: 2, mentioned: true },
    ]);
    await t.run(CURRENT, [
      { prompt: p1, weight: 2, mentioned: true, rank: 1 },
      { prompt: p2, weight: 2, mentioned: true, rank: 1 },
      { prompt: p3, weight: 2, mentioned: true },
    ]);
    // Now: values 1, 1, 0.5, mean 0.833333; deviations 0.166667, 0.166667, −0.333333, squares
    // 0.166667; cluster variance (3/2)·0.166667 / 3² = 0.027778. Trials 3² / (3 × ½) = 6, binomial
    // 0.833333·0.166667 / 6 = 0.023148: design effect 1.2, effective 6 / 1.2 × 0.207503 = 1.037513.
    // Wilson: z²/n = 3.702564, centre (0.833333 + 1.851282) / 4.702564 = 0.570883, half
    // (1.959964 / 4.702564)·√(0.138889 / 1.037513 + 3.841459 / (4·1.037513²)) = 0.416785·
    // √(0.133867 + 0.892172) = 0.422178: 0.148705 … 0.993061 → 14.8 … 99.4.
    // Before: 0, 0, 0.5, the mirror image: 0.006939 … 0.851295. The difference 0.666667, its low
    // end 0.666667 − √((0.833333 − 0.148705)² + (0.851295 − 0.166667)²) = 0.666667 − 0.968210 < 0.
    await t.windowedDeltasHave({
      latestScore: 83.3,
      boundaryScore: 16.7,
      delta: 66.7,
      suppressedReason: null,
      latestScoreInterval: { low: 14.8, high: 99.4 },
      latestScoreIntervalReason: null,
      significance: 'within_noise',
    });
  });

  it('calls a modest score change on many prompts moved', async () => {
    const t = await tenant('score-many-prompts');
    const ps = await t.prompts(20);
    // 20 prompts × 50 samples. Boundary: 10 prompts at 50 and 10 at 40 → 45; now all at 55.
    await t.run(
      PREVIOUS,
      ps.map((prompt, i) => ({ prompt, weight: 50, mentioned: true, rank: i < 10 ? null : 5 })),
    );
    await t.run(
      CURRENT,
      ps.map((prompt) => ({ prompt, weight: 50, mentioned: true, rank: 4 })),
    );
    // Trials 20² / (20 × 1/50) = 1000; t with 19 df gives the df factor 0.876895.
    // Now: no spread, so the design effect is its floor 1: effective 1000 × 0.876895 = 876.8953.
    // Wilson: z²/n = 0.0043807, centre (0.55 + 0.0021904) / 1.0043807 = 0.549782, half
    // (1.959964 / 1.0043807)·√(0.2475 / 876.8953 + 3.841459 / (4·876.8953²)) = 1.951415·
    // √(0.00028225 + 0.00000125) = 0.032857: 0.516925 … 0.582638 → 51.6 … 58.3.
    // Before: deviations ±0.05, variance (20/19)·20·0.0025 / 20² = 0.00013158 under the binomial
    // 0.45·0.55 / 1000 = 0.0002475: design effect 1 again, the mirror image 0.417362 … 0.483075.
    // The difference 0.1, its low end 0.1 − √((0.55 − 0.516925)² + (0.483075 − 0.45)²)
    // = 0.1 − 0.033075·√2 = 0.1 − 0.046775 = 0.0532 > 0.
    await t.windowedDeltasHave({
      latestScore: 55,
      boundaryScore: 45,
      delta: 10,
      suppressedReason: null,
      latestScoreInterval: { low: 51.6, high: 58.3 },
      latestScoreIntervalReason: null,
      significance: 'moved',
    });
  });
});
