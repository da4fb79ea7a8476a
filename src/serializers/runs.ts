import type { EntityKey, FullResponseRecord, LightResponseRecord, ResponseRecord } from '../db/responses.ts';
import type { RunEntities, RunListRow, RunRecord } from '../db/runs.ts';
import {
  compareEntities,
  domainCounts,
  type EntityObservation,
  type EntityStats,
  entityStats,
} from '../domain/entities.ts';
import { roundRank, roundScore } from '../domain/scoring.ts';
import type { PageRequest } from '../http/pagination.ts';
import type { CompetitorBody, FullResponseBody, LightResponseBody } from '../schemas/runs.ts';

// Response shaping of runs and their responses: ids as strings, figures rounded at the edge, the
// whole run's competitor table computed from its answers' mentions.

export function runListItem(row: RunListRow) {
  return {
    id: String(row.id),
    timestamp: row.finishedAt,
    score: row.score === null ? null : roundScore(row.score),
    status: row.status,
    categoryId: String(row.categoryId),
  };
}

export function runStatus(run: RunRecord) {
  return {
    id: String(run.id),
    status: run.status,
    pollUrl: `/api/runs/${run.id}/`,
    finishedAt: run.finishedAt,
  };
}

function responseFields(record: ResponseRecord) {
  return {
    id: String(record.id),
    promptId: String(record.promptId),
    runId: String(record.runId),
    model: record.model,
    modelLabel: record.modelLabel,
    surface: record.surface,
    mentioned: record.mentioned,
    sentiment: record.sentiment,
    rank: record.rank,
    sources: record.sources,
    sampleCount: record.sampleCount,
    timestamp: record.capturedAt,
  };
}

export function lightResponse(record: LightResponseRecord): LightResponseBody {
  return { ...responseFields(record), hasText: record.hasText, textLength: record.textLength };
}

export function fullResponse(record: FullResponseRecord): FullResponseBody {
  return { ...responseFields(record), answerText: record.answerText };
}

function competitor(
  base: Pick<CompetitorBody, 'id' | 'categoryId' | 'name' | 'canonicalKey' | 'canonicalName' | 'isUserBrand'>,
  stats: EntityStats | undefined,
): CompetitorBody {
  return {
    ...base,
    mentions: stats?.mentions ?? 0,
    averageRank: stats?.averageRank == null ? null : roundRank(stats.averageRank),
    score: stats?.score == null ? null : roundScore(stats.score),
    sourceBreakdown: stats?.sourceBreakdown ?? [],
  };
}

/** The whole run's competitor table (the brand included) and cited domains. */
export function competitorsOf(
  run: RunRecord,
  entities: RunEntities,
  observations: EntityObservation<EntityKey>[],
): { competitors: CompetitorBody[]; sources: { domain: string; count: number }[] } {
  const keys: EntityKey[] = ['brand', ...entities.competitors.map((c) => c.id)];
  const stats = entityStats(keys, observations);
  const { brand } = entities;
  const competitors = [
    competitor(
      {
        id: String(brand.id),
        categoryId: String(run.categoryId),
        name: brand.name,
        canonicalKey: brand.name.toLowerCase(),
        canonicalName: brand.name,
        isUserBrand: true,
      },
      stats.get('brand'),
    ),
    ...entities.competitors.map((c) =>
      competitor(
        {
          id: String(c.id),
          categoryId: String(c.categoryId),
          name: c.name,
          canonicalKey: c.canonicalKey,
          canonicalName: c.canonicalName,
          isUserBrand: false,
        },
        stats.get(c.id),
      ),
    ),
  ].sort(compareEntities);
  return { competitors, sources: domainCounts(observations.flatMap((o) => o.domains)) };
}

export function responsesNextPath(runId: number, page: PageRequest, count: number): string | null {
  if (page.offset + page.pageSize >= count) return null;
  return `/api/runs/${runId}/?page=${page.page + 1}&page_size=${page.pageSize}`;
}
