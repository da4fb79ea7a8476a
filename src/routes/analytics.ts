import { categoryDeltas, scoreHistory } from '../analytics/history-scores.ts';
import { loadWindow } from '../analytics/window.ts';
import { latestScoredRuns } from '../db/analytics-changes.ts';
import { findPromptRef, liveCategoryIds } from '../db/analytics-scope.ts';
import { findBrandRef } from '../db/brands.ts';
import { findCategoryWithBrand } from '../db/categories.ts';
import { digestRun, promptChanges } from '../domain/prompt-changes.ts';
import { parseHistory, parseRange } from '../domain/windows.ts';
import type { CsvRows } from '../http/csv.ts';
import { keyedGet } from '../http/endpoint.ts';
import type { App } from '../http/types.ts';
import {
  Analytics,
  AnalyticsQuery,
  BrandParams,
  CategoryDeltas,
  CategoryParams,
  DeltasQuery,
  HistoryQuery,
  PromptChanges,
  PromptParams,
  ScoreHistory,
} from '../schemas/analytics.ts';
import { responses } from '../schemas/common.ts';
import { presentAnalytics, presentDelta, presentHistory } from '../serializers/analytics.ts';

// Analytics, score history, category deltas and the prompt change feed. Figures are rounded by
// the serializers (src/serializers/analytics.ts), which reports share.

// A CSV answer lists one block of the body, chosen with `block` (docs/csv.md).
const ANALYTICS_ROWS: CsvRows = {
  rows: [
    'metrics',
    'shareOfVoice.visible',
    'shareOfVoice.hidden',
    'sources.items',
    'platforms.apiPlatforms',
    'platforms.surfacePlatforms',
    'coverage',
    'window',
  ],
};
const HISTORY_ROWS: CsvRows = { rows: ['points'] };

export async function analyticsRoutes(app: App): Promise<void> {
  const db = app.dbs.read;
  const scope = 'brands:read';
  const tags = ['analytics'];

  const brandOf = (orgId: number, brandId: number) => findBrandRef(db, orgId, brandId);
  // The data version is read before the window's first query (domain/versioned-cache.ts).
  const cacheUse = async () => {
    const cache = app.analyticsCache;
    return cache
      ? { cache, version: await app.dbs.dataVersion(), versionNow: app.dbs.dataVersionInProcess }
      : undefined;
  };

  const categoryOf = (orgId: number, categoryId: number) => findCategoryWithBrand(db, orgId, categoryId);
  // The object the path names, and the cache's use with the data version read beside its lookup:
  // on PostgreSQL each is a round trip, and the version need only precede the window's reads.
  // A missing object answers 404 whatever the version read did.
  const withCacheUse = async <T>(lookup: Promise<T | undefined>) => {
    const use = cacheUse();
    use.catch(() => {});
    const named = await lookup;
    return named === undefined ? undefined : { named, use: await use };
  };

  keyedGet(app, '/api/brands/:brand_id/analytics/', {
    scope,
    csv: ANALYTICS_ROWS,
    schema: {
      operationId: 'getBrandAnalytics',
      tags,
      summary: 'Date-range analytics of a brand, across its categories’ eligible prompts',
      params: BrandParams,
      querystring: AnalyticsQuery,
      response: responses(Analytics),
    },
    find: (request, caller) => withCacheUse(brandOf(caller.organization.id, request.params.brand_id)),
    query: (request, caller) => parseRange(request.query, app.clock(), caller.organization.timezone),
    handler: async (_request, { caller, found: { named: brand, use }, query: window }) => {
      const org = caller.organization;
      const data = await loadWindow(db, { orgId: org.id, brandId: brand.id }, window, use);
      return presentAnalytics(data, { ...brand, categoryId: null });
    },
  });

  keyedGet(app, '/api/categories/:category_id/analytics/', {
    scope,
    csv: ANALYTICS_ROWS,
    schema: {
      operationId: 'getCategoryAnalytics',
      tags,
      summary: 'Date-range analytics of one category',
      params: CategoryParams,
      querystring: AnalyticsQuery,
      response: responses(Analytics),
    },
    find: (request, caller) => withCacheUse(categoryOf(caller.organization.id, request.params.category_id)),
    query: (request, caller) => parseRange(request.query, app.clock(), caller.organization.timezone),
    handler: async (_request, { caller, found: { named, use }, query: window }) => {
      const { category, brand } = named;
      const org = caller.organization;
      const data = await loadWindow(
        db,
        { orgId: org.id, brandId: brand.id, categoryId: category.id },
        window,
        use,
      );
      return presentAnalytics(data, { ...brand, categoryId: category.id });
    },
  });

  keyedGet(app, '/api/brands/:brand_id/score-history/', {
    scope,
    csv: HISTORY_ROWS,
    schema: {
      operationId: 'getBrandScoreHistory',
      tags,
      summary: 'Score of a brand as of each scored run, with the windowed delta',
      params: BrandParams,
      querystring: HistoryQuery,
      response: responses(ScoreHistory),
    },
    find: (request, caller) => withCacheUse(brandOf(caller.organization.id, request.params.brand_id)),
    query: (request, caller) => parseHistory(request.query, app.clock(), caller.organization.timezone),
    handler: async (_request, { caller, found: { named: brand, use }, query: { window, limit } }) => {
      const org = caller.organization;
      const history = await scoreHistory(db, org.id, { brandId: brand.id }, window, use);
      return presentHistory(history, limit);
    },
  });

  keyedGet(app, '/api/categories/:category_id/score-history/', {
    scope,
    csv: HISTORY_ROWS,
    schema: {
      operationId: 'getCategoryScoreHistory',
      tags,
      summary: 'Score of a category as of each scored run, with the windowed delta',
      params: CategoryParams,
      querystring: HistoryQuery,
      response: responses(ScoreHistory),
    },
    find: (request, caller) => withCacheUse(categoryOf(caller.organization.id, request.params.category_id)),
    query: (request, caller) => parseHistory(request.query, app.clock(), caller.organization.timezone),
    handler: async (_request, { caller, found: { named, use }, query: { window, limit } }) => {
      const { category, brand } = named;
      const org = caller.organization;
      const history = await scoreHistory(
        db,
        org.id,
        { brandId: brand.id, categoryIds: [category.id] },
        window,
        use,
      );
      return presentHistory(history, limit);
    },
  });

  keyedGet(app, '/api/brands/:brand_id/category-deltas/', {
    scope,
    csv: { rows: ['deltas'], keyColumn: 'categoryId' },
    schema: {
      operationId: 'getBrandCategoryDeltas',
      tags,
      summary: 'Windowed score delta of every non-archived category of a brand',
      params: BrandParams,
      querystring: DeltasQuery,
      response: responses(CategoryDeltas),
    },
    find: (request, caller) => withCacheUse(brandOf(caller.organization.id, request.params.brand_id)),
    // Only the parameters it declares: a `limit` it takes no notice of is ignored, not judged.
    query: (request, caller) => {
      const { since, range, start, end } = request.query;
      return parseHistory({ since, range, start, end }, app.clock(), caller.organization.timezone);
    },
    handler: async (_request, { caller, found: { named: brand, use }, query: { window } }) => {
      const org = caller.organization;
      const categoryIds = await liveCategoryIds(db, org.id, brand.id);
      const byCategory = await categoryDeltas(db, org.id, brand.id, categoryIds, window, use);
      const deltas: Record<string, ReturnType<typeof presentDelta>> = {};
      for (const [categoryId, delta] of byCategory) deltas[String(categoryId)] = presentDelta(delta);
      return { deltas };
    },
  });

  keyedGet(app, '/api/prompts/:prompt_id/changes/', {
    scope: 'runs:read',
    cached: true,
    schema: {
      operationId: 'getPromptChanges',
      tags,
      summary: 'What changed in a prompt’s latest scored run against the one before',
      params: PromptParams,
      response: responses(PromptChanges),
    },
    find: (request, caller) => findPromptRef(db, caller.organization.id, request.params.prompt_id),
    handler: async (_request, { caller, found: prompt }) => {
      const runs = await latestScoredRuns(db, caller.organization.id, prompt.id);
      const [latest, previous] = runs.map((run) => digestRun(run.runId, run.observations, run.competitors));
      return promptChanges(latest ?? null, previous ?? null);
    },
  });
}
