import {
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
import { VersionedCache } from '../domain/versioned-cache.ts';
import { startingAt, type Window } from '../domain/windows.ts';

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

type Bounds = Awaited<ReturnType<typeof observationBounds>>;
type Sums = WindowSide & { domains: MentionDomain[] };
type Kept = { bounds: Bounds; competitors: CompetitorInfo[] } | Sums;

// A rough measure of what a kept value holds: its rows, at a few hundred bytes each.
const BYTES_PER_ROW = 200;
const rowsOf = (kept: Kept): number =>
  'bounds' in kept
    ? 1 + kept.competitors.length
    : kept.classification.usable.length +
      kept.observations.length +
      kept.mentions.length +
      kept.citations.length +
      kept.domains.length +
      kept.perPrompt.observations.length +
      kept.perPrompt.mentions.length +
      kept.perPrompt.citations.length;

/**
 * Window sums kept per data version (docs/performance.md, "Analytics cache"). A side is kept under
 * its scope, its whole blocks and, for each end read per run, which runs finished there: a rolling
 * window whose ends moved with the clock but passed no run reads the same rows, so it is served
 * the same sums.
 */
export class AnalyticsCache extends VersionedCache<Kept> {
  constructor(maxBytes: number) {
    super(maxBytes, (kept) => rowsOf(kept) * BYTES_PER_ROW);
  }
}

/** A cache and the data version the caller read before its first query. */
export interface CacheUse {
  cache: AnalyticsCache;
  version: string;
}

async function kept<T extends Kept>(
  use: CacheUse | undefined,
  key: string,
  load: () => Promise<T>,
): Promise<T> {
  if (!use) return load();
  const ticket = use.cache.lookup(use.version, key);
  if (ticket.hit) return ticket.hit as T;
  const value = await load();
  use.cache.store(ticket, value);
  return value;
}

/** One side of the comparison; the sources of each entity are read for the current side only. */
async function side(
  db: Db,
  scope: Scope,
  span: Cover,
  withDomains: boolean,
): Promise<WindowSide & { domains: MentionDomain[] }> {
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
  const { bounds, competitors } = await kept(use, `${scopeKey} bounds`, async () => {
    const [bounds, competitors] = await Promise.all([
      observationBounds(db, scope),
      brandCompetitors(db, scope.orgId, scope.brandId),
    ]);
    return { bounds, competitors };
  });
  const window = startingAt(requested, bounds.earliest ? new Date(bounds.earliest) : null);
  const previous = window.previous;
  const spans = [
    cover(window.start.getTime(), window.end.getTime()),
    ...(previous ? [cover(previous.start.getTime(), previous.end.getTime())] : []),
  ];
  const runsAtEnds = use
    ? await runSpans(
        db,
        scope,
        spans.flatMap((span) => span.edges),
      )
    : [];
  let edge = 0;
  const sideOf = (span: Cover, withDomains: boolean) => {
    const ends = span.edges.map(() => runsAtEnds[edge++] ?? 'none').join(' ');
    return kept(use, `${scopeKey} side ${withDomains} ${span.blocks.join(',')} ${ends}`, () =>
      side(db, scope, span, withDomains),
    );
  };
  const [currentSpan, previousSpan] = spans;
  const [current, before] = await Promise.all([
    sideOf(currentSpan as Cover, true),
    previousSpan ? sideOf(previousSpan, false) : null,
  ]);
  return {
    window,
    earliestObservationAt: bounds.earliest,
    comparableFrom: bounds.comparableFrom,
    competitors,
    current,
    previous: before,
  };
}
