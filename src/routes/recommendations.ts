import { findBrandRef } from '../db/brands.ts';
import { listRecommendations } from '../db/recommendations.ts';
import { NotFound } from '../errors.ts';
import { assertPageExists, pageEnvelope, pageRequest } from '../http/pagination.ts';
import type { App } from '../http/types.ts';
import { rejectInvalidParams, rejectInvalidQuery } from '../http/validation.ts';
import { responses } from '../schemas/common.ts';
import { RecommendationList, RecommendationParams, RecommendationQuery } from '../schemas/recommendations.ts';

export async function recommendationRoutes(app: App): Promise<void> {
  const db = app.dbs.read;

  app.get(
    '/api/brands/:brand_id/recommendations/',
    {
      // The plan gate answers 403 before any lookup, so a client can tell "not on plan" from "none".
      config: { access: { scope: 'brands:read', minimumPlan: 'pro' } },
      schema: {
        tags: ['recommendations'],
        summary:
          "A brand's recommendations with their artifacts and outcomes: high, medium, low priority, then " +
          'score, then newest; superseded and deleted ones are left out. Pro plan or higher.',
        params: RecommendationParams,
        querystring: RecommendationQuery,
        response: responses(RecommendationList),
      },
    },
    async (request) => {
      rejectInvalidParams(request);
      const orgId = request.caller!.organization.id;
      const brand = await findBrandRef(db, orgId, request.params.brand_id);
      if (!brand) throw new NotFound();
      rejectInvalidQuery(request);
      const page = pageRequest(request.query);
      const { count, recommendations } = await listRecommendations(db, orgId, brand.id, page);
      assertPageExists(page, count);
      return { ...pageEnvelope(request, app.config.publicBaseUrl, page, count), results: recommendations };
    },
  );
}
