import {
  analyticsStamps,
  brandCompetitors,
  categoryRunSpans,
  categoryStamps,
  observationBounds,
  runSpans,
  type Scope,
  windowCoverage,
  windowPartSums,
} from '../db/analytics.ts';
import type { Db } from '../db/connect.ts';
import {
  type CompetitorInfo,
  type CompetitorMentions,
  classify,
  type DomainCitations,
  type MentionDomain,
  type Side,
} from '../domain/analytics.ts';
import { type Cover, cover, lastDayCut } from '../domain/blocks.ts';
import { coverageOf, sumsOf } from '../domain/window-parts.ts';
import { startingAt, type Window } from '../domain/windows.ts';
import { type CacheUse, kept } from './cache.ts';

// Everything the analytics blocks of one window need, fetched in two rounds: per-prompt coverage
// first (which prompts fall back to legacy answers is decided from it), then the observation,
// entity and citation sums of exactly the usable rows, both over the window and per prompt (the
// intervals' clusters).

const iso = (ms: number) => new Date(ms).toISOString();

export interface WindowSide extends Side {
  mentions: CompetitorMentions[];
  citations: DomainCitations[];
}

export interface WindowData {
  window: Window & { start: Date };
  earliestObservationAt: string | null;
  comparableFrom: string | null;
  competitors: CompetitorInfo[];
  current: WindowSide & { domains: MentionDomain[] };
  previous: WindowSide | null;
}

type Sums = WindowSide & { domains: MentionDomain[] };

type Lists = readonly unknown[];
interface Counted {
  observations: Lists;
  mentions: Lists;
  domains: Lists;
  perPrompt: { observations: Lists; mentions: Lists; citations: Lists };
}

/** What a kept side or part holds, in rows (analytics/cache.ts sizes the cache by them). */
const rowsIn = (sums: Counted, ...more: Lists[]): number =>
  [
    sums.observations,
    sums.mentions,
    sums.domains,
    sums.perPrompt.observations,
    sums.perPrompt.mentions,
    sums.perPrompt.citations,
    ...more,
  ].reduce((rows, list) => rows + list.length, 0);

/**
 * One part of a side, the rows of `scope` (when narrower than the side's: one category of a brand)
 * in `span`; and, for a part kept on its own, its name in the cache.
 */
interface Part {
  span: Cover;
  scope?: Scope;
  /** Settled when the name is read: the part's other reads need not wait for it. */
  kept?: PartName | Promise<PartName | undefined>;
}

interface PartName {
  key: string;
  unchanged: () => Promise<boolean>;
}

/**
 * One side of the comparison from its parts: their coverage decides the fallback prompts, then
 * their sums of exactly the usable rows are read and added up. A part with a name is kept under
 * it (with `use`); the sources of each entity are read for the current side only.
 */
async function sideSums(
  db: Db,
  scope: Scope,
  parts: readonly Part[],
  withDomains: boolean,
  use: CacheUse | undefined,
): Promise<Sums> {
  const each = <T>(what: string, load: (part: Part) => Promise<T>, rows: (value: T) => number) =>
    Promise.all(
      parts.map(async (part) => {
        const name = await part.kept;
        return name ? kept(use, `${what} ${name.key}`, () => load(part), rows, name.unchanged) : load(part);
      }),
    );
  const coverage = await each(
    'coverage',
    (part) => windowCoverage(db, part.scope ?? scope, part.span),
    (groups) => groups.length,
  );
  const classification = classify(coverageOf(coverage));
  const legacy = classification.legacyPrompts;
  const sums = await each(
    `sums ${withDomains} ${[...legacy].sort((a, b) => a - b).join(',')}`,
    (part) =>
      windowPartSums(
        db,
        { scope: part.scope ?? scope, cover: part.span, legacyPrompts: legacy },
        withDomains,
      ),
    (sums) => rowsIn(sums, sums.urls),
  );
  return { classification, ...sumsOf(sums) };
}

/**
 * The window's sums. With `use`, sums already computed under the same data version are served
 * from the cache (the HTTP routes); without, everything is read afresh (reports, recommendations).
 * Each side is read in two parts, the days before the (UTC) day holding its end and that day's
 * stretch (docs/performance.md, "A window side kept in two parts"), the latter for a brand by
 * category ("The last day kept by category"), with or without a cache, so that both add the same
 * sums in the same order.
 */
export async function loadWindow(
  db: Db,
  scope: Scope,
  requested: Window,
  use?: CacheUse,
): Promise<WindowData> {
  const scopeKey = `${scope.orgId} ${scope.brandId} ${scope.categoryId ?? '-'}`;
  const { bounds, competitors } = await kept(
    use,
    `${scopeKey} bounds`,
    async () => {
      const [bounds, competitors] = await Promise.all([
        observationBounds(db, scope),
        brandCompetitors(db, scope.orgId, scope.brandId),
      ]);
      return { bounds, competitors };
    },
    (value) => 1 + value.competitors.length,
  );
  const window = startingAt(requested, bounds.earliest ? new Date(bounds.earliest) : null);
  const previous = window.previous;
  // The current side, and the one it is compared with: their time ranges, day-block covers, and
  // the range and cover of the part before the day holding each one's end, when it has two.
  const sides = [window, ...(previous ? [previous] : [])].map((side) => {
    const range = { startMs: side.start.getTime(), endMs: side.end.getTime() };
    const cut = lastDayCut(range.startMs, range.endMs);
    const head = cut === null ? null : { startMs: range.startMs, endMs: cut };
    return {
      range,
      span: cover(range.startMs, range.endMs),
      head: head && { range: head, span: cover(head.startMs, head.endMs) },
      tail:
        cut === null ? null : { range: { startMs: cut, endMs: range.endMs }, span: cover(cut, range.endMs) },
    };
  });
  const stampsOf = (of: readonly { startMs: number; endMs: number }[]) =>
    analyticsStamps(
      db,
      scope.orgId,
      {
        brandId: scope.brandId,
        ...(scope.categoryId === undefined ? {} : { categoryIds: [scope.categoryId] }),
      },
      of,
    );
  // The names of some ranges in the cache: their blocks, the runs at their ends, their stamp; and
  // the check that the stamp has not moved. Without a cache, nothing is named.
  const namesOf = async (parts: readonly { range: { startMs: number; endMs: number }; span: Cover }[]) => {
    if (!use) return parts.map(() => undefined);
    const [runsAtEnds, stamps] = await Promise.all([
      runSpans(
        db,
        scope,
        parts.flatMap((part) => part.span.edges),
      ),
      stampsOf(parts.map((part) => part.range)),
    ]);
    let edge = 0;
    return parts.map((part, i) => {
      const ends = part.span.edges.map(() => runsAtEnds[edge++] ?? 'none').join(' ');
      const stamp = stamps[i] ?? '';
      return {
        key: `${scopeKey} ${part.span.blocks.join(',')} ${ends} ${stamp}`,
        unchanged: async () => (await stampsOf([part.range]))[0] === stamp,
      };
    });
  };
  // A brand's part for the day holding a side's end, one per category, each named (with a cache)
  // by its category's stamp: a run refreshed in one category re-reads that category's day alone.
  // Every read, kept or not, adds the same parts in the same order.
  const lastDayParts = async (tail: { range: { startMs: number; endMs: number }; span: Cover }) => {
    if (scope.categoryId !== undefined) return [{ span: tail.span }];
    const stampsNow = () => categoryStamps(db, scope.orgId, scope.brandId, tail.range);
    const day = { start: iso(tail.range.startMs), end: iso(tail.range.endMs) };
    const [runs, stamps] = await Promise.all([
      use ? categoryRunSpans(db, scope.orgId, scope.brandId, day) : new Map<number, string>(),
      stampsNow(),
    ]);
    return stamps.map(
      ({ categoryId, stamp }): Part => ({
        span: tail.span,
        scope: { ...scope, categoryId },
        ...(use && {
          kept: {
            key: `${scopeKey} day of category ${categoryId} ${tail.span.blocks.join(',')} ${runs.get(categoryId) ?? 'none'} ${stamp}`,
            unchanged: async () =>
              (await stampsNow()).find((now) => now.categoryId === categoryId)?.stamp === stamp,
          },
        }),
      }),
    );
  };
  // The sides are named on every request; a side's parts only when the side is not kept.
  const names = await namesOf(sides);
  const sideOf = (index: number, withDomains: boolean) => {
    const side = sides[index] as (typeof sides)[number];
    const name = names[index];
    const load = async () => {
      if (!side.head || !side.tail) return sideSums(db, scope, [{ span: side.span }], withDomains, use);
      // The part before the last day is named while the last day's parts are read.
      const head = namesOf([side.head]).then(([name]) => name);
      // Awaited in sideSums; a failure of lastDayParts first must not leave it unhandled.
      head.catch(() => {});
      const lastDay = await lastDayParts(side.tail);
      return sideSums(db, scope, [{ span: side.head.span, kept: head }, ...lastDay], withDomains, use);
    };
    return kept(
      use,
      `side ${withDomains} ${name?.key}`,
      load,
      (sums) => rowsIn(sums, sums.classification.usable, sums.citations),
      name?.unchanged,
    );
  };
  const [current, before] = await Promise.all([sideOf(0, true), sides.length > 1 ? sideOf(1, false) : null]);
  return {
    window,
    earliestObservationAt: bounds.earliest,
    comparableFrom: bounds.comparableFrom,
    competitors,
    current,
    previous: before,
  };
}
