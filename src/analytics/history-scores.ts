import { analyticsStamps, runSpans } from '../db/analytics.ts';
import type { Db } from '../db/connect.ts';
import {
  eligiblePromptScoreRows,
  firstScoredAtByCategory,
  latestScoresAt,
  type SampledPromptRunScore,
} from '../db/scores.ts';
import { smallestBlockStart } from '../domain/blocks.ts';
import { continued, type History, historyOf, historyPart } from '../domain/score-history.ts';
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

type HistoryScope = { brandId: number; categoryIds?: readonly number[] };

/** The visible scores of the scope's eligible prompts in [from, before). */
const scoresIn = (db: Db, orgId: number, scope: HistoryScope, from: string | undefined, before: string) =>
  eligiblePromptScoreRows(
    db,
    orgId,
    { brandIds: [scope.brandId], ...(scope.categoryIds ? { categoryIds: scope.categoryIds } : {}) },
    { ...(from === undefined ? {} : { scoredFrom: from }), scoredBefore: before },
  );

/** Each eligible prompt's latest score at the window's start (none for all time), and the scores inside it. */
async function windowScores(db: Db, orgId: number, scope: HistoryScope, window: Window) {
  const start = window.start?.toISOString();
  const [before, within] = await Promise.all([
    start === undefined ? [] : latestScoresAt(db, orgId, scope, start),
    scoresIn(db, orgId, scope, start, window.end.toISOString()),
  ]);
  return { before, within };
}

/** The scores of a brand's (or some categories') history for one window, per category. */
export async function categoryHistoryScores(
  db: Db,
  orgId: number,
  scope: HistoryScope,
  window: Window,
): Promise<BrandHistoryScores> {
  const [scores, firstScoredAt] = await Promise.all([
    windowScores(db, orgId, scope, window),
    firstScoredAtByCategory(db, orgId, scope),
  ]);
  return { ...scores, firstScoredAt };
}

/** When the first of some categories' scored runs finished. */
const earliest = (firsts: Map<number, string>) => [...firsts.values()].sort()[0] ?? null;

const EPOCH = new Date(0).toISOString();
const named = (spans: readonly (string | null)[]) => spans.map((span) => span ?? 'none').join(' ');

/**
 * A brand's (or one category's) score history for one window: its points and windowed delta.
 * With `use`, a history computed from the same runs under the same stamp is served from the cache:
 * the runs at or before the window's start (each prompt's score there) and the runs inside it, or
 * every run before its end for all time. Otherwise it is read in two parts: up to the start of the
 * smallest block holding its end, kept on its own (a new run lands after it, so the part stays
 * valid under its own stamp), and the last few days, read again.
 */
export async function scoreHistory(
  db: Db,
  orgId: number,
  scope: HistoryScope,
  window: Window,
  use?: CacheUse,
): Promise<History> {
  const whole = async () => {
    const [scores, firsts] = await Promise.all([
      windowScores(db, orgId, scope, window),
      firstScoredAtByCategory(db, orgId, scope),
    ]);
    return historyOf(historyPart(scores.before, scores.within), earliest(firsts), window);
  };
  if (!use) return whole();
  const endMs = window.end.getTime();
  const end = window.end.toISOString();
  const start = window.start;
  const splitMs = smallestBlockStart(endMs - 1);
  const split = start === null || splitMs > start.getTime() ? new Date(splitMs).toISOString() : null;
  // At or before the start (times are stored to the millisecond): the boundary scores include a
  // run finishing at that instant.
  const upToStart =
    start === null ? [] : [{ start: EPOCH, end: new Date(start.getTime() + 1).toISOString() }];
  const from = start === null ? EPOCH : start.toISOString();
  // Every score up to the window's end counts (the prompts' latest at its start among them); up to
  // the split for the part before it.
  const stampsOf = async (to: number) =>
    (await analyticsStamps(db, orgId, scope, [{ startMs: 0, endMs: to }]))[0];
  const spansOf = (to: string) =>
    runSpans(db, { orgId, brandId: scope.brandId }, [...upToStart, { start: from, end: to }]);
  const [spans, stamp] = await Promise.all([spansOf(end), stampsOf(endMs)]);
  const scopeKey = `${orgId} ${scope.brandId} ${scope.categoryIds?.join(',') ?? '-'} ${start === null ? 'all' : 'from'}`;
  const load = async (): Promise<History> => {
    if (!split) return whole();
    const [partSpans, partStamp] = await Promise.all([spansOf(split), stampsOf(splitMs)]);
    const [part, last, firsts] = await Promise.all([
      kept(
        use,
        `history part ${scopeKey} ${named(partSpans)} ${split} ${partStamp}`,
        async () => {
          const scores = await windowScores(db, orgId, scope, { ...window, end: new Date(splitMs) });
          return historyPart(scores.before, scores.within);
        },
        (value) => value.points.length + value.state.length + value.scores.length,
        async () => (await stampsOf(splitMs)) === partStamp,
      ),
      scoresIn(db, orgId, scope, split, end),
      firstScoredAtByCategory(db, orgId, scope),
    ]);
    return historyOf(continued(part, last), earliest(firsts), window);
  };
  const history = await kept(
    use,
    `history ${scopeKey} ${named(spans)} ${stamp}`,
    load,
    (value) => value.points.length + 1,
    async () => (await stampsOf(endMs)) === stamp,
  );
  // Two windows over the same runs may still be named differently (30d, since a date).
  return { ...history, delta: { ...history.delta, spanLabel: window.spanLabel } };
}
