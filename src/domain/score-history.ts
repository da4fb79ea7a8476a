import { compare, type Delta } from './deltas.ts';
import {
  byTime,
  type EraPromptRunScore,
  type ScoreAsOfRun,
  scoreAsOfLatest,
  scoreTimeline,
} from './scoring.ts';
import {
  type Estimate,
  type PromptScore,
  promptMeanScoreInterval,
  type Significance,
  significance,
} from './uncertainty.ts';
import type { Window } from './windows.ts';

// Score history and the windowed (hero) delta, from the score-as-of timeline of a brand or a
// category (scoring.ts `scoreTimeline`). Pure: the data layer fetches the prompt scores.

export interface WindowedDelta extends Delta {
  /** Score as of the latest scored run in the window's reach; 0 when there is none (no_data). */
  latestScore: number;
  boundaryScore: number | null;
  asOfRunId: number | null;
  spanLabel: string;
  /** latestScore's 95 % interval over the prompts it is the mean of (latestScoreInterval). */
  latestEstimate: Estimate;
  /** Whether the delta stands out from sampling noise; null when it is suppressed. */
  significance: Significance | null;
}

/** A prompt's score in one run, and the samples (Σ sampleCount of usable answers) it rests on. */
export interface SampledPromptScore extends EraPromptRunScore {
  samples: number;
}

/**
 * A score history read up to some moment, reduced to what its delta and the rest of it need, so a
 * history can be read in two parts (its older blocks kept, the days since read again) and give
 * what one read gives (historyPart, continued).
 */
export interface HistoryPart {
  /** Score as of the last scored run at or before the window's start (null when none, or all time). */
  boundary: ScoreAsOfRun | null;
  /** Score as of each scored run read so far, oldest first. */
  points: ScoreAsOfRun[];
  /** Each prompt's latest score, in the order the timeline of later runs must start from. */
  state: SampledPromptScore[];
  /**
   * The prompt scores an as-of score's interval needs one by one: every score at or before the
   * delta's boundary (the window's start, or the first point), and each prompt's latest.
   */
  scores: SampledPromptScore[];
}

/**
 * A history's part up to some moment; it goes on with `continued`. `before` is each prompt's latest
 * score before the window's `start` (strictly: runs finishing at the start itself are in `within`,
 * and each gets its point as of the runs before it, not as of one ordered after it); the boundary
 * counts them, being the score as of the last run at or before the start.
 */
export function historyPart(
  before: readonly SampledPromptScore[],
  within: readonly SampledPromptScore[],
  start: Date | null = null,
): HistoryPart {
  // Compared as text, as `byTime` compares them: times are ISO strings to the millisecond.
  const startAt = start?.toISOString();
  const atStart = startAt === undefined ? [] : within.filter((s) => s.scoredAt <= startAt);
  const bounding = atStart.length === 0 ? before : latestByPrompt([...before, ...atStart]);
  const part = { boundary: scoreAsOfLatest(bounding), points: [], state: [...before], scores: [...before] };
  return continued(part, within);
}

/** Each prompt's latest score (by time, then run id), in the order the prompts first appear. */
function latestByPrompt(scores: readonly SampledPromptScore[]): SampledPromptScore[] {
  const latest = new Map<number, SampledPromptScore>();
  for (const s of scores) {
    const held = latest.get(s.promptId);
    if (!held || byTime(s, held) > 0) latest.set(s.promptId, s);
  }
  return [...latest.values()];
}

/** A history's part continued by the scores of later runs than any it has read. */
export function continued(part: HistoryPart, within: readonly SampledPromptScore[]): HistoryPart {
  const timeline = scoreTimeline(within, part.state);
  const points = part.points.concat(timeline.points);
  const cut = part.boundary ?? points[0];
  // At or before the cut, and each prompt's latest (the timeline's state after the last run).
  const scores = new Set<SampledPromptScore>();
  for (const s of [...part.scores, ...within]) if (cut && byTime(s, cut) <= 0) scores.add(s);
  for (const s of timeline.latest) scores.add(s);
  return { boundary: part.boundary, points, state: timeline.latest, scores: [...scores] };
}

/** What a window's delta is worked out from: its history, and when the scope's first scored run finished. */
export interface HistorySlice extends HistoryPart {
  /** Null when none has. */
  firstScoredAt: string | null;
}

/** A score history's points and windowed delta: what its body is shaped from. */
export interface History {
  points: ScoreAsOfRun[];
  delta: WindowedDelta;
}

/** The history of a window from its scores (historyPart, continued). */
export function historyOf(part: HistoryPart, firstScoredAt: string | null, window: Window): History {
  return { points: part.points, delta: windowedDelta({ ...part, firstScoredAt }, window) };
}

const at = (point: ScoreAsOfRun) => Date.parse(point.scoredAt);

/**
 * The prompt scores the score as of `point` is the mean of: each prompt's latest at or before it,
 * by prompt, so that a history read in parts adds them in the order one read does.
 */
function promptScoresAt(scores: readonly SampledPromptScore[], point: ScoreAsOfRun): PromptScore[] {
  return latestByPrompt(scores.filter((s) => byTime(s, point) <= 0))
    .sort((a, b) => a.promptId - b.promptId)
    .map((s) => ({ score: s.score, samples: s.samples }));
}

/**
 * latestScore = score as of the last scored run before the window's end; boundaryScore = score as
 * of the last scored run at or before its start (for all time, the first scored run). Suppressed:
 * no_data when no run has scored yet, no_prior when the as-of run is the first one ever,
 * no_boundary when the history begins inside the window, cross_era when the boundary score rests
 * on legacy observations and the latest does not.
 */
export function windowedDelta(slice: HistorySlice, window: Window): WindowedDelta {
  const allTime = window.start === null;
  const sequence = allTime || !slice.boundary ? slice.points : [slice.boundary, ...slice.points];
  const latest = sequence.at(-1);
  const boundary = allTime ? slice.points[0] : (slice.boundary ?? undefined);
  const first = slice.firstScoredAt === null ? Number.POSITIVE_INFINITY : Date.parse(slice.firstScoredAt);
  const { delta, suppressedReason } = compare(latest?.score ?? null, boundary?.score ?? null, {
    noPrior: latest !== undefined && sequence.length === 1 && at(latest) <= first,
    noBoundary: boundary === undefined,
    crossEra:
      boundary !== undefined && latest !== undefined && boundary.includesLegacy && !latest.includesLegacy,
  });
  const estimateAt = (point: ScoreAsOfRun | undefined) =>
    promptMeanScoreInterval(point ? promptScoresAt(slice.scores, point) : []);
  const latestEstimate = estimateAt(latest);
  return {
    latestScore: latest?.score ?? 0,
    boundaryScore: boundary?.score ?? null,
    delta,
    asOfRunId: latest?.runId ?? null,
    spanLabel: window.spanLabel,
    suppressedReason,
    latestEstimate,
    significance: significance(
      latestEstimate,
      suppressedReason === null ? estimateAt(boundary) : null,
      suppressedReason,
    ),
  };
}

/**
 * At most `limit` points: the time from the first point to the last is cut into `limit` equal
 * buckets and the last point of each bucket is kept, so the latest point always survives. Null
 * keeps every point. The buckets cover the series, not the window it was asked for: a window
 * reaching years before the first run (since=2000-01-01), or a series that stopped long before the
 * window's end (a paused brand), left every point in a bucket or two.
 */
export function thin<T extends { scoredAt: string }>(points: readonly T[], limit: number | null): T[] {
  if (limit === null || points.length <= limit) return [...points];
  const span = {
    start: Date.parse(points[0]?.scoredAt ?? ''),
    end: Date.parse(points.at(-1)?.scoredAt ?? ''),
  };
  const width = span.end - span.start;
  const bucketOf = (point: T) =>
    width <= 0
      ? limit - 1
      : Math.min(
          limit - 1,
          Math.max(0, Math.floor(((Date.parse(point.scoredAt) - span.start) / width) * limit)),
        );
  return points.filter((point, i) => {
    const next = points[i + 1];
    return next === undefined || bucketOf(next) !== bucketOf(point);
  });
}
