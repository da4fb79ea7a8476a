import { analyticsStamps, runSpans } from '../db/analytics.ts';
import type { Db } from '../db/connect.ts';
import {
  eligiblePromptScoreRows,
  firstScoredAtByCategory,
  latestScoresAt,
  type SampledPromptRunScore,
} from '../db/scores.ts';
import { type History, historyOf } from '../domain/score-history.ts';
import type { Window } from '../domain/windows.ts';
import { type CacheUse, kept } from './cache.ts';

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
async function historyScores(
  db: Db,
  orgId: number,
  scope: { brandId: number; categoryIds?: readonly number[] },
  window: Window,
): Promise<HistoryScores> {
  const scores = await categoryHistoryScores(db, orgId, scope, window);
  const firsts = [...scores.firstScoredAt.values()].sort();
  return { before: scores.before, within: scores.within, firstScoredAt: firsts[0] ?? null };
}

const EPOCH = new Date(0).toISOString();

/**
 * A brand's (or one category's) score history for one window: its points and windowed delta.
 * With `use`, a history computed under the same data version from the same runs is served from
 * the cache: the runs at or before the window's start (each prompt's score there) and the runs
 * inside it, or every run before its end for all time.
 */
export async function scoreHistory(
  db: Db,
  orgId: number,
  scope: { brandId: number; categoryIds?: readonly number[] },
  window: Window,
  use?: CacheUse,
): Promise<History> {
  const load = async () => {
    const scores = await historyScores(db, orgId, scope, window);
    return historyOf(scores.before, scores.within, scores.firstScoredAt, window);
  };
  if (!use) return load();
  const end = window.end.toISOString();
  const start = window.start;
  const ranges =
    start === null
      ? [{ start: EPOCH, end }]
      : [
          // At or before the start (times are stored to the millisecond): the boundary scores
          // include a run finishing at that instant.
          { start: EPOCH, end: new Date(start.getTime() + 1).toISOString() },
          { start: start.toISOString(), end },
        ];
  // Every score up to the window's end counts: the prompts' latest at its start among them.
  const stampOf = async () =>
    (await analyticsStamps(db, orgId, scope, [{ startMs: 0, endMs: window.end.getTime() }]))[0];
  const [spans, stamp] = await Promise.all([
    runSpans(db, { orgId, brandId: scope.brandId }, ranges),
    stampOf(),
  ]);
  const key = `history ${orgId} ${scope.brandId} ${scope.categoryIds?.join(',') ?? '-'} ${spans
    .map((span) => span ?? 'none')
    .join(' ')} ${start === null ? 'all' : 'from'} ${stamp}`;
  const history = await kept(
    use,
    key,
    load,
    (value) => value.points.length + 1,
    async () => (await stampOf()) === stamp,
  );
  // Two windows over the same runs may still be named differently (30d, since a date).
  return { ...history, delta: { ...history.delta, spanLabel: window.spanLabel } };
}
