import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  continued,
  historyOf,
  historyPart,
  type SampledPromptScore,
  thin,
  type WindowedDelta,
  windowedDelta,
} from '../src/domain/score-history.ts';
import { scoreTimeline } from '../src/domain/scoring.ts';
import { parseHistory, type Window } from '../src/domain/windows.ts';

const NOW = new Date('2026-03-15T12:00:00.000Z');

function history(query: Parameters<typeof parseHistory>[0]): Window {
  const parsed = parseHistory(query, NOW, 'UTC');
  assert.ok(parsed.ok);
  return parsed.value.window;
}

const score = (
  runId: number,
  promptId: number,
  day: string,
  value: number,
  methodology = 'sample_v1',
  samples = 1,
) =>
  ({
    runId,
    promptId,
    scoredAt: `2026-03-${day}T10:00:00.000Z`,
    score: value,
    methodology,
    samples,
  }) satisfies SampledPromptScore;

// Two prompts. R1 scores both from legacy answers; R2 and R3 rescore them on sample_v1; R4 P1 again.
const SCORES = [
  score(1, 1, '01', 80, 'legacy'),
  score(1, 2, '01', 40, 'legacy'),
  score(2, 1, '05', 50),
  score(3, 2, '10', 70),
  score(4, 1, '12', 60),
];

describe('score as of each run', () => {
  it('is the mean of each prompt’s latest score, and knows when one of them is legacy', () => {
    assert.deepEqual(
      scoreTimeline(SCORES).points.map((p) => [p.runId, p.score, p.includesLegacy]),
      [
        [1, 60, true], // (80 + 40) / 2
        [2, 45, true], // (50 + 40) / 2, P2 still on its legacy score
        [3, 60, false], // (50 + 70) / 2
        [4, 65, false], // (60 + 70) / 2
      ],
    );
  });
});

/**
 * What the data layer hands over for a window: each prompt's latest score before its start, the
 * scores inside it (from the start on), and the first scored run's time.
 */
function sliceOf(scores: readonly SampledPromptScore[], window: Window) {
  const at = (s: SampledPromptScore) => Date.parse(s.scoredAt);
  const start = window.start?.getTime();
  const latest = new Map<number, SampledPromptScore>();
  for (const s of scores) {
    const seen = latest.get(s.promptId);
    if (start !== undefined && at(s) < start && (!seen || at(seen) <= at(s))) latest.set(s.promptId, s);
  }
  const within = scores.filter(
    (s) => (start === undefined || at(s) >= start) && at(s) < window.end.getTime(),
  );
  const first = [...scores].sort((a, b) => at(a) - at(b))[0]?.scoredAt ?? null;
  return { ...historyPart([...latest.values()], within, window.start), firstScoredAt: first };
}

/** The delta without its uncertainty (tested on its own below): two prompts give no interval. */
function deltaOf(scores: readonly SampledPromptScore[], window: Window) {
  const { latestEstimate, significance, ...delta } = windowedDelta(sliceOf(scores, window), window);
  return delta;
}

describe('windowed delta', () => {
  it('compares the latest score with the score as of the window start', () => {
    // since 11 March: boundary = as of R3 (60), latest = as of R4 (65): 65 − 60 = 5.
    assert.deepEqual(deltaOf(SCORES, history({ since: '2026-03-11' })), {
      latestScore: 65,
      boundaryScore: 60,
      delta: 5,
      asOfRunId: 4,
      spanLabel: 'since 2026-03-11',
      suppressedReason: null,
    });
  });

  it('keeps an unsuppressed 0', () => {
    // since 13 March: no run in the window, so the score as of its start is the latest one: 65 − 65.
    const delta = deltaOf(SCORES, history({ since: '2026-03-13' }));
    assert.equal(delta.delta, 0);
    assert.equal(delta.suppressedReason, null);
  });

  it('is no_boundary when the history begins inside the window', () => {
    // 30d starts 13 February; the first scored run is 1 March.
    assert.deepEqual(deltaOf(SCORES, history({})), {
      latestScore: 65,
      boundaryScore: null,
      delta: null,
      asOfRunId: 4,
      spanLabel: '30d',
      suppressedReason: 'no_boundary',
    });
  });

  it('is cross_era when the boundary score rests on legacy answers and the latest does not', () => {
    // since 6 March: boundary = as of R2 (45, P2 still legacy); latest = as of R4 (65, all sample_v1).
    const delta = deltaOf(SCORES, history({ since: '2026-03-06' }));
    assert.deepEqual([delta.boundaryScore, delta.delta, delta.suppressedReason], [45, null, 'cross_era']);
    // all time: boundary = the first scored run (60, legacy).
    assert.deepEqual(deltaOf(SCORES, history({ since: 'all' })).suppressedReason, 'cross_era');
  });

  it('compares with the first scored run for all time', () => {
    // Without R1: first run R2: P1 = 50 → 50. Latest R4: (60 + 70) / 2 = 65. 65 − 50 = 15.
    assert.deepEqual(
      deltaOf(
        SCORES.filter((s) => s.runId > 1),
        history({ since: 'all' }),
      ),
      {
        latestScore: 65,
        boundaryScore: 50,
        delta: 15,
        asOfRunId: 4,
        spanLabel: 'all time',
        suppressedReason: null,
      },
    );
  });

  it('is no_prior when the latest run is the only one, and no_data with none', () => {
    const single = [score(7, 1, '02', 30)];
    assert.deepEqual(deltaOf(single, history({ since: 'all' })), {
      latestScore: 30,
      boundaryScore: 30,
      delta: null,
      asOfRunId: 7,
      spanLabel: 'all time',
      suppressedReason: 'no_prior',
    });
    assert.deepEqual(deltaOf([], history({ since: '2026-03-01' })), {
      latestScore: 0,
      boundaryScore: null,
      delta: null,
      asOfRunId: null,
      spanLabel: 'since 2026-03-01',
      suppressedReason: 'no_data',
    });
  });

  it('takes the latest score at the end of a past custom window', () => {
    const parsed = parseHistory({ range: 'custom', start: '2026-03-02', end: '2026-03-08' }, NOW, 'UTC');
    assert.ok(parsed.ok);
    // Latest before 9 March 00:00 is R2 (45); boundary at 2 March 00:00 is R1 (60). Both rest on
    // legacy answers (P2 is still on its legacy score at R2), so no era is crossed: 45 − 60 = −15.
    const delta = deltaOf(SCORES, parsed.value.window);
    assert.deepEqual(
      [delta.latestScore, delta.asOfRunId, delta.boundaryScore, delta.delta, delta.suppressedReason],
      [45, 2, 60, -15, null],
    );
  });
});

describe('windowed delta: interval and significance', () => {
  // Constants: z = 1.959964, z² = 3.841459; t with 2 df 4.302653, so the df factor
  // (z / t)² = 0.207503. The brand score is a mean of prompt scores: the interval is the
  // prompt-mean one of methodology.md "Uncertainty" (binomial reference trials k² / Σ 1/samples).
  const three = [
    // Before 11 March: 0, 0, 50; R2 on 12 March: 100, 100, 50. Two samples behind each score.
    score(1, 1, '01', 0, 'sample_v1', 2),
    score(1, 2, '01', 0, 'sample_v1', 2),
    score(1, 3, '01', 50, 'sample_v1', 2),
    score(2, 1, '12', 100, 'sample_v1', 2),
    score(2, 2, '12', 100, 'sample_v1', 2),
  ];
  const delta = (scores: readonly SampledPromptScore[], since: string): WindowedDelta =>
    windowedDelta(sliceOf(scores, history({ since })), history({ since }));

  it('gives the latest score its interval over the prompts it is the mean of', () => {
    // Latest (as of R2): values 1, 1, 0.5 → mean 0.833333 (83.3). Deviations 0.166667, 0.166667,
    // −0.333333: squares 0.166667; cluster variance (3/2)·0.166667 / 3² = 0.027778. Trials
    // 3² / (3 × ½) = 6; binomial 0.833333·0.166667 / 6 = 0.023148; design effect 1.2; effective
    // 6 / 1.2 = 5 × 0.207503 = 1.037513. Wilson: z²/n = 3.702564; centre (0.833333 + 1.851282) /
    // 4.702564 = 0.570883; half (1.959964 / 4.702564)·√(0.138889 / 1.037513 + 3.841459 /
    // (4·1.076433)) = 0.416785·√(0.133867 + 0.892172) = 0.422178: 0.148705 … 0.993061 →
    // 14.8705 … 99.3061 points, outward 14.8 … 99.4.
    const d = delta(three, '2026-03-11');
    assert.deepEqual([d.latestEstimate.interval, d.latestEstimate.reason], [{ low: 14.8, high: 99.4 }, null]);
    // Boundary (as of R1): 0, 0, 0.5 → 0.166667, the mirror image: 0.006939 … 0.851295.
    // The delta 83.3 − 16.7 = +66.7 looks large, but its interval's low end is
    // 0.666667 − √((0.833333 − 0.148705)² + (0.851295 − 0.166667)²) = 0.666667 − 0.968210 < 0.
    assert.deepEqual(
      [d.delta?.toFixed(1), d.suppressedReason, d.significance],
      ['66.7', null, 'within_noise'],
    );
  });

  it('gives none on fewer than three prompts, and no significance to a suppressed delta', () => {
    const d = delta(SCORES, '2026-03-11');
    assert.deepEqual(
      [d.latestEstimate.interval, d.latestEstimate.reason, d.significance],
      [null, 'too_few_prompts', 'within_noise'],
    );
    const first = delta(three.slice(0, 3), 'all');
    assert.deepEqual([first.suppressedReason, first.significance], ['no_prior', null]);
    assert.deepEqual(first.latestEstimate.interval, { low: 0.6, high: 85.2 });
    const none = delta([], '2026-03-01');
    assert.deepEqual([none.latestEstimate.reason, none.significance], ['no_data', null]);
  });
});

describe('points and thinning', () => {
  it('has one point per scored run inside the window, seeded with the scores before it', () => {
    // since 5 March: P2's latest before the window is its legacy 40 (R1); R2 makes P1 50 → 45.
    assert.deepEqual(
      sliceOf(SCORES, history({ since: '2026-03-05' })).points.map((p) => [p.runId, p.score]),
      [
        [2, 45],
        [3, 60],
        [4, 65],
      ],
    );
  });

  it('keeps the last point of each time bucket, so always the latest', () => {
    // Ten points at 12:00 on days 0..9: nine days from the first to the last, 3 buckets of 3 days:
    // days 0–2, 3–5, 6–9 (the last point closes the last bucket).
    const start = Date.parse('2026-01-01T12:00:00.000Z');
    const at = (day: number) => new Date(start + day * 86_400_000).toISOString();
    const points = Array.from({ length: 10 }, (_, k) => ({ k, scoredAt: at(k) }));
    assert.deepEqual(
      thin(points, 3).map((p) => p.k),
      [2, 5, 9],
    );
    assert.deepEqual(
      thin(points, 1).map((p) => p.k),
      [9],
    );
    assert.equal(thin(points, 10).length, 10);
    assert.equal(thin(points, null).length, 10);
    // All at one instant: one bucket, the last point.
    const same = [0, 1, 2, 3].map((k) => ({ k, scoredAt: at(0) }));
    assert.deepEqual(
      thin(same, 2).map((p) => p.k),
      [3],
    );
  });
});

describe('a history read in two parts', () => {
  // Three prompts, so that the latest score has an interval: P3 scored 90 in R5 on 13 March.
  const THREE = [...SCORES, score(5, 3, '13', 90, 'sample_v1', 2)];
  const split = '2026-03-06T00:00:00.000Z';
  const parts = (before: SampledPromptScore[], scores: readonly SampledPromptScore[]) =>
    continued(
      historyPart(
        before,
        scores.filter((s) => s.scoredAt < split),
      ),
      scores.filter((s) => s.scoredAt >= split),
    );

  it('has the points and delta of one read, for all time and for a window', () => {
    const all = history({ since: 'all' });
    const whole = historyOf(historyPart([], THREE), null, all);
    // As of R1 60 (80, 40), R2 45 (50, 40), R3 60 (50, 70), R4 65 (60, 70), R5 (60 + 70 + 90) / 3 = 73.3̅.
    assert.deepEqual(
      whole.points.map((p) => [p.runId, Math.round(p.score * 10) / 10]),
      [
        [1, 60],
        [2, 45],
        [3, 60],
        [4, 65],
        [5, 73.3],
      ],
    );
    assert.deepEqual(historyOf(parts([], THREE), null, all), whole);
    // The part before the split keeps what an interval at its first point needs (R1's scores) and
    // each prompt's latest (P1 from R2, P2 from R1), not every score.
    assert.deepEqual(
      historyPart(
        [],
        THREE.filter((s) => s.scoredAt < split),
      )
        .scores.map((s) => [s.runId, s.promptId])
        .sort(),
      [
        [1, 1],
        [1, 2],
        [2, 1],
      ],
    );
    // Since 2 March: P1 80 and P2 40 at the start (R1), the rest inside.
    const since = history({ since: '2026-03-02' });
    const before = THREE.filter((s) => s.runId === 1);
    const within = THREE.filter((s) => s.runId !== 1);
    assert.deepEqual(
      historyOf(parts(before, within), null, since),
      historyOf(historyPart(before, within), null, since),
    );
  });
});
