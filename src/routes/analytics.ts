import type { FastifyRequest } from 'fastify';
import { categoryHistoryScores, historyScores, ofCategory } from '../analytics/history-scores.ts';
import { loadWindow } from '../analytics/window.ts';
import { latestScoredRuns } from '../db/analytics-changes.ts';
import { findPromptRef, liveCategoryIds } from '../db/analytics-scope.ts';
import { findBrandRef } from '../db/brands.ts';
import { findCategoryRef } from '../db/categories.ts';
import { digestRun, promptChanges } from '../domain/prompt-changes.ts';
import { historySlice, windowedDelta } from '../domain/score-history.ts';
import { type Parsed, parseHistory, parseRange } from '../domain/windows.ts';
import { NotFound, ValidationFailed } from '../errors.ts';
import type { App } from '../http/types.ts';
import { rejectInvalidParams, rejectInvalidQuery } from '../http/validation.ts';
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

function caller(request: FastifyRequest) {
  if (!request.caller) throw new Error('keyed route reached without a caller');
  return request.caller.organization;
}

function valid<T>(parsed: Parsed<T>): T {
  if (!parsed.ok) throw new ValidationFailed(parsed.errors);
  return parsed.value;
}

export async function analyticsRoutes(app: App): Promise<void> {
  const brandsRead = { access: { scope: 'brands:read' as const } };

  async function brandOf(request: FastifyRequest, brandId: number) {
    rejectInvalidParams(request);
    const brand = await findBrandRef(app.dbs.read, caller(request).id, brandId);
    if (!brand) throw new NotFound();
    rejectInvalidQuery(request);
    return brand;
  }

  async function categoryOf(request: FastifyRequest, categoryId: number) {
    rejectInvalidParams(request);
    const category = await findCategoryRef(app.dbs.read, caller(request).id, categoryId);
    if (!category) throw new NotFound();
    rejectInvalidQuery(request);
    const brand = await findBrandRef(app.dbs.read, caller(request).id, category.brandId);
    if (!brand) throw new NotFound();
    return { category, brand };
  }

  app.get(
    '/api/brands/:brand_id/analytics/',
    {
      schema: {
        tags: ['analytics'],
        summary: 'Date-range analytics of a brand, across its categories’ eligible prompts',
        params: BrandParams,
        querystring: AnalyticsQuery,
        response: responses(Analytics),
      },
      config: brandsRead,
    },
    async (request) => {
      const brand = await brandOf(request, request.params.brand_id);
      const org = caller(request);
      const window = valid(parseRange(request.query, app.clock(), org.timezone));
      const data = await loadWindow(app.dbs.read, { orgId: org.id, brandId: brand.id }, window);
      return presentAnalytics(data, { ...brand, categoryId: null });
    },
  );

  app.get(
    '/api/categories/:category_id/analytics/',
    {
      schema: {
        tags: ['analytics'],
        summary: 'Date-range analytics of one category',
        params: CategoryParams,
        querystring: AnalyticsQuery,
        response: responses(Analytics),
      },
      config: brandsRead,
    },
    async (request) => {
      const { category, brand } = await categoryOf(request, request.params.category_id);
      const org = caller(request);
      const window = valid(parseRange(request.query, app.clock(), org.timezone));
      const scope = { orgId: org.id, brandId: brand.id, categoryId: category.id };
      const data = await loadWindow(app.dbs.read, scope, window);
      return presentAnalytics(data, { ...brand, categoryId: category.id });
    },
  );

  app.get(
    '/api/brands/:brand_id/score-history/',
    {
      schema: {
        tags: ['analytics'],
        summary: 'Score of a brand as of each scored run, with the windowed delta',
        params: BrandParams,
        querystring: HistoryQuery,
        response: responses(ScoreHistory),
      },
      config: brandsRead,
    },
    async (request) => {
      const brand = await brandOf(request, request.params.brand_id);
      const org = caller(request);
      const { window, limit } = valid(parseHistory(request.query, app.clock(), org.timezone));
      const scores = await historyScores(app.dbs.read, org.id, { brandId: brand.id }, window);
      return presentHistory(scores, window, limit);
    },
  );

  app.get(
    '/api/categories/:category_id/score-history/',
    {
      schema: {
        tags: ['analytics'],
        summary: 'Score of a category as of each scored run, with the windowed delta',
        params: CategoryParams,
        querystring: HistoryQuery,
        response: responses(ScoreHistory),
      },
      config: brandsRead,
    },
    async (request) => {
      const { category, brand } = await categoryOf(request, request.params.category_id);
      const org = caller(request);
      const { window, limit } = valid(parseHistory(request.query, app.clock(), org.timezone));
      const scope = { brandId: brand.id, categoryIds: [category.id] };
      const scores = await historyScores(app.dbs.read, org.id, scope, window);
      return presentHistory(scores, window, limit);
    },
  );

  app.get(
    '/api/brands/:brand_id/category-deltas/',
    {
      schema: {
        tags: ['analytics'],
        summary: 'Windowed score delta of every non-archived category of a brand',
        params: BrandParams,
        querystring: DeltasQuery,
        response: responses(CategoryDeltas),
      },
      config: brandsRead,
    },
    async (request) => {
      const brand = await brandOf(request, request.params.brand_id);
      const org = caller(request);
      const { window } = valid(parseHistory(request.query, app.clock(), org.timezone));
      const [categoryIds, scores] = await Promise.all([
        liveCategoryIds(app.dbs.read, org.id, brand.id),
        categoryHistoryScores(app.dbs.read, org.id, { brandId: brand.id }, window),
      ]);
      const deltas: Record<string, ReturnType<typeof presentDelta>> = {};
      for (const categoryId of categoryIds) {
        const own = ofCategory(scores, categoryId);
        const slice = historySlice(own.before, own.within, own.firstScoredAt);
        deltas[String(categoryId)] = presentDelta(windowedDelta(slice, window));
      }
      return { deltas };
    },
  );

  app.get(
    '/api/prompts/:prompt_id/changes/',
    {
      schema: {
        tags: ['analytics'],
        summary: 'What changed in a prompt’s latest scored run against the one before',
        params: PromptParams,
        response: responses(PromptChanges),
      },
      config: { access: { scope: 'runs:read' as const } },
    },
    async (request) => {
      rejectInvalidParams(request);
      const orgId = caller(request).id;
      const prompt = await findPromptRef(app.dbs.read, orgId, request.params.prompt_id);
      if (!prompt) throw new NotFound();
      rejectInvalidQuery(request);
      const [latest, previous] = (await latestScoredRuns(app.dbs.read, orgId, prompt.id)).map((run) =>
        digestRun(run.runId, run.observations, run.competitors),
      );
      return promptChanges(latest ?? null, previous ?? null);
    },
  );
}
