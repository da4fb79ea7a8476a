// Everything a report shows, as the API serves it: each block is built by the very functions the
// analytics, score-history and prompt-changes endpoints call, for the same brand, window and
// moment. Reports never compute a figure of their own; they only choose and format these.

import { scoreHistory } from '../analytics/history-scores.ts';
import { loadWindow } from '../analytics/window.ts';
import { latestScoredRuns } from '../db/analytics-changes.ts';
import { liveCategories } from '../db/analytics-scope.ts';
import type { BrandRef } from '../db/brands.ts';
import type { Db } from '../db/connect.ts';
import { recommendationsPage } from '../db/recommendations.ts';
import { eligiblePrompts, type ReportOrganization, runFinishTimes } from '../db/report-lookups.ts';
import { digestRun, promptChanges } from '../domain/prompt-changes.ts';
import { parseHistory, parseRange, type RangeQuery } from '../domain/windows.ts';
import type { Parsed } from '../errors.ts';
import { presentAnalytics, presentHistory } from '../serializers/analytics.ts';
import { presentRecommendation, type Recommendation } from '../serializers/recommendations.ts';

/** The analytics response of a brand or a category, exactly as the API serves it. */
export type Analytics = ReturnType<typeof presentAnalytics>;
/** The score-history response. */
export type ScoreHistory = ReturnType<typeof presentHistory>;
export type PromptChangeFeed = ReturnType<typeof promptChanges>;
export type PromptChangeEntry = PromptChangeFeed['changes'][number];

export interface PromptChanges extends PromptChangeFeed {
  promptId: number;
  promptText: string;
  categoryName: string;
  /** The run the feed is about, and when it finished (the API names only the one compared to). */
  latestRunId: number | null;
  latestRunAt: string | null;
}

/** One scope (the brand, or one of its categories) over the report's window. */
export interface ScopeFigures {
  analytics: Analytics;
  scoreHistory: ScoreHistory;
}

export interface CategoryFigures extends ScopeFigures {
  id: number;
  name: string;
}

export interface ReportData {
  /** The moment the figures are as of (the analytics `asOf`). */
  generatedAt: string;
  organization: { name: string; timezone: string };
  brand: { id: number; name: string; website: string };
  /** Set when the report covers one category rather than the whole brand. */
  category: { id: number; name: string } | null;
  /** The brand's figures, or the category's when `category` is set. */
  scope: ScopeFigures;
  /** Per category, for the reports that break figures down (empty otherwise). */
  categories: CategoryFigures[];
  /** Prompt-level change feeds, for the reports that list them (empty otherwise). */
  promptChanges: PromptChanges[];
  /** Open recommendations (open or in progress), in the order the API lists them. */
  recommendations: Recommendation[];
}

/** What to gather: a checked request (see request.ts). */
export interface ReportRequestScope {
  organization: ReportOrganization;
  brand: BrandRef;
  category: { id: number; name: string } | null;
  /** The window parameters, as the analytics endpoints take them. */
  window: RangeQuery;
  now: Date;
  needs: ReportNeeds;
}

export interface ReportNeeds {
  /** Figures per category (brand-wide reports only). */
  categories: boolean;
  /**
   * Change feeds of every eligible prompt whose latest run ended before the window's end ('all'),
   * only those whose latest run is in the window, or none.
   */
  promptChanges: 'all' | 'window' | 'none';
}

function valid<T>(parsed: Parsed<T>): T {
  if (!parsed.ok) throw new Error(`invalid window: ${JSON.stringify(parsed.errors)}`);
  return parsed.value;
}

/** GET /api/brands/{id}/analytics/ and /score-history/ (or the category's) for the window. */
async function scopeFigures(
  db: Db,
  request: ReportRequestScope,
  categoryId: number | null,
): Promise<ScopeFigures> {
  const { organization, brand, window, now } = request;
  const scope = { orgId: organization.id, brandId: brand.id, ...(categoryId === null ? {} : { categoryId }) };
  const analyticsWindow = valid(parseRange(window, now, organization.timezone));
  const history = valid(parseHistory(window, now, organization.timezone));
  const [data, historyOfScope] = await Promise.all([
    loadWindow(db, scope, analyticsWindow),
    scoreHistory(
      db,
      organization.id,
      { brandId: brand.id, ...(categoryId === null ? {} : { categoryIds: [categoryId] }) },
      history.window,
    ),
  ]);
  return {
    analytics: presentAnalytics(data, { id: brand.id, name: brand.name, categoryId }),
    scoreHistory: presentHistory(historyOfScope, history.limit),
  };
}

/** GET /api/prompts/{id}/changes/ for each eligible prompt in scope. */
async function changeFeeds(db: Db, request: ReportRequestScope): Promise<PromptChanges[]> {
  const orgId = request.organization.id;
  const prompts = await eligiblePrompts(db, orgId, request.brand.id, request.category?.id ?? null);
  const feeds = await Promise.all(
    prompts.map(async (prompt) => {
      const [latest, previous] = (await latestScoredRuns(db, orgId, prompt.id)).map((run) =>
        digestRun(run.runId, run.observations, run.competitors),
      );
      return {
        prompt,
        latestRunId: latest?.runId ?? null,
        feed: promptChanges(latest ?? null, previous ?? null),
      };
    }),
  );
  const finished = await runFinishTimes(
    db,
    orgId,
    feeds.flatMap((f) => (f.latestRunId === null ? [] : [f.latestRunId])),
  );
  return feeds.map(({ prompt, latestRunId, feed }) => ({
    ...feed,
    promptId: prompt.id,
    promptText: prompt.text,
    categoryName: prompt.categoryName,
    latestRunId,
    latestRunAt: latestRunId === null ? null : (finished.get(latestRunId) ?? null),
  }));
}

const OPEN = new Set(['open', 'in_progress']);

/** What GET /api/brands/{id}/recommendations/ lists over all its pages, keeping what is still to be done. */
async function openRecommendations(db: Db, request: ReportRequestScope): Promise<Recommendation[]> {
  const all = await recommendationsPage(db, request.organization.id, request.brand.id, 'all');
  return all.filter((r) => OPEN.has(r.status)).map(presentRecommendation);
}

async function categoryBreakdown(db: Db, request: ReportRequestScope): Promise<CategoryFigures[]> {
  const categories = await liveCategories(db, request.organization.id, request.brand.id);
  return Promise.all(categories.map(async (c) => ({ ...c, ...(await scopeFigures(db, request, c.id)) })));
}

export async function gatherReportData(db: Db, request: ReportRequestScope): Promise<ReportData> {
  const { organization, brand, category, needs } = request;
  const [scope, categories, feeds, recommendations] = await Promise.all([
    scopeFigures(db, request, category?.id ?? null),
    needs.categories && category === null ? categoryBreakdown(db, request) : [],
    needs.promptChanges === 'none' ? [] : changeFeeds(db, request),
    openRecommendations(db, request),
  ]);
  const { start, end } = scope.analytics.window;
  const inWindow = (at: string | null) => at !== null && at >= start && at < end;
  // A prompt's change is between its latest two scored runs as of now: one whose latest run ended
  // after the window (a report on a past window) is news from later, not of that window.
  const byEnd = (at: string | null) => at === null || at < end;
  return {
    generatedAt: scope.analytics.window.asOf,
    organization: { name: organization.name, timezone: organization.timezone },
    brand: { id: brand.id, name: brand.name, website: brand.website },
    category,
    scope,
    categories,
    promptChanges: feeds.filter((f) =>
      needs.promptChanges === 'window' ? inWindow(f.latestRunAt) : byEnd(f.latestRunAt),
    ),
    recommendations,
  };
}

/**
 * evidenceRefsCount: the distinct monitoring runs the report cites — every score-history point
 * it charts, the run each windowed delta is as of, and both runs of each prompt change compared.
 */
export function evidenceRefsCount(data: ReportData): number {
  const runs = new Set<string>();
  for (const figures of [data.scope, ...data.categories]) {
    for (const point of figures.scoreHistory.points) runs.add(String(point.runId));
    const { asOfRunId } = figures.scoreHistory.windowedDelta;
    if (asOfRunId !== null) runs.add(String(asOfRunId));
  }
  for (const feed of data.promptChanges) {
    if (feed.latestRunId !== null) runs.add(String(feed.latestRunId));
    if (feed.comparedToRunId !== null) runs.add(String(feed.comparedToRunId));
  }
  return runs.size;
}
