import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { refreshRunAggregates } from '../src/analytics/refresh.ts';
import type { App } from '../src/http/types.ts';
import { ACME, appWithClock } from './support/analytics.ts';
import { bearer, createTestContext, type TestContext } from './support/context.ts';
import { BrandFixture, insertOrg, mintKey } from './support/fixtures.ts';

// Score history, category deltas and the prompt change feed over the API, worked out by hand.
// Now = 2026-03-15T12:00Z; the default window starts 2026-02-13T12:00Z.
//
// Prompt scores per run (chatgpt, one answer each): rank 1 → 100, rank 2 → 85, rank 3 → 70,
// mentioned without rank → 50, not mentioned → 0.
//   R1 A 1 Feb:  P1 100, P2 0        brand (P1,P2,P3) 50          category A 50
//   R2 B 10 Feb: P3 50               (100 + 0 + 50)/3 = 50        category B 50
//   R3 A 20 Feb: P1 85, P2 70        (85 + 70 + 50)/3 = 68.33     A (85 + 70)/2 = 77.5
//   R4 B 1 Mar:  P3 100              (85 + 70 + 100)/3 = 85       B 100
//   R5 A 10 Mar: P1 0                (0 + 70 + 100)/3 = 56.67     A (0 + 70)/2 = 35
// plus R6 in an archived category (never counted), and a live category D without runs.

describe('score history, category deltas and prompt changes', () => {
  let ctx: TestContext;
  let app: App;
  let f: BrandFixture;
  let key: string;
  const runs: Record<string, number> = {};
  const categories: Record<string, number> = {};
  let p1: number;

  before(async () => {
    ctx = await createTestContext();
    ({ app } = await appWithClock(ctx, '2026-03-15T12:00:00.000Z'));
    const orgId = await insertOrg(ctx.dbs.primary, 'acme');
    key = await mintKey(ctx.dbs.primary, orgId);
    f = await BrandFixture.insert(ctx.dbs.primary, orgId, ACME);
    for (const name of ['A', 'B', 'D']) categories[name] = await f.category(name);
    categories.C = await f.category('C', { archived: true });
    const [a, b, c] = [categories.A as number, categories.B as number, categories.C as number];
    p1 = await f.prompt(a);
    const [p2, p3, p4] = [await f.prompt(a), await f.prompt(b), await f.prompt(c)];
    const globex = await f.competitor(a, 'Globex');
    runs.R1 = await f.run({
      category: a,
      finishedAt: '2026-02-01T10:00:00.000Z',
      answers: [{ prompt: p1, mentioned: true, rank: 1 }, { prompt: p2 }],
    });
    runs.R2 = await f.run({
      category: b,
      finishedAt: '2026-02-10T10:00:00.000Z',
      answers: [{ prompt: p3, mentioned: true }],
    });
    runs.R3 = await f.run({
      category: a,
      finishedAt: '2026-02-20T10:00:00.000Z',
      answers: [
        {
          prompt: p1,
          mentioned: true,
          rank: 2,
          sentiment: 'positive',
          mentions: [{ competitor: globex, rank: 1 }],
        },
        { prompt: p2, mentioned: true, rank: 3 },
      ],
    });
    runs.R4 = await f.run({
      category: b,
      finishedAt: '2026-03-01T10:00:00.000Z',
      answers: [{ prompt: p3, mentioned: true, rank: 1 }],
    });
    runs.R5 = await f.run({ category: a, finishedAt: '2026-03-10T10:00:00.000Z', answers: [{ prompt: p1 }] });
    runs.R6 = await f.run({
      category: c,
      finishedAt: '2026-03-11T10:00:00.000Z',
      answers: [{ prompt: p4, mentioned: true }],
    });
  });
  after(async () => {
    await app.close();
    await ctx.close();
  });

  async function get(url: string) {
    const res = await app.inject({ url, headers: bearer(key) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }
  // The brand's score as of R5 rests on P1 0, P2 70, P3 100, one sample each (constants: z =
  // 1.959964, z² = 3.841459, t with 2 df 4.302653, df factor (z / t)² = 0.207503). Values 0, 0.7, 1:
  // mean 0.566667, deviations −0.566667, 0.133333, 0.433333, squares 0.526667; cluster variance
  // (3/2)·0.526667 / 3² = 0.087778. Trials 3² / (1 + 1 + 1) = 3, binomial 0.566667·0.433333 / 3 =
  // 0.081852: design effect 1.072398, effective 3 / 1.072398 × 0.207503 = 0.580482. Wilson: z²/n =
  // 6.617705, centre (0.566667 + 3.308853) / 7.617705 = 0.508752, half (1.959964 / 7.617705)·
  // √(0.245556 / 0.580482 + 3.841459 / (4·0.580482²)) = 0.257292·√(0.423021 + 2.850094) = 0.465483:
  // 0.043268 … 0.974235, outward 4.3 … 97.5.
  const LATEST_INTERVAL = { low: 4.3, high: 97.5 };
  /** Fewer than three prompts: no interval, and a change that cannot be told from noise. */
  const fewPrompts = {
    latestScoreInterval: null,
    latestScoreIntervalReason: 'too_few_prompts',
    significance: 'within_noise',
  };

  const point = (run: string, date: string, score: number) => ({
    date: `2026-${date}T10:00:00.000Z`,
    score,
    runId: runs[run],
  });

  it('has one point per scored run in the window and the delta since its start', async () => {
    assert.deepEqual(await get(`/api/brands/${f.brandId}/score-history/`), {
      points: [point('R3', '02-20', 68.3), point('R4', '03-01', 85), point('R5', '03-10', 56.7)],
      // Boundary: as of R2 (the last run before 13 February 12:00) = 50; 56.67 − 50 = 6.67.
      windowedDelta: {
        latestScore: 56.7,
        boundaryScore: 50,
        delta: 6.7,
        asOfRunId: runs.R5,
        spanLabel: '30d',
        suppressedReason: null,
        latestScoreInterval: LATEST_INTERVAL,
        latestScoreIntervalReason: null,
        // Boundary values 1, 0, 0.5 → 0.5: deviations ±0.5, 0, variance (3/2)·0.5 / 9 = 0.083333,
        // the binomial 0.25 / 3 too (design effect 1): effective 3 × 0.207503 = 0.622508; at ½
        // the half-width is 1.959964 / (2·√(0.622508 + 3.841459)) = 0.463829: 0.036171 … 0.963829.
        // The difference 0.066667, its low end 0.066667 − √((0.566667 − 0.043268)² +
        // (0.963829 − 0.5)²) = 0.066667 − 0.699345 < 0.
        significance: 'within_noise',
      },
    });
  });

  it('thins to limit points by time buckets over the series, keeping the latest', async () => {
    // From the first point (R3, 20 Feb 10:00) to the last (R5, 10 Mar 10:00): 432 hours, two
    // buckets of 216. The first, until 1 Mar 10:00, holds R3; R4 at that instant and R5 the second.
    const two = await get(`/api/brands/${f.brandId}/score-history/?limit=2`);
    assert.deepEqual(two.points, [point('R3', '02-20', 68.3), point('R5', '03-10', 56.7)]);
    const one = await get(`/api/brands/${f.brandId}/score-history/?limit=1`);
    assert.deepEqual(one.points, [point('R5', '03-10', 56.7)]);
    // R1 (1 Feb 10:00) to R5 is 888 hours, three buckets of 296: until 13 Feb 18:00 R1, R2 (R2
    // kept); until 26 Feb 02:00 R3; then R4, R5 (R5 kept). Cut over the window instead, one from
    // 2000 on held every point in its last bucket, and one ending a year after R5 in its first:
    // only R5 either way.
    const series = [point('R2', '02-10', 50), point('R3', '02-20', 68.3), point('R5', '03-10', 56.7)];
    const early = await get(`/api/brands/${f.brandId}/score-history/?since=2000-01-01&limit=3`);
    assert.deepEqual(early.points, series);
    const later = await appWithClock(ctx, '2027-03-15T12:00:00.000Z');
    try {
      const res = await later.app.inject({
        url: `/api/brands/${f.brandId}/score-history/?since=2026-01-01&limit=3`,
        headers: bearer(key),
      });
      assert.deepEqual(res.json().points, series);
    } finally {
      await later.app.close();
    }
  });

  it('ignores limit for since=all, and compares with the first scored run', async () => {
    const body = await get(`/api/brands/${f.brandId}/score-history/?since=all&limit=2`);
    assert.deepEqual(body.points, [
      point('R1', '02-01', 50),
      point('R2', '02-10', 50),
      point('R3', '02-20', 68.3),
      point('R4', '03-01', 85),
      point('R5', '03-10', 56.7),
    ]);
    // 56.67 − 50 = 6.67. The first run scored two prompts only: no interval to compare with.
    assert.deepEqual(
      [body.windowedDelta.boundaryScore, body.windowedDelta.delta, body.windowedDelta.spanLabel],
      [50, 6.7, 'all time'],
    );
    assert.deepEqual(
      [body.windowedDelta.latestScoreInterval, body.windowedDelta.significance],
      [LATEST_INTERVAL, 'within_noise'],
    );
  });

  it('agrees with the brand and category scores of their own endpoints', async () => {
    const brand = await get(`/api/brands/${f.brandId}/`);
    const history = await get(`/api/brands/${f.brandId}/score-history/?since=all`);
    assert.equal(brand.averageScore, 56.7);
    assert.equal(history.windowedDelta.latestScore, brand.averageScore);
    const list = await get(`/api/brands/${f.brandId}/categories/`);
    for (const category of list.results) {
      const own = await get(`/api/categories/${category.id}/score-history/?since=all`);
      assert.equal(own.windowedDelta.latestScore, category.averageScore, `category ${category.name}`);
    }
  });

  it('gives a category its own history', async () => {
    const body = await get(`/api/categories/${categories.A}/score-history/?since=all`);
    // Category A: R1 50, R3 77.5, R5 35; 35 − 50 = −15.
    assert.deepEqual(body, {
      points: [point('R1', '02-01', 50), point('R3', '02-20', 77.5), point('R5', '03-10', 35)],
      windowedDelta: {
        latestScore: 35,
        boundaryScore: 50,
        delta: -15,
        asOfRunId: runs.R5,
        spanLabel: 'all time',
        suppressedReason: null,
        ...fewPrompts,
      },
    });
  });

  it('gives every non-archived category a windowed delta', async () => {
    const body = await get(`/api/brands/${f.brandId}/category-deltas/`);
    assert.deepEqual(body.deltas, {
      // A: as of R1 (50) → R5 (35): −15. B: as of R2 (50) → R4 (100): +50. D: nothing scored.
      [String(categories.A)]: {
        latestScore: 35,
        boundaryScore: 50,
        delta: -15,
        asOfRunId: runs.R5,
        spanLabel: '30d',
        suppressedReason: null,
        ...fewPrompts,
      },
      // B: a 50-point rise on one prompt is no evidence of a move.
      [String(categories.B)]: {
        latestScore: 100,
        boundaryScore: 50,
        delta: 50,
        asOfRunId: runs.R4,
        spanLabel: '30d',
        suppressedReason: null,
        ...fewPrompts,
      },
      [String(categories.D)]: {
        latestScore: 0,
        boundaryScore: null,
        delta: null,
        asOfRunId: null,
        spanLabel: '30d',
        suppressedReason: 'no_data',
        latestScoreInterval: null,
        latestScoreIntervalReason: 'no_data',
        significance: null,
      },
    });
    const since = await get(`/api/brands/${f.brandId}/category-deltas/?since=2026-02-25`);
    // A: as of R3 (77.5) → 35: −42.5.
    assert.deepEqual(
      [since.deltas[String(categories.A)].boundaryScore, since.deltas[String(categories.A)].delta],
      [77.5, -42.5],
    );
  });

  it('diffs a prompt’s latest scored run against the one before', async () => {
    // P1: R5 (not mentioned) against R3 (rank 2, positive, Globex named).
    assert.deepEqual(await get(`/api/prompts/${p1}/changes/`), {
      hasBaseline: true,
      comparedToRunId: runs.R3,
      baselineIncomplete: false,
      changes: [
        { kind: 'model_mention', model: 'chatgpt', direction: 'stopped' },
        { kind: 'competitor', name: 'Globex', direction: 'disappeared' },
      ],
    });
  });

  it('gives runs finishing at the instant the window starts their own points', async () => {
    // A brand of its own: P1 in category A, P2 in B. R1 A 1 Feb: P1 0; R2 B 2 Feb: P2 50; then
    // R3 (B: P2 100) and R4 (A: P1 100) both finish at 5 Mar 10:00, R3 first by id. From that
    // instant: as of R3 (0 + 100) / 2 = 50, as of R4 (100 + 100) / 2 = 100. The boundary, as of the
    // last run at or before the start, is R4's 100.
    const g = await BrandFixture.insert(ctx.dbs.primary, f.orgId, {
      name: 'Initech',
      website: 'https://initech.example',
    });
    const [a, b] = [await g.category('A'), await g.category('B')];
    const [q1, q2] = [await g.prompt(a), await g.prompt(b)];
    await g.run({ category: a, finishedAt: '2026-02-01T10:00:00.000Z', answers: [{ prompt: q1 }] });
    await g.run({
      category: b,
      finishedAt: '2026-02-02T10:00:00.000Z',
      answers: [{ prompt: q2, mentioned: true }],
    });
    const at = '2026-03-05T10:00:00.000Z';
    const r3 = await g.run({
      category: b,
      finishedAt: at,
      answers: [{ prompt: q2, mentioned: true, rank: 1 }],
    });
    const r4 = await g.run({
      category: a,
      finishedAt: at,
      answers: [{ prompt: q1, mentioned: true, rank: 1 }],
    });
    assert.ok(r3 < r4);
    const points = [
      { date: at, score: 50, runId: r3 },
      { date: at, score: 100, runId: r4 },
    ];
    // The same points whether the window starts before that instant or at it.
    for (const since of ['2026-03-01', encodeURIComponent(at)]) {
      const history = await get(`/api/brands/${g.brandId}/score-history/?since=${since}`);
      assert.deepEqual(history.points, points, since);
    }
    const atStart = await get(`/api/brands/${g.brandId}/score-history/?since=${encodeURIComponent(at)}`);
    assert.deepEqual(
      [atStart.windowedDelta.boundaryScore, atStart.windowedDelta.latestScore, atStart.windowedDelta.delta],
      [100, 100, 0],
    );
  });

  it('stays correct when a run is unpublished and published again', async () => {
    const unpublish = async (publishedAt: string | null) => {
      await ctx.dbs.primary
        .updateTable('runs')
        .set({ published_at: publishedAt })
        .where('id', '=', runs.R5 as number)
        .execute();
      await refreshRunAggregates(ctx.dbs.primary, f.orgId, runs.R5 as number);
    };
    const before = await get(`/api/brands/${f.brandId}/analytics/`);
    await unpublish(null);
    const history = await get(`/api/brands/${f.brandId}/score-history/`);
    // Without R5 the latest score is as of R4: 85; R5's answer leaves the window's 3 samples
    // (R3 × 2, R4 × 1; R5 × 1 before).
    assert.deepEqual([history.windowedDelta.latestScore, history.windowedDelta.asOfRunId], [85, runs.R4]);
    assert.equal(before.metrics.sampleCount, 4);
    assert.equal((await get(`/api/brands/${f.brandId}/analytics/`)).metrics.sampleCount, 3);
    assert.equal((await get(`/api/prompts/${p1}/changes/`)).comparedToRunId, runs.R1);
    await unpublish('2026-03-10T10:00:00.000Z');
    assert.deepEqual(await get(`/api/brands/${f.brandId}/analytics/`), before);
  });
});
