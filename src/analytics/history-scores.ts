import type { Db } from '../db/connect.ts';
import {
  eligiblePromptScoreRows,
  firstScoredAtByCategory,
  latestScoresAt,
  type SampledPromptRunScore,
} from '../db/scores.ts';
import type { Window } from '../domain/windows.ts';

// What a score history or a windowed delta reads: not the whole history, but each eligible
// prompt's latest score at the window's start, the scores inside the window, and when the
// scope's first scored run finished. Only `all` reads every score.

export interface HistoryScores {
  before: SampledPromptRunScore[];
  within: SampledPromptRunScore[];
  firstScoredAt: string | null;
}

/** The scores of one category of a brand's history. */
export function ofCategory(scores: BrandHistoryScores, categoryId: number): HistoryScores {
  return {
    before: scores.before.filter((s) => s.categoryId === categoryId),
    within: scores.within.filter((s) => s.categoryId === categoryId),
    firstScoredAt: scores.firstScoredAt.get(categoryId) ?? null,
  };
}

export interface BrandHistoryScores extends Omit<HistoryScores, 'firstScoredAt'> {
  /** Per category. */
  firstScoredAt: Map<number, string>;
}

/** The scores of a brand's (or some categories') history for one window, per category. */
export async function categoryHistoryScores(
  db: Db,
  orgId: number,
  scope: { brandId: number; categoryIds?: readonly number[] },
  window: Window,
): Promise<BrandHistoryScores> {
  const start = window.start?.toISOString();
  const [before, within, firstScoredAt] = await Promise.all([
    start === undefined ? [] : latestScoresAt(db, orgId, scope, start),
    eligiblePromptScoreRows(
      db,
      orgId,
      { brandIds: [scope.brandId], ...(scope.categoryIds ? { categoryIds: scope.categoryIds } : {}) },
      { ...(start === undefined ? {} : { scoredFrom: start }), scoredBefore: window.end.toISOString() },
    ),
    firstScoredAtByCategory(db, orgId, scope),
  ]);
  return { before, within, firstScoredAt };
}

/** The scores of a brand's (or one category's) history for one window, all categories together. */
export async function historyScores(
  db: Db,
  orgId: number,
  scope: { brandId: number; categoryIds?: readonly number[] },
  window: Window,
): Promise<HistoryScores> {
  const scores = await categoryHistoryScores(db, orgId, scope, window);
  const firsts = [...scores.firstScoredAt.values()].sort();
  return { before: scores.before, within: scores.within, firstScoredAt: firsts[0] ?? null };
}
