import type { FastifyRequest } from 'fastify';
import {
  countRunResponses,
  type EntityKey,
  type FullResponseRecord,
  findAddressableResponse,
  type LightResponseRecord,
  type ResponseRecord,
  responseHtml,
  runEntityObservations,
  runResponsesPage,
} from '../db/responses.ts';
import {
  countVisibleRuns,
  findAddressableRun,
  type RunEntities,
  type RunListRow,
  type RunRecord,
  type RunScope,
  runEntities,
  runPromptIds,
  runScopeExists,
  visibleRunsPage,
} from '../db/runs.ts';
import {
  compareEntities,
  domainCounts,
  type EntityObservation,
  type EntityStats,
  entityStats,
} from '../domain/entities.ts';
import { roundRank, roundScore } from '../domain/scoring.ts';
import { NotAuthenticated, NotFound } from '../errors.ts';
import {
  assertPageExists,
  type PageRequest,
  pageEnvelope,
  pageRequest,
  RUN_RESPONSES_PAGE_SIZE,
} from '../http/pagination.ts';
import type { App } from '../http/types.ts';
import { rejectInvalidParams, rejectInvalidQuery } from '../http/validation.ts';
import { IdParam, responses } from '../schemas/common.ts';
import {
  type CompetitorBody,
  FullResponse,
  type FullResponseBody,
  type LightResponseBody,
  ResponseQuery,
  RunDetail,
  RunDetailQuery,
  RunList,
  RunListQuery,
  RunStatus,
} from '../schemas/runs.ts';

const access = { access: { scope: 'runs:read' } } as const;
const tags = ['runs'];

function orgIdOf(request: FastifyRequest): number {
  // The gate sets the caller on every keyed route; its absence means the gate was bypassed.
  if (!request.caller) throw new NotAuthenticated();
  return request.caller.organization.id;
}

function runListItem(row: RunListRow) {
  return {
    id: String(row.id),
    timestamp: row.finishedAt,
    score: row.score === null ? null : roundScore(row.score),
    status: row.status,
    categoryId: String(row.categoryId),
  };
}

function runStatus(run: RunRecord) {
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

function lightResponse(record: LightResponseRecord): LightResponseBody {
  return { ...responseFields(record), hasText: record.hasText, textLength: record.textLength };
}

function fullResponse(record: FullResponseRecord): FullResponseBody {
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
function competitorsOf(
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

function responsesNextPath(runId: number, page: PageRequest, count: number): string | null {
  if (page.offset + page.pageSize >= count) return null;
  return `/api/runs/${runId}/?page=${page.page + 1}&page_size=${page.pageSize}`;
}

export async function runRoutes(app: App): Promise<void> {
  const listRoute = <K extends string>(
    url: string,
    param: K,
    scopeOf: (id: number) => RunScope,
    summary: string,
  ) =>
    app.get(
      url,
      {
        schema: {
          tags,
          summary,
          params: IdParam(param),
          querystring: RunListQuery,
          response: responses(RunList),
        },
        config: access,
      },
      async (request) => {
        rejectInvalidParams(request);
        const orgId = orgIdOf(request);
        const scope = scopeOf((request.params as Record<K, number>)[param]);
        if (!(await runScopeExists(app.dbs.read, orgId, scope))) throw new NotFound();
        rejectInvalidQuery(request);
        const page = pageRequest(request.query);
        const count = await countVisibleRuns(app.dbs.read, orgId, scope);
        assertPageExists(page, count);
        const rows = await visibleRunsPage(app.dbs.read, orgId, scope, page);
        return {
          ...pageEnvelope(request, app.config.publicBaseUrl, page, count),
          results: rows.map(runListItem),
        };
      },
    );

  listRoute(
    '/api/brands/:brand_id/runs/',
    'brand_id',
    (brandId) => ({ brandId }),
    "A brand's visible completed runs, newest first.",
  );
  listRoute(
    '/api/categories/:category_id/runs/',
    'category_id',
    (categoryId) => ({ categoryId }),
    "A category's visible completed runs, newest first.",
  );

  app.get(
    '/api/runs/:run_id/status/',
    {
      schema: {
        tags,
        summary: 'Whether a run is done: reads the run row only, for poll loops.',
        params: IdParam('run_id'),
        response: responses(RunStatus),
      },
      config: access,
    },
    async (request) => {
      rejectInvalidParams(request);
      const run = await findAddressableRun(app.dbs.read, orgIdOf(request), request.params.run_id);
      if (!run) throw new NotFound();
      rejectInvalidQuery(request);
      return runStatus(run);
    },
  );

  app.get(
    '/api/runs/:run_id/',
    {
      schema: {
        tags,
        summary: 'A run with one page of its responses and whole-run competitors and sources.',
        params: IdParam('run_id'),
        querystring: RunDetailQuery,
        response: responses(RunDetail),
      },
      config: access,
    },
    async (request) => {
      rejectInvalidParams(request);
      const db = app.dbs.read;
      const orgId = orgIdOf(request);
      const run = await findAddressableRun(db, orgId, request.params.run_id);
      if (!run) throw new NotFound();
      rejectInvalidQuery(request);
      const page = pageRequest(request.query, RUN_RESPONSES_PAGE_SIZE);
      const count = await countRunResponses(db, orgId, run.id);
      assertPageExists(page, count);
      const [rows, promptIds, entities, observations] = await Promise.all([
        runResponsesPage(db, orgId, run.id, page),
        runPromptIds(db, orgId, run.id),
        runEntities(db, orgId, run),
        runEntityObservations(db, orgId, run.id),
      ]);
      return {
        ...runStatus(run),
        brandId: String(run.brandId),
        categoryId: String(run.categoryId),
        promptIds: promptIds.map(String),
        responses: rows.map(lightResponse),
        responsesCount: count,
        responsesPage: page.page,
        responsesPageSize: page.pageSize,
        responsesNext: responsesNextPath(run.id, page, count),
        ...competitorsOf(run, entities, observations),
      };
    },
  );

  app.get(
    '/api/responses/:response_id/',
    {
      schema: {
        tags,
        summary: 'One response with its answer text (and HTML on request).',
        params: IdParam('response_id'),
        querystring: ResponseQuery,
        response: responses(FullResponse),
      },
      config: access,
    },
    async (request) => {
      rejectInvalidParams(request);
      const orgId = orgIdOf(request);
      const found = await findAddressableResponse(app.dbs.read, orgId, request.params.response_id);
      if (!found) throw new NotFound();
      rejectInvalidQuery(request);
      const body = fullResponse(found);
      if (request.query.includeHtml !== true) return body;
      return { ...body, answerHtml: await responseHtml(app.dbs.read, orgId, found.id) };
    },
  );
}
