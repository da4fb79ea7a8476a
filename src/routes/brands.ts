import { countBrands, findBrand, listBrands } from '../db/brands.ts';
import { PAGE_ROWS } from '../http/csv.ts';
import { keyedGet } from '../http/endpoint.ts';
import { listPage } from '../http/pagination.ts';
import type { App } from '../http/types.ts';
import { Brand, BrandList, BrandListQuery, BrandParams } from '../schemas/brands.ts';
import { responses } from '../schemas/common.ts';
import { presentBrand } from '../serializers/brands.ts';

export async function brandRoutes(app: App): Promise<void> {
  const db = app.dbs.read;

  keyedGet(app, '/api/brands/', {
    scope: 'brands:read',
    cached: true,
    csv: PAGE_ROWS,
    schema: {
      operationId: 'listBrands',
      tags: ['brands'],
      summary: 'List the organization’s brands',
      querystring: BrandListQuery,
      response: responses(BrandList),
    },
    handler: async (request, { caller }) => {
      const orgId = caller.organization.id;
      const { query } = request;
      const filters = { includeArchived: query.archived === true, monitoring: query.monitoring, q: query.q };
      return listPage(
        request,
        query,
        {
          count: () => countBrands(db, orgId, filters),
          rows: (page) => listBrands(db, orgId, filters, query.sort ?? 'last-run', page),
        },
        presentBrand,
      );
    },
  });

  keyedGet(app, '/api/brands/:brand_id/', {
    scope: 'brands:read',
    cached: true,
    schema: {
      operationId: 'getBrand',
      tags: ['brands'],
      summary: 'One brand',
      params: BrandParams,
      response: responses(Brand),
    },
    find: (request, caller) => findBrand(db, caller.organization.id, request.params.brand_id),
    handler: async (_request, { found }) => presentBrand(found),
  });
}
