import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { historySlice, thin, windowedDelta } from '../src/domain/score-history.ts';
import { type EraPromptRunScore, scoreTimeline } from '../src/domain/scoring.ts';
import { parseHistory, type Window } from '../src/domain/windows.ts';

const NOW = new Date('2026-03-15T12:00:00.000Z');

function history(query: Parameters<typeof parseHistory>[0]): Window {
  const parsed = parseHistory(query, NOW, 'UTC');
  assert.ok(parsed.ok);
  return parsed.value.window;
}

const score = (runId: number, promptId: number, day: string, value: number, methodology = 'sample_v1') =>
  ({
    runId,
    promptId,
    scoredAt: `2026-03-${day}T10:00:00.000Z`,
    score: value,
    methodology,
  }) satisfies EraPromptRunScore;

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
      scoreTimeline(SCORES).map((p) => [p.runId, p.score, p.includesLegacy]),
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
 * What the data layer hands over for a window: each prompt's latest score at or before its start,
 * the scores inside it, and the first scored run's time.
 */
function sliceOf(scores: readonly EraPromptRunScore[], window: Window) {
  const at = (s: EraPromptRunScore) => Date.parse(s.scoredAt);
  const start = window.start?.getTime();
  const latest = new Map<number, EraPromptRunScore>();
  for (const s of scores) {
    const seen = latest.get(s.promptId);
    if (start !== undefined && at(s) <= start && (!seen || at(seen) <= at(s))) latest.set(s.promptId, s);
  }
  const within = scores.filter(
    (s) => (start === undefined || at(s) >= start) && at(s) < window.end.getTime(),
  );
  const first = [...scores].sort((a, b) => at(a) - at(b))[0]?.scoredAt ?? null;
  return historySlice([...latest.values()], within, first);
}

const deltaOf = (scores: readonly EraPromptRunScore[], window: Window) =>
  windowedDelta(sliceOf(scores, window), window);

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
    // Ten points at 12:00 on days 0..9 of a 10-day span; 3 buckets of 3⅓ days: days 0–2, 3–6, 7–9.
    const start = Date.parse('2026-01-01T00:00:00.000Z');
    const points = Array.from({ length: 10 }, (_, k) => ({
      k,
      scoredAt: new Date(start + (k + 0.5) * 86_400_000).toISOString(),
    }));
    const span = { start, end: start + 10 * 86_400_000 };
    assert.deepEqual(
      thin(points, 3, span).map((p) => p.k),
      [2, 6, 9],
    );
    assert.deepEqual(
      thin(points, 1, span).map((p) => p.k),
      [9],
    );
    assert.equal(thin(points, 10, span).length, 10);
    assert.equal(thin(points, null, span).length, 10);
  });
});
