import {
  analyticsStamps,
  brandCompetitors,
  observationBounds,
  runSpans,
  type Scope,
  windowCitations,
  windowCoverage,
  windowMentionDomains,
  windowMentions,
  windowObservations,
  windowPromptCitations,
  windowPromptMentions,
  windowPromptObservations,
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
import { type Cover, cover } from '../domain/blocks.ts';
import { startingAt, type Window } from '../domain/windows.ts';
import { type CacheUse, kept } from './cache.ts';

// Everything the analytics blocks of one window need, fetched in two rounds: per-prompt coverage
// first (which prompts fall back to legacy answers is decided from it), then the observation,
// entity and citation sums of exactly the usable rows, both over the window and per prompt (the
// intervals' clusters).

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

const rowsOf = (sums: Sums): number =>
  sums.classification.usable.length +
  sums.observations.length +
  sums.mentions.length +
  sums.citations.length +
  sums.domains.length +
  sums.perPrompt.observations.length +
  sums.perPrompt.mentions.length +
  sums.perPrompt.citations.length;

/** One side of the comparison; the sources of each entity are read for the current side only. */
async function sideSums(db: Db, scope: Scope, span: Cover, withDomains: boolean): Promise<Sums> {
  const classification = classify(await windowCoverage(db, scope, span));
  const legacy = classification.legacyPrompts;
  const [observations, mentions, citations, domains, promptObservations, promptMentions, promptCitations] =
    await Promise.all([
      windowObservations(db, scope, span, legacy),
      windowMentions(db, scope, span, legacy),
      windowCitations(db, scope, span, legacy),
      withDomains ? windowMentionDomains(db, scope, span, legacy) : [],
      windowPromptObservations(db, scope, span, legacy),
      windowPromptMentions(db, scope, span, legacy),
      windowPromptCitations(db, scope, span, legacy),
    ]);
  return {
    classification,
    observations,
    mentions,
    citations,
    domains,
    perPrompt: { observations: promptObservations, mentions: promptMentions, citations: promptCitations },
  };
}

/**
 * The window's sums. With `use`, sums already computed under the same data version are served
 * from the cache (the HTTP routes); without, everything is read afresh (reports, recommendations).
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
  // The current side, and the one it is compared with: their time ranges and day-block covers.
  const ranges = [window, ...(previous ? [previous] : [])].map((side) => ({
    startMs: side.start.getTime(),
    endMs: side.end.getTime(),
  }));
  const covers = ranges.map((range) => cover(range.startMs, range.endMs));
  const stampsOf = (of: typeof ranges) =>
    analyticsStamps(
      db,
      scope.orgId,
      {
        brandId: scope.brandId,
        ...(scope.categoryId === undefined ? {} : { categoryIds: [scope.categoryId] }),
      },
      of,
    );
  const [runsAtEnds, stamps] = use
    ? await Promise.all([
        runSpans(
          db,
          scope,
          covers.flatMap((span) => span.edges),
        ),
        stampsOf(ranges),
      ])
    : [[], []];
  let edge = 0;
  const sideOf = (side: number, withDomains: boolean) => {
    const span = covers[side] as Cover;
    const ends = span.edges.map(() => runsAtEnds[edge++] ?? 'none').join(' ');
    const stamp = stamps[side] ?? '';
    return kept(
      use,
      `${scopeKey} side ${withDomains} ${span.blocks.join(',')} ${ends} ${stamp}`,
      () => sideSums(db, scope, span, withDomains),
      rowsOf,
      async () => (await stampsOf([ranges[side] as (typeof ranges)[number]]))[0] === stamp,
    );
  };
  const [current, before] = await Promise.all([sideOf(0, true), covers.length > 1 ? sideOf(1, false) : null]);
  return {
    window,
    earliestObservationAt: bounds.earliest,
    comparableFrom: bounds.comparableFrom,
    competitors,
    current,
    previous: before,
  };
}
