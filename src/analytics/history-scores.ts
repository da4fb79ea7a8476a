import { analyticsStamps, runSpans } from '../db/analytics.ts';
import type { Db } from '../db/connect.ts';
import {
  eligiblePromptScoreRows,
  firstScoredAtByCategory,
  latestScoresAt,
  type SampledPromptRunScore,
} from '../db/scores.ts';
import { lastDayCut } from '../domain/blocks.ts';
import {
  continued,
  type History,
  historyOf,
  historyPart,
  type WindowedDelta,
} from '../domain/score-history.ts';
import type { Window } from '../domain/windows.ts';
import { type CacheUse, kept } from './cache.ts';

// What a score history or a windowed delta reads: not the whole history, but each eligible
// prompt's latest score at the window's start, the scores inside the window, and when the
// scope's first scored run finished. Only `all` reads every score.

/** The scores of one category of a brand's history, and when its first scored run finished. */
function ofCategory(scores: BrandHistoryScores, categoryId: number) {
  return {
    before: scores.before.filter((s) => s.categoryId === categoryId),
    within: scores.within.filter((s) => s.categoryId === categoryId),
    firstScoredAt: scores.firstScoredAt.get(categoryId) ?? null,
  };
}

interface BrandHistoryScores {
  before: SampledPromptRunScore[];
  within: SampledPromptRunScore[];
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

/**
 * Each eligible prompt's latest score before the window's start (none for all time), and the scores
 * inside it: from the start, a run finishing at that instant included (historyPart).
 */
async function windowScores(db: Db, orgId: number, scope: HistoryScope, window: Window) {
  const start = window.start?.toISOString();
  const [before, within] = await Promise.all([
    // Times are stored to the millisecond: at or before the one before the start is before it.
    window.start === null
      ? []
      : latestScoresAt(db, orgId, scope, new Date(window.start.getTime() - 1).toISOString()),
    scoresIn(db, orgId, scope, start, window.end.toISOString()),
  ]);
  return { before, within };
}

/** The scores of a brand's (or some categories') history for one window, per category. */
async function categoryHistoryScores(
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
 * What names a value computed from a window's scores up to some instant in the cache: the runs at
 * or before the window's start (each prompt's score there) and the runs from its start to that
 * instant, and the stamp of everything before it (every score up to it counts, the prompts'
 * latest at the start among them); and the check that the stamp has not moved once the value is
 * computed.
 */
function historyNames(db: Db, orgId: number, scope: HistoryScope, window: Window) {
  const start = window.start;
  // At or before the start (times are stored to the millisecond): the boundary scores include a
  // run finishing at that instant.
  const upToStart =
    start === null ? [] : [{ start: EPOCH, end: new Date(start.getTime() + 1).toISOString() }];
  const from = start === null ? EPOCH : start.toISOString();
  const stampOf = async (toMs: number) =>
    (await analyticsStamps(db, orgId, scope, [{ startMs: 0, endMs: toMs }]))[0];
  return async (toMs: number) => {
    const [spans, stamp] = await Promise.all([
      runSpans(db, { orgId, brandId: scope.brandId }, [
        ...upToStart,
        { start: from, end: new Date(toMs).toISOString() },
      ]),
      stampOf(toMs),
    ]);
    return {
      key: `${orgId} ${scope.brandId} ${scope.categoryIds?.join(',') ?? '-'} ${start === null ? 'all' : 'from'} ${named(spans)} ${stamp}`,
      unchanged: async () => (await stampOf(toMs)) === stamp,
    };
  };
}

/**
 * A brand's (or one category's) score history for one window: its points and windowed delta.
 * With `use`, a history computed from the same runs under the same stamp is served from the cache
 * (historyNames). Otherwise it is read in two parts: up to the start of the (UTC) day holding its
 * end, kept on its own (a new run lands after it, so the part stays valid under its own stamp),
 * and that last day, read again.
 */
export async function scoreHistory(
  db: Db,
  orgId: number,
  scope: HistoryScope,
  window: Window,
  use?: CacheUse,
): Promise<History> {
  const whole = async () => {
    const scores = await categoryHistoryScores(db, orgId, scope, window);
    return historyOf(
      historyPart(scores.before, scores.within, window.start),
      earliest(scores.firstScoredAt),
      window,
    );
  };
  if (!use) return whole();
  const endMs = window.end.getTime();
  const split = lastDayCut(window.start?.getTime() ?? Number.NEGATIVE_INFINITY, endMs);
  const nameUpTo = historyNames(db, orgId, scope, window);
  const load = async (): Promise<History> => {
    if (split === null) return whole();
    const partName = await nameUpTo(split);
    const [part, last, firsts] = await Promise.all([
      kept(
        use,
        `history part ${partName.key}`,
        async () => {
          const scores = await windowScores(db, orgId, scope, { ...window, end: new Date(split) });
          return historyPart(scores.before, scores.within, window.start);
        },
        (value) => value.points.length + value.state.length + value.scores.length,
        partName.unchanged,
      ),
      scoresIn(db, orgId, scope, new Date(split).toISOString(), window.end.toISOString()),
      firstScoredAtByCategory(db, orgId, scope),
    ]);
    return historyOf(continued(part, last), earliest(firsts), window);
  };
  const name = await nameUpTo(endMs);
  const history = await kept(
    use,
    `history ${name.key}`,
    load,
    (value) => value.points.length + 1,
    name.unchanged,
  );
  return { ...history, delta: labelled(history.delta, window) };
}

// Two windows over the same runs may still be named differently (30d, since a date).
const labelled = (delta: WindowedDelta, window: Window): WindowedDelta => ({
  ...delta,
  spanLabel: window.spanLabel,
});

/**
 * The windowed delta of each of a brand's categories (`categoryIds`, its live ones), from one read
 * of the brand's scores; with `use`, kept as a score history is.
 */
export async function categoryDeltas(
  db: Db,
  orgId: number,
  brandId: number,
  categoryIds: readonly number[],
  window: Window,
  use?: CacheUse,
): Promise<Map<number, WindowedDelta>> {
  const load = async () => {
    const scores = await categoryHistoryScores(db, orgId, { brandId }, window);
    return new Map(
      categoryIds.map((categoryId) => {
        const own = ofCategory(scores, categoryId);
        return [
          categoryId,
          historyOf(historyPart(own.before, own.within, window.start), own.firstScoredAt, window).delta,
        ] as const;
      }),
    );
  };
  if (!use) return load();
  const name = await historyNames(db, orgId, { brandId }, window)(window.end.getTime());
  const deltas = await kept(
    use,
    `deltas ${categoryIds.join(',')} ${name.key}`,
    load,
    (value) => value.size + 1,
    name.unchanged,
  );
  return new Map([...deltas].map(([categoryId, delta]) => [categoryId, labelled(delta, window)]));
}
