// Checks a generation request before any artifact exists: a request that cannot work is refused
// outright (the CLI's usage error) instead of leaving a failed artifact behind.

import { findBrandRef } from '../db/brands.ts';
import { findCategoryRef } from '../db/categories.ts';
import type { Db } from '../db/connect.ts';
import { findOrganization } from '../db/report-lookups.ts';
import { parseRange } from '../domain/windows.ts';
import { REPORT_TYPES } from './catalog.ts';
import type { ReportRequestScope } from './data.ts';
import type { ReportTypeDefinition } from './report-type.ts';

/** What a caller asks the generator for, before it is checked. */
export const REPORT_FORMATS = ['pdf', 'html'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export interface GenerateRequest {
  orgId: number;
  brandId: number;
  /** One category of the brand, or null for the whole brand. */
  categoryId: number | null;
  reportType: string;
  format: ReportFormat;
  /** Window parameters, as the analytics endpoints take them (default 30d). */
  range?: string;
  start?: string;
  end?: string;
  /** The user generating it (generatedByEmail), when known. */
  userId: number | null;
  /** Carry the organization's name on the report ("Prepared for ..."). */
  branded: boolean;
}

export class InvalidReportRequest extends Error {
  override name = 'InvalidReportRequest';
}

export async function validateRequest(
  db: Db,
  request: GenerateRequest,
  now: Date,
): Promise<{ definition: ReportTypeDefinition; scope: ReportRequestScope }> {
  const definition = REPORT_TYPES.get(request.reportType);
  if (!definition) {
    throw new InvalidReportRequest(
      `unknown report type "${request.reportType}"; expected one of ${[...REPORT_TYPES.keys()].join(', ')}`,
    );
  }
  const organization = await findOrganization(db, request.orgId);
  const brand = organization && (await findBrandRef(db, organization.id, request.brandId));
  if (!organization || !brand)
    throw new InvalidReportRequest(`no brand ${request.brandId} in organization ${request.orgId}`);

  let category: ReportRequestScope['category'] = null;
  if (request.categoryId !== null) {
    const found = await findCategoryRef(db, organization.id, request.categoryId);
    if (!found || found.brandId !== brand.id) {
      throw new InvalidReportRequest(`category ${request.categoryId} is not a category of brand ${brand.id}`);
    }
    if (found.isArchived)
      throw new InvalidReportRequest(`category ${found.id} is archived: it has no current figures`);
    category = { id: found.id, name: found.name };
  }

  const range = request.range ?? definition.fixedRange ?? undefined;
  if (definition.fixedRange !== null && (range !== definition.fixedRange || request.start || request.end)) {
    throw new InvalidReportRequest(`a ${definition.type} always covers range ${definition.fixedRange}`);
  }
  const window = { range, start: request.start, end: request.end };
  const parsed = parseRange(window, now, organization.timezone);
  if (!parsed.ok) {
    const problems = Object.entries(parsed.errors).map(
      ([field, messages]) => `${field}: ${messages.join(' ')}`,
    );
    throw new InvalidReportRequest(`bad window: ${problems.join('; ')}`);
  }
  return {
    definition,
    scope: { organization, brand, category, window, now, needs: definition.needs },
  };
}
