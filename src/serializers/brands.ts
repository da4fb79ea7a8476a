import type { BrandRecord } from '../db/brands.ts';
import type { CategoryRecord } from '../db/categories.ts';
import type { PromptRecord } from '../db/prompts.ts';
import { groupByPrompt, roundScore, scoreSummary } from '../domain/scoring.ts';

// Response shaping of brands, their categories and prompts: ids as strings, scores rounded at
// the edge, the contract's empty objects where there is nothing to describe.

function latest(a: string, b: string | null): string {
  return b !== null && b > a ? b : a;
}

function presentScores(recent: BrandRecord['recentScores']) {
  const summary = scoreSummary(recent);
  return {
    averageScore: roundScore(summary.averageScore),
    previousScore: roundScore(summary.previousScore),
    hasScoreData: summary.hasScoreData,
  };
}

export function presentBrand(brand: BrandRecord) {
  const run = brand.inFlightRun;
  const { averageScore, previousScore, hasScoreData } = presentScores(brand.recentScores);
  return {
    id: String(brand.id),
    name: brand.name,
    website: brand.website,
    averageScore,
    previousScore,
    hasScoreData,
    categoryCount: brand.categoryCount,
    promptCount: brand.promptCount,
    monitoredPromptCount: brand.monitoredPromptCount,
    recCount: brand.recCount,
    lastActivity: latest(brand.updatedAt, brand.lastMonitoredRunAt),
    status: brand.status,
    hasInFlightRun: run !== null,
    runInFlightProgress: run
      ? {
          runId: String(run.runId),
          categoryId: String(run.categoryId),
          completedPrompts: run.completedPrompts,
          totalPrompts: run.totalPrompts,
          startedAt: run.startedAt,
        }
      : {},
    monitoringRefreshInProgress: run !== null,
    mergedInto: brand.mergedInto ? { id: String(brand.mergedInto.id), name: brand.mergedInto.name } : {},
    mergedAt: brand.mergedAt,
    orgId: String(brand.orgId),
    orgName: brand.orgName,
    executiveSummary: brand.executiveSummary,
    executiveSummaryUpdatedAt: brand.executiveSummaryUpdatedAt,
    lastMonitoredRunAt: brand.lastMonitoredRunAt,
    nextMonitoredRunAt: brand.nextMonitoredRunAt,
    nextRunPromptCount: brand.monitoredPromptCount,
  };
}

export function presentCategory(category: CategoryRecord) {
  return {
    id: String(category.id),
    brandId: String(category.brandId),
    name: category.name,
    description: category.description,
    isArchived: category.isArchived,
    promptCount: category.promptCount,
    monitoredPromptCount: category.monitoredPromptCount,
    ...presentScores(category.recentScores),
    lastRunAt: category.lastRunAt,
    createdAt: category.createdAt,
  };
}

/** A prompt's scores are its own scored runs, whatever its eligibility. */
export function presentPrompt(prompt: PromptRecord) {
  const summary = scoreSummary(prompt.recentScores);
  const last = groupByPrompt(prompt.recentScores).get(prompt.id)?.at(-1);
  return {
    id: String(prompt.id),
    categoryId: String(prompt.categoryId),
    brandId: String(prompt.brandId),
    text: prompt.text,
    isMonitored: prompt.isMonitored,
    isArchived: prompt.isArchived,
    latestScore: roundScore(summary.averageScore),
    previousScore: roundScore(summary.previousScore),
    hasScoreData: summary.hasScoreData,
    lastRunId: last ? String(last.runId) : null,
    lastRunAt: last?.scoredAt ?? null,
    createdAt: prompt.createdAt,
  };
}
