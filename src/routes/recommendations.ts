import { findBrandRef } from '../db/brands.ts';
import { countRecommendations, recommendationsPage } from '../db/recommendations.ts';
import { PAGE_ROWS } from '../http/csv.ts';
import { keyedGet } from '../http/endpoint.ts';
import { listPage } from '../http/pagination.ts';
import type { App } from '../http/types.ts';
import { responses } from '../schemas/common.ts';
import { RecommendationList, RecommendationParams, RecommendationQuery } from '../schemas/recommendations.ts';
import { presentRecommendation } from '../serializers/recommendations.ts';

export async function recommendationRoutes(app: App): Promise<void> {
  const db = app.dbs.read;

  keyedGet(app, '/api/brands/:brand_id/recommendations/', {
    scope: 'brands:read',
    cached: true,
    // The plan gate answers 403 before any lookup, so a client can tell "not on plan" from "none".
    minimumPlan: 'pro',
    csv: PAGE_ROWS,
    schema: {
      operationId: 'listBrandRecommendations',
      tags: ['recommendations'],
      summary:
        "A brand's recommendations with their artifacts and outcomes: high, medium, low priority, then " +
        'score, then newest; superseded and deleted ones are left out. Pro plan or higher.',
      params: RecommendationParams,
      querystring: RecommendationQuery,
      response: responses(RecommendationList),
    },
    find: (request, caller) => findBrandRef(db, caller.organization.id, request.params.brand_id),
    handler: async (request, { caller, found: brand }) =>
      listPage(
        request,
        request.query,
        {
          count: () => countRecommendations(db, caller.organization.id, brand.id),
          rows: (page) => recommendationsPage(db, caller.organization.id, brand.id, page),
        },
        presentRecommendation,
      ),
  });
}
