import type { FastifyRequest } from 'fastify';
import { DEMO_BRAND_ID, findBrandRef, findPublicDemoBrand } from '../db/brands.ts';
import { type CategoryRecord, countCategories, findCategoryRef, listCategories } from '../db/categories.ts';
import { countPrompts, listPrompts, type PromptRecord } from '../db/prompts.ts';
import { roundScore } from '../domain/scoring.ts';
import { NotAuthenticated, NotFound } from '../errors.ts';
import { assertPageExists, pageEnvelope, pageRequest } from '../http/pagination.ts';
import type { App } from '../http/types.ts';
import { rejectInvalidParams, rejectInvalidQuery } from '../http/validation.ts';
import { BrandParams } from '../schemas/brands.ts';
import { ArchivableListQuery, CategoryList, CategoryParams, PromptList } from '../schemas/categories.ts';
import { responses } from '../schemas/common.ts';
import { callerOrgId } from './brands.ts';

/** Only the demo brand's own path may skip the key; the handler then serves nothing else. */
function isDemoBrandPath(request: FastifyRequest): boolean {
  return (request.params as { brand_id?: string }).brand_id === String(DEMO_BRAND_ID);
}

function serialiseCategory(category: CategoryRecord) {
  return {
    id: String(category.id),
    brandId: String(category.brandId),
    name: category.name,
    description: category.description,
    isArchived: category.isArchived,
    promptCount: category.promptCount,
    monitoredPromptCount: category.monitoredPromptCount,
    averageScore: roundScore(category.scores.averageScore),
    previousScore: roundScore(category.scores.previousScore),
    hasScoreData: category.scores.hasScoreData,
    lastRunAt: category.lastRunAt,
    createdAt: category.createdAt,
  };
}

function serialisePrompt(prompt: PromptRecord) {
  return {
    id: String(prompt.id),
    categoryId: String(prompt.categoryId),
    brandId: String(prompt.brandId),
    text: prompt.text,
    isMonitored: prompt.isMonitored,
    isArchived: prompt.isArchived,
    latestScore: roundScore(prompt.latestScore),
    previousScore: roundScore(prompt.previousScore),
    hasScoreData: prompt.hasScoreData,
    lastRunId: prompt.lastRunId === null ? null : String(prompt.lastRunId),
    lastRunAt: prompt.lastRunAt,
    createdAt: prompt.createdAt,
  };
}

export async function categoryRoutes(app: App): Promise<void> {
  app.get(
    '/api/brands/:brand_id/categories/',
    {
      schema: {
        tags: ['categories'],
        summary: 'List a brand’s categories (the public demo brand’s list needs no key)',
        params: BrandParams,
        querystring: ArchivableListQuery,
        response: responses(CategoryList),
      },
      config: { access: { scope: 'brands:read', allowAnonymous: isDemoBrandPath } },
    },
    async (request) => {
      rejectInvalidParams(request);
      const brandId = request.params.brand_id;
      const brand = request.caller
        ? await findBrandRef(app.dbs.read, request.caller.organization.id, brandId)
        : await findPublicDemoBrand(app.dbs.read, brandId);
      // Without a key, a brand that is not the public demo brand asks for credentials rather than
      // revealing whether it exists.
      if (!brand) throw request.caller ? new NotFound() : new NotAuthenticated();
      rejectInvalidQuery(request);
      const filters = { includeArchived: request.query.archived === true };
      const page = pageRequest(request.query);
      const count = await countCategories(app.dbs.read, brand.orgId, brand.id, filters);
      assertPageExists(page, count);
      const categories = await listCategories(app.dbs.read, brand.orgId, brand.id, filters, page);
      return {
        ...pageEnvelope(request, app.config.publicBaseUrl, page, count),
        results: categories.map(serialiseCategory),
      };
    },
  );

  app.get(
    '/api/categories/:category_id/prompts/',
    {
      schema: {
        tags: ['categories'],
        summary: 'List a category’s prompts',
        params: CategoryParams,
        querystring: ArchivableListQuery,
        response: responses(PromptList),
      },
      config: { access: { scope: 'brands:read' } },
    },
    async (request) => {
      rejectInvalidParams(request);
      const orgId = callerOrgId(request);
      const category = await findCategoryRef(app.dbs.read, orgId, request.params.category_id);
      if (!category) throw new NotFound();
      rejectInvalidQuery(request);
      const filters = { includeArchived: request.query.archived === true };
      const page = pageRequest(request.query);
      const count = await countPrompts(app.dbs.read, orgId, category.id, filters);
      assertPageExists(page, count);
      const prompts = await listPrompts(app.dbs.read, orgId, category, filters, page);
      return {
        ...pageEnvelope(request, app.config.publicBaseUrl, page, count),
        results: prompts.map(serialisePrompt),
      };
    },
  );
}
