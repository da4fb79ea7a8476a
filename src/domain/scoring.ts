// The one scoring methodology (decisions.md, "Scoring"). Pure functions: the dashboard, the API,
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

function byTime(a: PromptRunScore, b: PromptRunScore): number {
  return a.scoredAt < b.scoredAt ? -1 : a.scoredAt > b.scoredAt ? 1 : a.runId - b.runId;
}

/** Each prompt's scores in time order, oldest first. */
export function groupByPrompt(scores: readonly PromptRunScore[]): Map<number, PromptRunScore[]> {
  const byPrompt = new Map<number, PromptRunScore[]>();
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
export function scoreAsOf(byPrompt: Map<number, PromptRunScore[]>, asOf: string | null = null): number | null {
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

/** Rounding happens only at the edge, when a figure is serialised. */
export function roundTo(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round((value + Number.EPSILON) * factor) / factor;
}
export const roundScore = (v: number) => roundTo(v, 1);
export const roundRate = (v: number) => roundTo(v, 4);
export const roundRank = (v: number) => roundTo(v, 2);
