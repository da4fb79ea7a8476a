import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { roundRank, roundRate, roundScore } from '../src/domain/scoring.ts';
import {
  defaultSamplesPerAsk,
  type Estimate,
  MIN_PROMPTS,
  monitorPlan,
  observedIcc,
  type PromptSums,
  plannedHalfWidth,
  promptMeanScoreInterval,
  proportionInterval,
  rankInterval,
  runsInWindow,
  samplesPerAskFor,
  scoreInterval,
  significance,
  tCritical,
} from '../src/domain/uncertainty.ts';

// Constants used by hand below (printed tables / one division each):
//   z = Φ⁻¹(0.975) = 1.959964, z² = 3.841459
//   t(0.975) with 2, 3, 19, 39 df = 4.302653, 3.182446, 2.093024, 2.022691
//   df factor c = (z / t)²: 2 df → (1.959964 / 4.302653)² = 0.455527² = 0.207503
//                           3 df → (1.959964 / 3.182446)² = 0.615867² = 0.379292
//                          19 df → (1.959964 / 2.093024)² = 0.936427² = 0.876895
//                          39 df → (1.959964 / 2.022691)² = 0.968988² = 0.938938
//   Wilson at p = ½ with effective n: centre ½, half-width z / (2·√(n + z²)).
//   Wilson at p = 1 with effective n: low n / (n + z²), high 1 (mirror image at p = 0).

const sums = (numerator: number, denominator: number): PromptSums => ({ numerator, denominator });
const times = (n: number, prompt: PromptSums) => Array.from({ length: n }, () => prompt);

function near(actual: number | undefined, expected: number, digits = 5) {
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 10 ** -digits, `${actual} ≈ ${expected}`);
}

function assertInterval(e: Estimate, value: number, low: number, high: number) {
  near(e.value ?? Number.NaN, value, 9);
  assert.deepEqual({ interval: e.interval, reason: e.reason }, { interval: { low, high }, reason: null });
}

describe('t critical values', () => {
  it('matches the printed two-sided 95 % table', () => {
    // Student's t table, 0.975 quantile: 12.7062, 4.3027, 3.1824, 2.2622, 2.0930, 1.9623.
    near(tCritical(1), 12.706205);
    near(tCritical(2), 4.302653);
    near(tCritical(3), 3.182446);
    near(tCritical(9), 2.262157);
    near(tCritical(19), 2.093024);
    near(tCritical(1000), 1.962339);
  });
});

describe('rate interval over prompts', () => {
  it('widens the binomial interval by the design effect of prompt clustering (methodology example)', () => {
    // Four prompts, 10 samples each, mentioned 8, 6, 2, 4: rate 20 / 40 = 0.5.
    // Residuals y − 0.5·x: 8−5 = 3, 6−5 = 1, 2−5 = −3, 4−5 = −1; squares 9 + 1 + 9 + 1 = 20.
    // Cluster variance (4/3)·20 / 40² = 26.667 / 1600 = 0.016667; binomial 0.25 / 40 = 0.00625.
    // Design effect 0.016667 / 0.00625 = 2.6667 → effective 40 / 2.6667 = 15 → ×0.379292 = 5.68938.
    // Half-width 1.959964 / (2·√(5.68938 + 3.841459)) = 1.959964 / (2·3.087207) = 0.317433:
    // 0.182567 … 0.817433, served outward as 0.1825 … 0.8175.
    const e = proportionInterval([sums(8, 10), sums(6, 10), sums(2, 10), sums(4, 10)]);
    assertInterval(e, 0.5, 0.1825, 0.8175);
    near(e.limits?.low, 0.182567);
  });

  it('never goes below the binomial width when prompts agree (design effect floored at 1)', () => {
    // Shares of voice 1/2, 2/4, 3/6: 6 / 12 = 0.5, every residual 0, so the cluster variance is 0
    // and the design effect is floored at 1: effective 12 × 0.207503 = 2.49004.
    // Half-width 1.959964 / (2·√(2.49004 + 3.841459)) = 1.959964 / (2·2.516248) = 0.389461:
    // 0.110539 … 0.889461 → 0.1105 … 0.8895.
    assertInterval(proportionInterval([sums(1, 2), sums(2, 4), sums(3, 6)]), 0.5, 0.1105, 0.8895);
  });

  it('uses the assumed correlation at 100 % and 0 %, where the data show no spread', () => {
    // Three prompts, 4 samples each, all mentioned: 12 / 12 = 1. Design effect 1 + (12/3 − 1)·0.3
    // = 1.9 → effective 12 / 1.9 = 6.315789 → ×0.207503 = 1.310543.
    // Low 1.310543 / (1.310543 + 3.841459) = 0.254375 → 0.2543; high 1.
    assertInterval(proportionInterval(times(3, sums(4, 4))), 1, 0.2543, 1);
    // None mentioned: the mirror image, 0 … 1 − 0.254375 = 0.745625 → 0.7457.
    assertInterval(proportionInterval(times(3, sums(0, 4))), 0, 0, 0.7457);
  });

  it('gives no interval below three prompts with data, and none without weight', () => {
    assert.deepEqual(proportionInterval([sums(3, 4)]), {
      value: 0.75,
      interval: null,
      reason: 'too_few_prompts',
      limits: null,
    });
    // A prompt without weight is not a prompt with data: still two.
    assert.equal(proportionInterval([sums(3, 4), sums(1, 4), sums(0, 0)]).reason, 'too_few_prompts');
    assert.equal(MIN_PROMPTS, 3);
    assert.deepEqual(proportionInterval([sums(0, 0), sums(0, 0), sums(0, 0)]), {
      value: null,
      interval: null,
      reason: 'no_data',
      limits: null,
    });
    assert.equal(proportionInterval([]).reason, 'no_data');
  });
});

describe('score intervals', () => {
  it('pooled score: the rate machinery on Σ w·v / Σ w, ×100, 1 decimal', () => {
    // Prompts with Σ w·v = 1.6, 1.0, 0.4 over 2 samples each: 3 / 6 = 0.5 → score 50.
    // Residuals 1.6 − 1 = 0.6, 0, −0.6: squares 0.72; cluster variance (3/2)·0.72 / 36 = 0.03 <
    // binomial 0.25 / 6 = 0.041667, so design effect 1: effective 6 × 0.207503 = 1.245018.
    // Half-width 1.959964 / (2·√(1.245018 + 3.841459)) = 1.959964 / (2·2.255322) = 0.434520:
    // 6.548 … 93.452 → 6.5 … 93.5.
    assertInterval(scoreInterval([sums(1.6, 2), sums(1, 2), sums(0.4, 2)]), 50, 6.5, 93.5);
  });

  it('brand score as of a run: a mean of prompt scores, each prompt once', () => {
    // Prompt scores 80, 50, 20 on 4, 4, 2 samples: mean 50. Binomial reference trials
    // 3² / (1/4 + 1/4 + 1/2) = 9. Cluster variance (3/2)·(0.3² + 0 + 0.3²) / 3² = 0.03; binomial
    // 0.25 / 9 = 0.027778: design effect 1.08, effective 9 / 1.08 = 8.333333 × 0.207503 = 1.729192.
    // Half-width 1.959964 / (2·√(1.729192 + 3.841459)) = 1.959964 / (2·2.360223) = 0.415208:
    // 8.4792 … 91.5208 → 8.4 … 91.6.
    const e = promptMeanScoreInterval([
      { score: 80, samples: 4 },
      { score: 50, samples: 4 },
      { score: 20, samples: 2 },
    ]);
    assertInterval(e, 50, 8.4, 91.6);
    assert.equal(promptMeanScoreInterval([{ score: 80, samples: 0 }]).reason, 'no_data');
  });
});

describe('average rank interval', () => {
  it('is value ± t(k−1)·cluster-robust standard error', () => {
    // Prompts of one ranked mention each at means 2, 3, 3, 4: 12 / 4 = 3. Residuals −1, 0, 0, 1:
    // variance (4/3)·2 / 4² = 0.166667, standard error 0.408248; × 3.182446 = 1.299228:
    // 1.700772 … 4.299228 → 1.70 … 4.30.
    assertInterval(rankInterval([sums(2, 1), sums(3, 1), sums(3, 1), sums(4, 1)]), 3, 1.7, 4.3);
  });

  it('never goes below rank 1', () => {
    // Σ w·rank 2, 4, 6 over 2 each: 12 / 6 = 2. Residuals 2 − 4 = −2, 0, 2: variance
    // (3/2)·8 / 36 = 0.333333, standard error 0.577350, × 4.302653 = 2.484138: −0.48 → 1, 4.484138 → 4.49.
    assertInterval(rankInterval([sums(2, 2), sums(4, 2), sums(6, 2)]), 2, 1, 4.49);
  });

  it('gives none when every prompt ranks exactly alike, rather than a zero-width band', () => {
    assert.deepEqual(rankInterval([sums(3, 3), sums(1, 1), sums(2, 2)]), {
      value: 1,
      interval: null,
      reason: 'no_spread',
      limits: null,
    });
    assert.equal(rankInterval([sums(3, 3), sums(2, 1)]).reason, 'too_few_prompts');
    assert.equal(rankInterval([sums(0, 0)]).reason, 'no_data');
  });
});

describe('significance of a change', () => {
  it('a large-looking change on few samples is within noise', () => {
    // 3 prompts × 2 samples. Now all mentioned (1): design effect 1 + (6/3 − 1)·0.3 = 1.3,
    // effective 6 / 1.3 = 4.615385 × 0.207503 = 0.957704, low 0.957704 / (0.957704 + 3.841459)
    // = 0.199556. Before none mentioned (0): high 1 − 0.199556 = 0.800444.
    // Difference 1 − 0 = 1; its low end 1 − √((1 − 0.199556)² + (0.800444 − 0)²)
    // = 1 − 0.800444·√2 = 1 − 1.131999 = −0.132 < 0: within_noise. (At the prompt level this is
    // 3 of 3 against 0 of 3, which even an exact test puts at p = 0.1.)
    const now = proportionInterval(times(3, sums(2, 2)));
    const before = proportionInterval(times(3, sums(0, 2)));
    assert.equal(significance(now, before, null), 'within_noise');
  });

  it('a modest change on many samples moved', () => {
    // 20 prompts × 50 samples. Now 10 prompts at 32/50 and 10 at 23/50: 550 / 1000 = 0.55.
    // Residuals ±4.5, squares 20 × 20.25 = 405; variance (20/19)·405 / 1000² = 0.00042632;
    // binomial 0.55·0.45 / 1000 = 0.0002475; design effect 1.722488; effective 1000 / 1.722488 =
    // 580.5556 × 0.876895 = 509.0864.
    // Wilson: z²/n = 3.841459 / 509.0864 = 0.0075458; centre (0.55 + 0.0037729) / 1.0075458 =
    // 0.549626; half (1.959964 / 1.0075458)·√(0.2475 / 509.0864 + 3.841459 / (4·509.0864²))
    // = 1.945285·√(0.00048617 + 0.00000371) = 1.945285·0.022133 = 0.043055: low 0.506570.
    // Before, the mirror image (27/50 and 18/50: 0.45): high 0.45 + (0.55 − 0.506570) = 0.493430.
    // Difference 0.1; its low end 0.1 − √(0.043430² + 0.043430²) = 0.1 − 0.061420 = 0.0386 > 0.
    const now = proportionInterval([...times(10, sums(32, 50)), ...times(10, sums(23, 50))]);
    const before = proportionInterval([...times(10, sums(27, 50)), ...times(10, sums(18, 50))]);
    near(now.limits?.low, 0.50657);
    near(before.limits?.high, 0.49343);
    assert.equal(significance(now, before, null), 'moved');
    assert.equal(significance(before, now, null), 'moved');
  });

  it('no change is within noise, a suppressed delta gets none, a side without interval cannot move', () => {
    const a = proportionInterval([sums(8, 10), sums(6, 10), sums(2, 10), sums(4, 10)]);
    assert.equal(significance(a, a, null), 'within_noise');
    assert.equal(significance(a, a, 'cross_era'), null);
    assert.equal(significance(a, null, 'no_prior'), null);
    assert.equal(significance(a, proportionInterval([sums(0, 10)]), null), 'within_noise');
  });
});

describe('observed intra-prompt correlation', () => {
  it('is (design effect − 1) / (samples per prompt − 1)', () => {
    // The four-prompt example: design effect 2.6667, 10 samples per prompt: 1.6667 / 9 = 0.185185.
    near(observedIcc([sums(8, 10), sums(6, 10), sums(2, 10), sums(4, 10)]) ?? Number.NaN, 0.185185);
    assert.equal(observedIcc(times(3, sums(4, 4))), null);
    assert.equal(observedIcc([sums(1, 2)]), null);
  });
});

describe('planning', () => {
  it('counts runs of a cadence in a window', () => {
    assert.deepEqual(
      [7, 30, 90].map((d) => [runsInWindow('daily', d), runsInWindow('weekly', d)]),
      [
        [7, 1],
        [30, 4],
        [90, 12],
      ],
    );
  });

  it('expects the half-width at 50 % from Kish’s design effect', () => {
    // 20 prompts, 90 samples each (30 daily runs × 3): design effect 1 + 89·0.3 = 27.7,
    // effective 1800 / 27.7 = 64.98195 × 0.876895 = 56.98237; half-width
    // 1.959964 / (2·√(56.98237 + 3.841459)) = 1.959964 / (2·7.798966) = 0.125656.
    near(plannedHalfWidth(20, 90) ?? Number.NaN, 0.125656);
    assert.equal(plannedHalfWidth(2, 90), null);
  });

  it('finds the samples per ask for ±10 points, or says more prompts are needed', () => {
    // ±10 needs effective n with 1.959964 / (2·√(n + z²)) ≤ 0.1: n = 9.79982² − 3.841459 = 92.19501.
    // 40 prompts: 0.938938·40·m / (1 + 0.3·(m − 1)) ≥ 92.19501 ⇔ m ≥ 92.19501·0.7 /
    // (37.55754 − 27.65850) = 64.53651 / 9.89904 = 6.5195 → 7 samples per prompt:
    // 30 daily runs → 1 per ask, 4 weekly runs → 2, one run → 7.
    assert.equal(samplesPerAskFor(40, 30, 0.1), 1);
    assert.equal(samplesPerAskFor(40, 4, 0.1), 2);
    assert.equal(samplesPerAskFor(40, 1, 0.1), 7);
    // 20 prompts: 0.876895·20 = 17.5379 ≤ 92.19501·0.3 = 27.6585, so no m gets there.
    assert.equal(samplesPerAskFor(20, 30, 0.1), null);
    assert.equal(samplesPerAskFor(20, 0, 0.1), null);
    // The threshold is 31 prompts: t(29) = 2.045230, (1.959964 / 2.045230)² · 30 = 0.918358 · 30 =
    // 27.5507 < 27.6585, but t(30) = 2.042272, (1.959964 / 2.042272)² · 31 = 0.921019 · 31 =
    // 28.5516 > 27.6585: m ≥ 64.53651 / (28.5516 − 27.6585) = 72.26 → 73, one run → 73 per ask.
    assert.equal(samplesPerAskFor(30, 1, 0.1), null);
    assert.equal(samplesPerAskFor(31, 1, 0.1), 73);
  });

  it('chooses the default samples per ask from that arithmetic', () => {
    // 40 prompts: ±10 reachable (above): daily 1, weekly 2.
    assert.equal(defaultSamplesPerAsk(40, 'daily'), 1);
    assert.equal(defaultSamplesPerAsk(40, 'weekly'), 2);
    // 20 prompts: out of reach. Unlimited samples give effective 0.876895·20 / 0.3 = 58.45967:
    // best 1.959964 / (2·√(58.45967 + 3.841459)) = 0.124157; aim 1 point wider, 0.134157:
    // n = (1.959964 / 0.268313)² − 3.841459 = 49.51802; m ≥ 49.51802·0.7 / (17.53791 −
    // 14.85541) = 34.66261 / 2.68250 = 12.922 → 13 samples per prompt: weekly (4 runs) → 4 per ask.
    assert.equal(defaultSamplesPerAsk(20, 'weekly'), 4);
    assert.equal(defaultSamplesPerAsk(20, 'daily'), 1);
    assert.equal(defaultSamplesPerAsk(2, 'daily'), null);
  });

  it('plans each engine over 7, 30 and 90 days', () => {
    const [plan] = monitorPlan(40, [{ engine: 'chatgpt', cadence: 'weekly', samplesPerAsk: 2 }]);
    assert.deepEqual(
      plan?.windows.map((w) => [w.days, w.runs, w.samples, w.samplesPerAskForTarget]),
      [
        [7, 1, 80, 7],
        [30, 4, 320, 2],
        [90, 12, 960, 1],
      ],
    );
    // 30 days: 8 samples per prompt, design effect 1 + 7·0.3 = 3.1, effective 320 / 3.1 =
    // 103.2258 × 0.938938 = 96.9227; half-width 1.959964 / (2·√(96.9227 + 3.841459)) =
    // 1.959964 / (2·10.038134) = 0.097626.
    near(plan?.windows[1]?.halfWidth ?? Number.NaN, 0.097626);
  });
});

describe('every interval contains its value (property)', () => {
  const seed = 20260314;
  const prompt = fc
    .integer({ min: 0, max: 40 })
    .chain((denominator) =>
      fc.integer({ min: 0, max: denominator }).map((numerator) => sums(numerator, denominator)),
    );

  function contains(e: Estimate, rounded: (v: number) => number, floor: number, ceiling: number) {
    if (!e.interval || !e.limits || e.value === null) return;
    assert.ok(floor <= e.interval.low && e.interval.high <= ceiling, JSON.stringify(e));
    assert.ok(e.interval.low <= rounded(e.value) && rounded(e.value) <= e.interval.high, JSON.stringify(e));
    assert.ok(e.limits.low <= e.value && e.value <= e.limits.high, JSON.stringify(e));
  }

  it('rates and shares: 0 ≤ low ≤ value ≤ high ≤ 1', () => {
    fc.assert(
      fc.property(fc.array(prompt, { maxLength: 30 }), (prompts) =>
        contains(proportionInterval(prompts), roundRate, 0, 1),
      ),
      { seed, numRuns: 2000 },
    );
  });

  it('scores: 0 ≤ low ≤ value ≤ high ≤ 100', () => {
    const value = fc.constantFrom(0, 0.25, 0.4, 0.5, 0.55, 0.7, 0.85, 1);
    const scored = fc.array(fc.record({ w: fc.integer({ min: 1, max: 5 }), v: value }), { maxLength: 8 });
    fc.assert(
      fc.property(fc.array(scored, { maxLength: 20 }), (prompts) => {
        const pooled = prompts.map((answers) =>
          sums(
            answers.reduce((s, a) => s + a.w * a.v, 0),
            answers.reduce((s, a) => s + a.w, 0),
          ),
        );
        contains(scoreInterval(pooled), roundScore, 0, 100);
        const means = pooled.map((p) => ({
          score: p.denominator > 0 ? (100 * p.numerator) / p.denominator : 0,
          samples: p.denominator,
        }));
        contains(promptMeanScoreInterval(means), roundScore, 0, 100);
      }),
      { seed, numRuns: 1000 },
    );
  });

  it('ranks: 1 ≤ low ≤ value ≤ high', () => {
    const ranked = fc.array(
      fc.record({ w: fc.integer({ min: 1, max: 5 }), rank: fc.integer({ min: 1, max: 12 }) }),
      {
        maxLength: 8,
      },
    );
    fc.assert(
      fc.property(fc.array(ranked, { maxLength: 20 }), (prompts) => {
        const rankSums = prompts.map((answers) =>
          sums(
            answers.reduce((s, a) => s + a.w * a.rank, 0),
            answers.reduce((s, a) => s + a.w, 0),
          ),
        );
        contains(rankInterval(rankSums), roundRank, 1, Number.POSITIVE_INFINITY);
      }),
      { seed, numRuns: 1000 },
    );
  });
});
