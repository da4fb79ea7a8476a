import type { FastifyRequest } from 'fastify';
import { type BrandRecord, countBrands, findBrand, listBrands } from '../db/brands.ts';
import { roundScore } from '../domain/scoring.ts';
import { NotFound } from '../errors.ts';
import { assertPageExists, pageEnvelope, pageRequest } from '../http/pagination.ts';
import type { App } from '../http/types.ts';
import { rejectInvalidParams, rejectInvalidQuery } from '../http/validation.ts';
import { Brand, BrandList, BrandListQuery, BrandParams } from '../schemas/brands.ts';
import { responses } from '../schemas/common.ts';

/** The organization of the key; every brand route is keyed, so the gate has always set it. */
export function callerOrgId(request: FastifyRequest): number {
  if (!request.caller) throw new Error('keyed route reached without a caller');
  return request.caller.organization.id;
}

function latest(a: string, b: string | null): string {
  return b !== null && b > a ? b : a;
}

function serialiseBrand(brand: BrandRecord) {
  const run = brand.inFlightRun;
  return {
    id: String(brand.id),
    name: brand.name,
    website: brand.website,
    averageScore: roundScore(brand.scores.averageScore),
    previousScore: roundScore(brand.scores.previousScore),
    hasScoreData: brand.scores.hasScoreData,
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

export async function brandRoutes(app: App): Promise<void> {
  app.get(
    '/api/brands/',
    {
      schema: {
        tags: ['brands'],
        summary: 'List the organization’s brands',
        querystring: BrandListQuery,
        response: responses(BrandList),
      },
      config: { access: { scope: 'brands:read' } },
    },
    async (request) => {
      rejectInvalidQuery(request);
      const orgId = callerOrgId(request);
      const query = request.query;
      const filters = { includeArchived: query.archived === true, monitoring: query.monitoring, q: query.q };
      const page = pageRequest(query);
      const count = await countBrands(app.dbs.read, orgId, filters);
      assertPageExists(page, count);
      const brands = await listBrands(app.dbs.read, orgId, filters, query.sort ?? 'last-run', page);
      return {
        ...pageEnvelope(request, app.config.publicBaseUrl, page, count),
        results: brands.map(serialiseBrand),
      };
    },
  );

  app.get(
    '/api/brands/:brand_id/',
    {
      schema: {
        tags: ['brands'],
        summary: 'One brand',
        params: BrandParams,
        response: responses(Brand),
      },
      config: { access: { scope: 'brands:read' } },
    },
    async (request) => {
      rejectInvalidParams(request);
      const brand = await findBrand(app.dbs.read, callerOrgId(request), request.params.brand_id);
      if (!brand) throw new NotFound();
      return serialiseBrand(brand);
    },
  );
}
