import {
  countRunResponses,
  findAddressableResponse,
  responseHtml,
  runEntityObservations,
  runResponsesPage,
} from '../db/responses.ts';
import {
  countVisibleRuns,
  findAddressableRun,
  type RunScope,
  runEntities,
  runPromptIds,
  runScopeExists,
  visibleRunsPage,
} from '../db/runs.ts';
import { PAGE_ROWS } from '../http/csv.ts';
import { keyedGet } from '../http/endpoint.ts';
import { assertPageExists, listPage, pageRequest, RUN_RESPONSES_PAGE_SIZE } from '../http/pagination.ts';
import type { App } from '../http/types.ts';
import { IdParam, responses } from '../schemas/common.ts';
import {
  FullResponse,
  ResponseQuery,
  RunDetail,
  RunDetailQuery,
  RunList,
  RunListQuery,
  RunStatus,
} from '../schemas/runs.ts';
import {
  competitorsOf,
  fullResponse,
  lightResponse,
  responsesNextPath,
  runListItem,
  runStatus,
} from '../serializers/runs.ts';

const scope = 'runs:read';
const tags = ['runs'];

export async function runRoutes(app: App): Promise<void> {
  const db = app.dbs.read;

  const listRoute = <K extends string>(
    url: string,
    param: K,
    scopeOf: (id: number) => RunScope,
    operationId: string,
    summary: string,
  ) =>
    keyedGet(app, url, {
      scope,
      cached: true,
      csv: PAGE_ROWS,
      schema: {
        operationId,
        tags,
        summary,
        params: IdParam(param),
        querystring: RunListQuery,
        response: responses(RunList),
      },
      find: async (request, caller) => {
        const runScope = scopeOf((request.params as Record<K, number>)[param]);
        return (await runScopeExists(db, caller.organization.id, runScope)) ? runScope : undefined;
      },
      handler: async (request, { caller, found: runScope }) =>
        listPage(
          request,
          request.query,
          {
            count: () => countVisibleRuns(db, caller.organization.id, runScope),
            rows: (page) => visibleRunsPage(db, caller.organization.id, runScope, page),
          },
          runListItem,
        ),
    });

  listRoute(
    '/api/brands/:brand_id/runs/',
    'brand_id',
    (brandId) => ({ brandId }),
    'listBrandRuns',
    "A brand's visible completed runs, newest first.",
  );
  listRoute(
    '/api/categories/:category_id/runs/',
    'category_id',
    (categoryId) => ({ categoryId }),
    'listCategoryRuns',
    "A category's visible completed runs, newest first.",
  );

  keyedGet(app, '/api/runs/:run_id/status/', {
    scope,
    cached: true,
    schema: {
      operationId: 'getRunStatus',
      tags,
      summary: 'Whether a run is done: reads the run row only, for poll loops.',
      params: IdParam('run_id'),
      response: responses(RunStatus),
    },
    find: (request, caller) => findAddressableRun(db, caller.organization.id, request.params.run_id),
    handler: async (_request, { found: run }) => runStatus(run),
  });

  keyedGet(app, '/api/runs/:run_id/', {
    scope,
    cached: true,
    // The rows are the page's responses; the run's own fields and whole-run aggregates stay JSON only.
    csv: { rows: ['responses'], total: 'responsesCount', next: 'responsesNext' },
    schema: {
      operationId: 'getRun',
      tags,
      summary: 'A run with one page of its responses and whole-run competitors and sources.',
      params: IdParam('run_id'),
      querystring: RunDetailQuery,
      response: responses(RunDetail),
    },
    find: (request, caller) => findAddressableRun(db, caller.organization.id, request.params.run_id),
    handler: async (request, { caller, found: run }) => {
      const orgId = caller.organization.id;
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
  });

  keyedGet(app, '/api/responses/:response_id/', {
    scope,
    cached: true,
    schema: {
      operationId: 'getResponse',
      tags,
      summary: 'One response with its answer text (and HTML on request).',
      params: IdParam('response_id'),
      querystring: ResponseQuery,
      response: responses(FullResponse),
    },
    find: (request, caller) =>
      findAddressableResponse(db, caller.organization.id, request.params.response_id),
    handler: async (request, { caller, found }) => {
      const body = fullResponse(found);
      if (request.query.includeHtml !== true) return body;
      return { ...body, answerHtml: await responseHtml(db, caller.organization.id, found.id) };
    },
  });
}
