// A demo brand's monitoring history before it is written: its runs and, for each ask, what the
// engine answered and the script the answer was written from. Pure, so that a test can lay the
// scripts beside what the import's analyzer read from the same answers.
import { HISTORY_DAYS } from './brands.ts';
import type { BrandSpec } from './catalog.ts';
import { biasesOf, type Observation, observeRun } from './observations.ts';
import type { Prng } from './prng.ts';
import { type Ask, planRuns, type RunPlan } from './timeline.ts';

export interface HistoryRun {
  plan: RunPlan;
  /** In ask order. */
  observations: Observation[];
}

/** Every run of a brand, oldest first, with its answers. */
export function brandHistory(spec: BrandSpec, brandIndex: number, anchor: number, prng: Prng): HistoryRun[] {
  const bias = biasesOf(spec, prng.derive('bias'));
  const answers = prng.derive('answers');
  return planRuns(spec, brandIndex, anchor, prng.derive('timeline')).map((plan) => ({
    plan,
    observations: observeRun(spec, plan, HISTORY_DAYS, bias, answers),
  }));
}

/** An answer's own id (the import's externalKey): its run, prompt, model and which ask of them. */
export function answerKey(plan: RunPlan, ask: Ask): string {
  return `${plan.externalId}/p${ask.promptIndex + 1}/${ask.model}/${ask.repeat + 1}`;
}
