// The one scoring methodology (decisions.md, "Scoring"). Pure functions: the API,
// reports and the stored per-run aggregates all compute scores through this module.

export interface Observation {
  /** sampleCount: identical asks merged into one response row. */
  weight: number;
  mentioned: boolean;
  rank: number | null;
}

/** 0 when not mentioned; 0.5 when mentioned without a rank; rank r → max(0.25, 1 − 0.15·(r − 1)). */
export function observationValue(observation: Pick<Observation, 'mentioned' | 'rank'>): number {
  if (!observation.mentioned) return 0;
  if (observation.rank === null) return 0.5;
  return Math.max(0.25, 1 - 0.15 * (observation.rank - 1));
}

/** Score 0–100 of a set of usable observations: 100 · Σ w·v / Σ w; null when there is no weight. */
export function scoreOf(observations: Iterable<Observation>): number | null {
  let weighted = 0;
  let weight = 0;
  for (const o of observations) {
    weighted += o.weight * observationValue(o);
    weight += o.weight;
  }
  return weight > 0 ? (100 * weighted) / weight : null;
}

/** The methodology of every current capture; anything else is legacy. */
export const CURRENT_METHODOLOGY = 'sample_v1';

export function isLegacy(methodology: string): boolean {
  return methodology !== CURRENT_METHODOLOGY;
}

/** What decides whether an observation counts. */
export interface ObservationStatus {
  outcome: string;
  methodology: string;
  hasMentionData: boolean;
}

/** Why an observation does not count. Every observation is usable or has exactly one of these. */
export type Exclusion = 'error' | 'empty' | 'no_result' | 'methodology' | 'unreconstructable';

/** A usable current-methodology answer: one of these retires its prompt's legacy answers in the same set. */
export function isCurrentUsable(o: ObservationStatus): boolean {
  return o.outcome === 'ok' && o.hasMentionData && !isLegacy(o.methodology);
}

/**
 * Null when the observation is usable, else why not. A failed capture is that first, whatever its
 * methodology (an unknown outcome counts as an error); then a legacy answer of a prompt that has
 * current data in the same set is excluded for methodology; then an answer whose mention data was
 * never recorded cannot be scored. What is left is usable: current answers, and legacy answers of
 * prompts without current data (legacy fallback).
 */
export function exclusionOf(o: ObservationStatus, promptHasCurrent: boolean): Exclusion | null {
  if (o.outcome !== 'ok') return o.outcome === 'empty' || o.outcome === 'no_result' ? o.outcome : 'error';
  if (isLegacy(o.methodology) && promptHasCurrent) return 'methodology';
  if (!o.hasMentionData) return 'unreconstructable';
  return null;
}

/** The prompts that have at least one usable current-methodology observation in the set. */
export function promptsWithCurrentData(
  observations: Iterable<ObservationStatus & { promptId: number }>,
): Set<number> {
  const prompts = new Set<number>();
  for (const o of observations) if (isCurrentUsable(o)) prompts.add(o.promptId);
  return prompts;
}

export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** One prompt's score in one scored run. */
export interface PromptRunScore {
  promptId: number;
  runId: number;
  /** When the run finished (ISO-8601); orders a prompt's runs. */
  scoredAt: string;
  score: number;
}

/** Finish time, then run id: the order in which a prompt's scores replace each other. */
export function byTime(
  a: Pick<PromptRunScore, 'scoredAt' | 'runId'>,
  b: Pick<PromptRunScore, 'scoredAt' | 'runId'>,
): number {
  return a.scoredAt < b.scoredAt ? -1 : a.scoredAt > b.scoredAt ? 1 : a.runId - b.runId;
}

/** Each prompt's scores in time order, oldest first. */
export function groupByPrompt<T extends PromptRunScore>(scores: readonly T[]): Map<number, T[]> {
  const byPrompt = new Map<number, T[]>();
  for (const s of scores) {
    const list = byPrompt.get(s.promptId);
    if (list) list.push(s);
    else byPrompt.set(s.promptId, [s]);
  }
  for (const list of byPrompt.values()) list.sort(byTime);
  return byPrompt;
}

/**
 * Brand or category score as of a moment: the mean, over eligible prompts with a scored run at or
 * before it, of each prompt's latest score at or before it. Null when no prompt has one.
 */
export function scoreAsOf(
  byPrompt: Map<number, PromptRunScore[]>,
  asOf: string | null = null,
): number | null {
  const latest: number[] = [];
  for (const list of byPrompt.values()) {
    let found: PromptRunScore | undefined;
    for (const s of list) {
      if (asOf !== null && s.scoredAt > asOf) break;
      found = s;
    }
    if (found) latest.push(found.score);
  }
  return mean(latest);
}

/** A prompt's score in one run, with the methodology of the observations it rests on. */
export interface EraPromptRunScore extends PromptRunScore {
  methodology: string;
}

/** The score of a brand or category as of one scored run. */
export interface ScoreAsOfRun {
  runId: number;
  scoredAt: string;
  score: number;
  /** Some prompt's latest score at that moment rests on legacy observations. */
  includesLegacy: boolean;
}

/** Latest scores by prompt, kept in flat arrays: a timeline recomputes the mean after every run. */
class LatestScores<T extends EraPromptRunScore> {
  private readonly slots = new Map<number, number>();
  private readonly scores: number[] = [];
  private readonly legacy: boolean[] = [];
  private readonly held: T[] = [];

  set(s: T): void {
    let slot = this.slots.get(s.promptId);
    if (slot === undefined) {
      slot = this.scores.length;
      this.slots.set(s.promptId, slot);
    }
    this.scores[slot] = s.score;
    this.legacy[slot] = isLegacy(s.methodology);
    this.held[slot] = s;
  }

  /** The mean of the latest scores, as of the given run. */
  asOf({ runId, scoredAt }: PromptRunScore): ScoreAsOfRun | null {
    const score = mean(this.scores);
    return score === null ? null : { runId, scoredAt, score, includesLegacy: this.legacy.includes(true) };
  }

  /** The latest scores in the order the mean adds them: set again in this order, the same state. */
  latest(): T[] {
    return [...this.held];
  }
}

const timeOf = (s: PromptRunScore) => Date.parse(s.scoredAt);

/** The latest of some prompt scores: by time, then by run id. */
function latestOf(scores: readonly EraPromptRunScore[]): EraPromptRunScore | undefined {
  let latest: EraPromptRunScore | undefined;
  for (const s of scores) if (!latest || byTime(latest, s) < 0) latest = s;
  return latest;
}

/**
 * The score as of a moment from each prompt's latest score at that moment (one per prompt),
 * attributed to the latest run among them; null when there is none.
 */
export function scoreAsOfLatest(latest: readonly EraPromptRunScore[]): ScoreAsOfRun | null {
  const last = latestOf(latest);
  if (!last) return null;
  const state = new LatestScores<EraPromptRunScore>();
  for (const s of latest) state.set(s);
  return state.asOf(last);
}

/**
 * The score as of each run of `scores`, oldest first: after each run, the mean over prompts of
 * each prompt's latest score (scoreAsOf at that run). `before` seeds each prompt's latest score
 * from before the first of them. Runs finishing at the same instant are ordered by id, so every
 * run gets its own point. Also each prompt's latest score after the last run, in the order that,
 * given as `before` to a timeline of later runs, continues this one exactly (the mean adds the
 * prompts in the same order).
 */
export function scoreTimeline<T extends EraPromptRunScore>(
  scores: readonly T[],
  before: readonly T[] = [],
): { points: ScoreAsOfRun[]; latest: T[] } {
  // Grouped by run, then the runs sorted: a run's prompt scores share its finish time, and a whole
  // history has about ten prompt scores per run (~96,000 for a three-year brand) to sort otherwise.
  const runs = new Map<number, { at: number; scores: T[] }>();
  for (const s of scores) {
    const run = runs.get(s.runId);
    if (run) run.scores.push(s);
    else runs.set(s.runId, { at: timeOf(s), scores: [s] });
  }
  const ordered = [...runs].sort(([a, x], [b, y]) => x.at - y.at || a - b);
  const state = new LatestScores<T>();
  for (const s of before) state.set(s);
  const points: ScoreAsOfRun[] = [];
  for (const [, run] of ordered) {
    for (const s of run.scores) state.set(s);
    const point = state.asOf(run.scores[0] as T);
    if (point) points.push(point);
  }
  return { points, latest: state.latest() };
}

/**
 * averageScore / previousScore / hasScoreData of a brand or category: the score as of now, and the
 * same mean over each prompt's predecessor score (a prompt scored once contributes its latest).
 */
export function currentAndPreviousScore(byPrompt: Map<number, PromptRunScore[]>): {
  averageScore: number;
  previousScore: number;
  hasScoreData: boolean;
} {
  const latest: number[] = [];
  const previous: number[] = [];
  for (const list of byPrompt.values()) {
    const last = list[list.length - 1];
    if (!last) continue;
    latest.push(last.score);
    previous.push((list[list.length - 2] ?? last).score);
  }
  const averageScore = mean(latest);
  if (averageScore === null) return { averageScore: 0, previousScore: 0, hasScoreData: false };
  return { averageScore, previousScore: mean(previous) ?? 0, hasScoreData: true };
}

/** currentAndPreviousScore of the latest scores of some prompts, in any order. */
export const scoreSummary = (recent: readonly PromptRunScore[]) =>
  currentAndPreviousScore(groupByPrompt(recent));

/**
 * Rounding happens only at the edge, when a figure is serialised: half away from zero, as by hand.
 * Binary floating point holds 77.45 as 77.4499999…; washing the scaled value to 12 significant
 * digits first puts such halves back on the half, so they round the way a reader's check does.
 */
export function roundTo(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  const scaled = Number((Math.abs(value) * factor).toPrecision(12));
  return (Math.sign(value) * Math.round(scaled)) / factor || 0;
}
export const roundScore = (v: number) => roundTo(v, 1);
export const roundRate = (v: number) => roundTo(v, 4);
export const roundRank = (v: number) => roundTo(v, 2);
