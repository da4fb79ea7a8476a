import type { FastifyRequest } from 'fastify';
import { latestScoredRuns } from '../db/analytics-changes.ts';
import {
  categoryHistoryScores,
  type HistoryScores,
  historyScores,
  ofCategory,
} from '../db/analytics-history.ts';
import { findBrandRef, findCategoryRef, findPromptRef, liveCategoryIds } from '../db/analytics-scope.ts';
import { loadWindow, type WindowData } from '../db/analytics-window.ts';
import {
  metrics,
  platforms,
  type Ratio,
  type ShareItem,
  shareOfVoice,
  sources,
} from '../domain/analytics.ts';
import { digestRun, promptChanges } from '../domain/prompt-changes.ts';
import { historySlice, thin, type WindowedDelta, windowedDelta } from '../domain/score-history.ts';
import { CURRENT_METHODOLOGY, roundRank, roundRate, roundScore } from '../domain/scoring.ts';
import { type Parsed, parseHistory, parseRange, type Window } from '../domain/windows.ts';
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

// Analytics, score history, category deltas and the prompt change feed. Every figure comes from
// the domain layer unrounded and is rounded here, at the edge (scores 1 decimal, rates and shares
// 4, ranks 2; deltas from unrounded values).

const SCOPE = 'historical_observation';

function caller(request: FastifyRequest) {
  if (!request.caller) throw new Error('keyed route reached without a caller');
  return request.caller.organization;
}

function valid<T>(parsed: Parsed<T>): T {
  if (!parsed.ok) throw new ValidationFailed(parsed.errors);
  return parsed.value;
}

const nullable = <T, R>(value: T | null, round: (v: T) => R): R | null =>
  value === null ? null : round(value);

function windowLabel(window: Window): string {
  if (window.selection.kind === 'rolling') return `Last ${window.spanLabel.replace('d', '')} days`;
  if (window.range === 'all') return 'All time';
  return window.spanLabel;
}

function presentRatio(ratio: Ratio, round: (v: number) => number) {
  return {
    value: nullable(ratio.value, round),
    previousValue: nullable(ratio.previousValue, round),
    delta: nullable(ratio.delta, round),
    suppressedReason: ratio.suppressedReason,
    numerator: ratio.numerator,
    denominator: ratio.denominator,
  };
}

function presentShare(item: ShareItem) {
  return {
    id: String(item.id),
    categoryId: item.categoryId === null ? null : String(item.categoryId),
    name: item.name,
    mentions: item.mentions,
    averageRank: nullable(item.averageRank, roundRank),
    score: nullable(item.score, roundScore),
    isUserBrand: item.isUserBrand,
    sourceBreakdown: item.sourceBreakdown,
    share: nullable(item.share, roundRate),
    previousShare: nullable(item.previousShare, roundRate),
    shareDelta: nullable(item.shareDelta, roundRate),
    shareDeltaSuppressedReason: item.shareDeltaSuppressedReason,
  };
}

// Exported for reports, whose figures must be these very ones.
export function presentAnalytics(
  data: WindowData,
  brand: { id: number; name: string; categoryId: number | null },
) {
  const { window, current, previous } = data;
  const label = windowLabel(window);
  const m = metrics(current, previous);
  const voice = shareOfVoice({ brand, competitors: data.competitors, current, previous });
  const cited = sources(current.citations, previous?.citations ?? null, { current, previous });
  const engines = platforms(current);
  const platformFigures = (p: (typeof engines.byModel)[number]) => ({
    score: roundScore(p.score ?? 0),
    mentionRate: roundRate(p.mentionRate ?? 0),
    totalAnswers: p.totalAnswers,
    totalSamples: p.totalSamples,
  });
  return {
    window: {
      range: window.range,
      start: window.start.toISOString(),
      end: window.end.toISOString(),
      asOf: window.asOf.toISOString(),
      timezone: window.timezone,
      selection: window.selection,
      previous: window.previous && {
        start: window.previous.start.toISOString(),
        end: window.previous.end.toISOString(),
      },
      bounds: { earliestObservationAt: data.earliestObservationAt },
    },
    metrics: {
      scope: SCOPE,
      label,
      sampleCount: m.sampleCount,
      mentionRate: presentRatio(m.mentionRate, roundRate),
      avgRank: presentRatio(m.avgRank, roundRank),
      sentiment: m.sentiment,
    },
    shareOfVoice: {
      scope: SCOPE,
      label,
      visible: voice.visible.map(presentShare),
      hidden: voice.hidden.map(presentShare),
    },
    sources: {
      totalDomains: cited.totalDomains,
      totalCitations: cited.totalCitations,
      items: cited.items.map((item) => ({
        ...item,
        share: roundRate(item.share),
        previousShare: nullable(item.previousShare, roundRate),
        shareDelta: nullable(item.shareDelta, roundRate),
      })),
    },
    platforms: {
      scope: SCOPE,
      label,
      apiPlatforms: engines.byModel.map((p) => ({
        model: p.key,
        modelLabel: p.label,
        ...platformFigures(p),
      })),
      surfacePlatforms: engines.bySurface.map((p) => ({
        surface: p.key,
        surfaceLabel: p.label,
        ...platformFigures(p),
      })),
    },
    coverage: {
      observationMethodology: CURRENT_METHODOLOGY,
      comparableFrom: data.comparableFrom,
      ...current.classification.coverage,
    },
  };
}

function presentDelta(delta: WindowedDelta) {
  return {
    latestScore: roundScore(delta.latestScore),
    boundaryScore: nullable(delta.boundaryScore, roundScore),
    delta: nullable(delta.delta, roundScore),
    asOfRunId: delta.asOfRunId,
    spanLabel: delta.spanLabel,
    suppressedReason: delta.suppressedReason,
  };
}

// Exported for reports, whose figures must be these very ones.
export function presentHistory(scores: HistoryScores, window: Window, limit: number | null) {
  const slice = historySlice(scores.before, scores.within, scores.firstScoredAt);
  const start = window.start?.getTime() ?? Date.parse(slice.points[0]?.scoredAt ?? '');
  const points = thin(slice.points, limit, { start, end: window.end.getTime() });
  return {
    points: points.map((p) => ({ date: p.scoredAt, score: roundScore(p.score), runId: p.runId })),
    windowedDelta: presentDelta(windowedDelta(slice, window)),
  };
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
