import type { FastifyRequest } from 'fastify';
import { DEMO_BRAND_ID, findBrandRef, findPublicDemoBrand } from '../db/brands.ts';
import { countCategories, findCategoryRef, listCategories } from '../db/categories.ts';
import { countPrompts, listPrompts } from '../db/prompts.ts';
import { PAGE_ROWS } from '../http/csv.ts';
import { keyedGet, publicDemoGet } from '../http/endpoint.ts';
import { listPage } from '../http/pagination.ts';
import type { App } from '../http/types.ts';
import { BrandParams } from '../schemas/brands.ts';
import { ArchivableListQuery, CategoryList, CategoryParams, PromptList } from '../schemas/categories.ts';
import { responses } from '../schemas/common.ts';
import { presentCategory, presentPrompt } from '../serializers/brands.ts';

/** Only the demo brand's own path may skip the key; the handler then serves nothing else. */
function isDemoBrandPath(request: FastifyRequest): boolean {
  return (request.params as { brand_id?: string }).brand_id === String(DEMO_BRAND_ID);
}

export async function categoryRoutes(app: App): Promise<void> {
  const db = app.dbs.read;

  publicDemoGet(app, '/api/brands/:brand_id/categories/', {
    scope: 'brands:read',
    // Kept only for a caller with a key; the anonymous demo read always asks the database.
    cached: true,
    csv: PAGE_ROWS,
    allowAnonymous: isDemoBrandPath,
    schema: {
      operationId: 'listBrandCategories',
      tags: ['categories'],
      summary: 'List a brand’s categories (the public demo brand’s list needs no key)',
      params: BrandParams,
      querystring: ArchivableListQuery,
      response: responses(CategoryList),
    },
    find: (request, caller) =>
      caller
        ? findBrandRef(db, caller.organization.id, request.params.brand_id)
        : findPublicDemoBrand(db, request.params.brand_id),
    handler: async (request, { found: brand }) => {
      const filters = { includeArchived: request.query.archived === true };
      return listPage(
        request,
        request.query,
        {
          count: () => countCategories(db, brand.orgId, brand.id, filters),
          rows: (page) => listCategories(db, brand.orgId, brand.id, filters, page),
        },
        presentCategory,
      );
    },
  });

  keyedGet(app, '/api/categories/:category_id/prompts/', {
    scope: 'brands:read',
    cached: true,
    csv: PAGE_ROWS,
    schema: {
      operationId: 'listCategoryPrompts',
      tags: ['categories'],
      summary: 'List a category’s prompts',
      params: CategoryParams,
      querystring: ArchivableListQuery,
      response: responses(PromptList),
    },
    find: (request, caller) => findCategoryRef(db, caller.organization.id, request.params.category_id),
    handler: async (request, { caller, found: category }) => {
      const orgId = caller.organization.id;
      const filters = { includeArchived: request.query.archived === true };
      return listPage(
        request,
        request.query,
        {
          count: () => countPrompts(db, orgId, category.id, filters),
          rows: (page) => listPrompts(db, orgId, category, filters, page),
        },
        presentPrompt,
      );
    },
  });
}
